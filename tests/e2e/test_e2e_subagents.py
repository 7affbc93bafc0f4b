"""Subagents through the real Claude Code: the gate holds inside a subagent, and a background
subagent's report, which Claude Code hands the main agent as a ``<task-notification>`` prompt,
is not taken for something the person typed."""

from __future__ import annotations

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e

TASK = "Install the dependencies and report back."


def test_subagent_calls_are_gated_and_its_report_is_not_a_correction(e2e_home):
    e2e_home.cli("rules", "add", "Never use pythonw.exe")
    s = e2e_home.run_session(
        "delegate the set-up",
        [
            tool_use("Task", {"description": "install deps", "prompt": TASK, "subagent_type": "claude"}),
            "Delegated.",
            "The subagent is done.",
        ],
        subagents={
            TASK: [
                bash("touch from-subagent.txt && pythonw.exe setup.py", "set up"),
                "Installed. No, never use yarn here, use pnpm instead: the yarn lockfile is stale.",
            ]
        },
        allowed_tools="Bash,Task",
    )
    assert s.returncode == 0, s.describe()
    sub = [r for r in s.main_requests if r.messages and TASK in r.user_texts()[:3]]
    denied = [t for r in sub for t in r.tool_results() if t["is_error"]]
    assert denied and "Never use pythonw.exe" in denied[-1]["text"], s.describe()
    assert not (e2e_home.project / "from-subagent.txt").exists()
    # The report reached the main agent as a prompt ...
    notified = [r for r in s.main_requests if "<task-notification>" in r.shown_text()]
    assert notified, s.describe()
    # ... and nothing in it was recorded as the person's correction, or acknowledged as one.
    assert "Nothing to review." in e2e_home.cli("review", "--list").stdout
    assert not any("Recorded correction" in c for r in s.main_requests for c in r.hook_contexts("UserPromptSubmit"))
