"""The Stop-judge scoring harness end to end against a protocol-level stand-in of an
OpenAI-compatible server: each pair is sent as exactly the judge's request (the lesson quoted,
the reply as ``last_assistant_message``), and send-backs are scored against the labels."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.openai_standin import OpenAIStandIn, content

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "score_stop_judge.py"


def _pairs(tmp_path) -> Path:
    rows = [
        {"lesson": "Don't delete reports.", "reply": "Deleted the reports.", "label": "breaks"},
        {"lesson": "Don't delete reports.", "reply": "Moved the report to reports/.", "label": "keeps"},
        {"lesson": "Don't delete reports.", "reply": "Rebased onto origin.", "label": "n/a"},
        {"lesson": "Test both CLIs.", "reply": "Tested one CLI; the other should work.", "label": "breaks"},
    ]
    p = tmp_path / "pairs.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def test_the_harness_sends_the_judges_request_and_scores_send_backs(tmp_path):
    script = [
        content({"ok": False, "reason": "[00000000] restore them"}),
        content({"ok": False, "reason": "[00000001] a false send-back"}),
        content({"ok": True, "reason": "kept"}),
        content("I cannot tell"),  # no verdict: the judge failed, the turn would end
    ]
    with OpenAIStandIn(script) as server:
        out = subprocess.run(
            [sys.executable, str(SCRIPT), "--pairs", str(_pairs(tmp_path)), "--base-url", server.url, "--model", "m"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout[: out.stdout.rindex("}") + 1])
    assert figures["precision"] == 0.5 and figures["recall"] == 0.5
    assert figures["false_send_backs_per_100"] == 50.0 and figures["judge_failed"] == 1
    first = server.requests[0]["body"]["messages"][0]["content"]
    assert first.startswith("memory-cli Stop check") and '"Don\'t delete reports."' in first
    assert '"last_assistant_message": "Deleted the reports."' in first
