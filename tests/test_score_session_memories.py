"""The session-memory scorer on real held-out sessions: the stored answers of a Claude-class
writer go through memory-cli's own validation, and the stored verdicts give the figures that
docs/llm.md reports."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "fixtures" / "real" / "heldout2"
SESSIONS = ["underspecified-1", "oliyoung-2", "fabien-lessirard-2", "francojc-1", "Zatoichi-42-1", "awesumsawz-1"]


def _run(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "score_session_memories.py"), "--requests", str(folder)]
        + [str(HELDOUT / f"{s}.jsonl") for s in SESSIONS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_the_requests_are_written_first_and_every_answer_passes_validation(tmp_path):
    out = _run(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(".answer.json") == len(SESSIONS)  # waiting for the writer
    request = (tmp_path / "heldout2-oliyoung-2.request.txt").read_text()
    assert "save_memories" in request and "I need the kroki extensions for mermaid" in request
    for name in SESSIONS:
        shutil.copy(HELDOUT / "model_written" / f"heldout2-{name}.answer.json", tmp_path)
    out = _run(tmp_path)
    assert out.stdout.count(".verdict.json") == len(SESSIONS)  # waiting for the judge
    judge = (tmp_path / "heldout2-oliyoung-2.judge.txt").read_text()
    assert "Never put xref links inside [mermaid] diagram blocks" in judge


def test_the_stored_verdicts_give_the_documented_figures(tmp_path):
    for p in (HELDOUT / "model_written").glob("*.json"):
        shutil.copy(p, tmp_path)
    out = _run(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "| 6 | 36 | 31 (86 %) | 4 (11 %) | 1 (3 %) | 6 / 6 | 0 | 11 |" in out.stdout
    assert "gave" not in out.stdout  # one verdict per validated memory


def test_the_first_held_out_set_gives_its_documented_figures(tmp_path):
    first = ROOT / "tests" / "fixtures" / "real" / "heldout"
    for p in (first / "model_written").glob("*.json"):
        shutil.copy(p, tmp_path)
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "score_session_memories.py"), "--requests", str(tmp_path)]
        + [str(first / f"{s}.jsonl") for s in ("bradymholt-2", "KaceyBui-2", "JamesTiberiusKirk-3", "Eduardodmb-1")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "| 4 | 19 | 15 (79 %) | 4 (21 %) | 0 (0 %) | 4 / 4 | 0 | 8 |" in out.stdout
    assert "gave" not in out.stdout
