"""The scoring harness runs end to end against a protocol-level stand-in of an OpenAI-compatible
server: the agent path asked, the session-end reader given each prompt as a session's end, and
a correction counted only when its quote is what the person typed (an invented one is refused)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.openai_standin import OpenAIStandIn, content, tool_call

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow]


def _drawn(limit: int, seed: int) -> list[dict]:
    """The prompts the harness draws, the way it draws them."""
    sys.path.insert(0, str(ROOT / "scripts"))
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    from cv_capture_real import Data

    data = Data()
    idx = list(range(len(data.real)))
    random.Random(seed).shuffle(idx)
    return [data.real[i] for i in sorted(idx[:limit])]


def test_the_harness_scores_the_session_end_reader_and_refuses_an_invented_quote():
    first, second = _drawn(2, 5)
    said = " ".join(first["prompt"].split()[:4])
    kind = "pushback"
    script = [
        content("no"),  # the agent path: no lesson for the first prompt
        tool_call(
            "save_memories",
            {"memories": [], "report": "", "corrections": [{"quote": said, "statement": "Do it so", "kind": kind}]},
        ),
        content("no"),
        tool_call(
            "save_memories",
            {
                "memories": [],
                "report": "",
                "corrections": [{"quote": "words nobody typed here", "statement": "Never", "kind": kind}],
            },
        ),
    ]
    with OpenAIStandIn(script) as server:
        r = subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "score_readers.py"),
                "--base-url",
                server.url,
                "--limit",
                "2",
                "--seed",
                "5",
                "--session-end",
                "--model-name",
                "stand-in",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("session-end reader finds it"))
    tp, fp, _fn = (int(n) for n in re.findall(r"\s(\d+)(?=\s)", line)[:3])
    assert tp + fp == 1, line  # the first prompt's quote kept, the invented one refused
    assert tp == int(first["correction"]), line
    assert len(server.requests) == 4
