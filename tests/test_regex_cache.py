"""Compiled patterns kept between hook processes (memory_cli/files/regex_cache.py): same answers,
private files, and a damaged cache that only costs time."""

from __future__ import annotations

import json
import marshal
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from helpers.cli import run_cli
from helpers.hooks import payload, run_hook

from memory_cli.capture import cues, detect
from memory_cli.files import regex_cache

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from correction_sets import (  # noqa: E402
    HELD_OUT_CORRECTIONS,
    HELD_OUT_LOOKALIKES,
    TUNING_CORRECTIONS,
    TUNING_LOOKALIKES,
)

PROMPTS = [m for _, m in TUNING_CORRECTIONS + TUNING_LOOKALIKES + HELD_OUT_CORRECTIONS + HELD_OUT_LOOKALIKES]


def _capture_sources() -> list[tuple[str, int]]:
    lazies = [v for v in vars(cues).values() if isinstance(v, cues._Lazy)]
    return [(detect._re(name).pattern, detect._re(name).flags & ~re.UNICODE) for name in detect._SOURCES] + [
        (lz.source, lz.flags) for lz in lazies
    ]


def _held(path: Path) -> dict:
    return marshal.loads(path.read_bytes())["patterns"]


def test_a_pattern_rebuilt_from_the_cache_answers_like_re_compile():
    """Every capture pattern, through the cache file's format and back, finds the same
    matches on every labelled prompt as the pattern ``re.compile`` builds."""
    sources = _capture_sources()
    assert len(sources) > 100
    for source, flags in sources:
        entry = marshal.loads(marshal.dumps(regex_cache._generate(source, int(flags))))
        cached, plain = regex_cache._build(source, entry), re.compile(source, flags)
        assert (cached.pattern, cached.flags, cached.groups, cached.groupindex) == (
            plain.pattern,
            plain.flags,
            plain.groups,
            plain.groupindex,
        )
        for text in PROMPTS:
            a, b = cached.search(text), plain.search(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), (source[:60], text)


DETECT_ALL = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tests/fixtures")
from correction_sets import *
from memory_cli.files import regex_cache
from memory_cli.capture.detect import detect
prompts = [m for _, m in TUNING_CORRECTIONS + TUNING_LOOKALIKES + HELD_OUT_CORRECTIONS + HELD_OUT_LOOKALIKES]
out = []
for m in prompts:
    d = detect(m)
    out.append(None if d is None else [d.kind, d.signal, d.what_was_wrong, d.what_is_right, d.statement])
counts = {"from_cache": len(regex_cache._seen) - len(regex_cache._new), "compiled": len(regex_cache._new)}
regex_cache.save()
print(json.dumps({"detections": out, **counts}))
"""


def _detect_all_in_a_process() -> dict:
    r = subprocess.run(
        [sys.executable, "-I", "-S", "-c", DETECT_ALL, str(ROOT)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_capture_detects_the_same_with_a_cold_and_a_warm_cache(claude_dir):
    cold = _detect_all_in_a_process()
    assert cold["compiled"] > 100 and cold["from_cache"] == 0
    path = Path(regex_cache.cache_file())
    assert path.is_file()
    warm = _detect_all_in_a_process()
    assert warm["compiled"] == 0 and warm["from_cache"] == cold["compiled"]  # nothing compiled again
    assert warm["detections"] == cold["detections"]
    assert sum(d is not None for d in warm["detections"]) > len(PROMPTS) // 3


def test_the_prompt_hook_keeps_its_patterns_in_a_private_file(claude_dir, db_path, detector_speaks):
    p = payload("UserPromptSubmit", prompt="no, use pnpm not npm")
    first = run_hook("UserPromptSubmit", p, db=db_path)
    assert first.returncode == 0 and "Recorded correction: use pnpm, not npm." in first.stdout
    path = Path(regex_cache.cache_file())
    assert path.is_relative_to(claude_dir) and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert _held(path) and b"pnpm" not in path.read_bytes()  # code, not prompts
    before = path.stat().st_mtime_ns
    again = run_hook("UserPromptSubmit", p, db=db_path)
    assert again.returncode == 0 and "Recorded correction: use pnpm, not npm (said 2 times)." in again.stdout
    assert path.stat().st_mtime_ns == before  # nothing new to write: every pattern came from the file


def test_a_damaged_cache_costs_time_not_answers(claude_dir, db_path, detector_speaks):
    path = Path(regex_cache.cache_file())
    path.parent.mkdir(parents=True, exist_ok=True)
    p = payload("UserPromptSubmit", prompt="no, use pnpm not npm")
    path.write_bytes(b"\x00not a cache")
    r = run_hook("UserPromptSubmit", p, db=db_path)
    assert r.returncode == 0 and "Recorded correction: use pnpm, not npm." in r.stdout
    # A well-formed file whose engine code is garbage: the engine refuses it, the pattern is
    # compiled anew.
    data = marshal.loads(path.read_bytes())
    garbage = b"\x63\x00\x00\x00" * 4
    data["patterns"] = {k: (e[0], garbage, *e[2:]) for k, e in data["patterns"].items()}
    path.write_bytes(marshal.dumps(data))
    r = run_hook("UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use yarn not npm"), db=db_path)
    assert r.returncode == 0 and "Recorded correction: use yarn, not npm." in r.stdout
    damaged = sum(e[1] == garbage for e in _held(path).values())
    assert damaged < len(data["patterns"]) // 2  # the patterns it used were written back whole


def test_install_compiles_every_capture_pattern_once(claude_dir):
    assert run_cli("install", "--no-mcp").returncode == 0
    held = _held(Path(regex_cache.cache_file()))
    keys = {f"{int(flags)}:{source}" for source, flags in _capture_sources()}
    assert keys <= set(held)


def test_install_compiles_every_secret_format_the_redactor_uses(claude_dir):
    from memory_cli.privacy import secret_formats

    assert run_cli("install", "--no-mcp").returncode == 0
    held = _held(Path(regex_cache.cache_file()))
    assert {f"0:{r['regex']}" for r in secret_formats.rules()} <= set(held)


def _doctor_line(db_path) -> dict:
    r = run_cli("doctor", "--json", db=db_path)
    checks = json.loads(r.stdout)["checks"]
    return next(c for c in checks if c["name"] == "capture: compiled patterns")


def test_doctor_says_how_many_patterns_are_kept(claude_dir, store, db_path):
    before = _doctor_line(db_path)
    # doctor's own hook probe may keep the few patterns it used (the redactor's), not more
    held_before = 0 if "none kept yet" in before["detail"] else int(before["detail"].split()[0])
    assert before["status"] == "ok" and held_before < len(_capture_sources())
    # the store the hooks use seals the file: a cache sealed by another store is not trusted
    run_cli("install", "--no-mcp", db=db_path)
    after = _doctor_line(db_path)
    assert after["status"] == "ok" and int(after["detail"].split()[0]) >= len(_capture_sources())


def test_doctor_warns_when_the_cache_cannot_be_written(claude_dir, store, db_path, detector_speaks):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "cache").write_text("a file where the cache folder should be")
    line = _doctor_line(db_path)
    assert line["status"] == "warn" and "cannot be written" in line["detail"]
    r = run_hook("UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm not npm"), db=db_path)
    assert r.returncode == 0 and "Recorded correction: use pnpm, not npm." in r.stdout  # slower, not broken


def test_prompt_hooks_running_at_once_leave_a_whole_cache(claude_dir, db_path, detector_speaks):
    """Eight sessions' prompts at the same moment, the cache cold: each answers, and the file they
    race to write is whole (each writes a temporary file and renames it)."""
    from concurrent.futures import ThreadPoolExecutor

    tools = ["pnpm", "yarn", "bun", "uv", "poetry", "pipx", "hatch", "pdm"]

    def prompt(tool: str):
        p = payload("UserPromptSubmit", prompt=f"no, use {tool} not npm", session_id=f"s-{tool}")
        return tool, run_hook("UserPromptSubmit", p, db=db_path)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(prompt, tools))
    for tool, r in results:
        assert r.returncode == 0 and f"Recorded correction: use {tool}, not npm" in r.stdout, r.stderr
    path = Path(regex_cache.cache_file())
    assert len(_held(path)) > 20
    assert not list(path.parent.glob("*.tmp"))
