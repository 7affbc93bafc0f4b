"""A whole Claude Code session while another process holds the store's write lock (a long
bulk change from the dashboard): the gate still denies, the correction is acknowledged to the
model at once, no hook fails, and what the hooks had to write is in the store once the lock
is released and the next command runs."""

from __future__ import annotations

import time

import pytest
from helpers.write_lock import HeldWriteLock

from .standin import bash

pytestmark = pytest.mark.e2e


def _settle(home, seconds: float) -> None:
    """Wait until nothing started from this HOME runs (the detached maintenance of a session)."""
    deadline = time.monotonic() + seconds
    while home.processes() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_session_during_a_bulk_change_is_gated_and_loses_nothing(fresh_home):
    home = fresh_home
    home.write_config({"capture": {"agent_lessons": False}})  # the detector's line says it was taken
    home.cli("rules", "add", "Never use pythonw.exe", "--alternative", "use python.exe")
    warm = home.run_session("hello", ["Hello."])  # today's maintenance runs now, not under the lock
    assert warm.returncode == 0, warm.describe()
    _settle(home, 60)
    writer = HeldWriteLock(home.db)
    try:
        s = home.run_session(
            "No, use pnpm, not npm. Then launch the app.",
            [bash("touch denied.txt && pythonw.exe src/main.py", "launch"), "Done."],
        )
        assert writer.still_held()  # the lock was held for the whole session
    finally:
        writer.release()
    assert s.returncode == 0, s.describe()
    said = s.first_request.hook_contexts("UserPromptSubmit")
    assert said and "Recorded correction: use pnpm, not npm." in said[0], s.describe()
    denied = s.main_requests[1].tool_results()[-1]
    assert denied["is_error"] and "Never use pythonw.exe" in denied["text"], s.describe()
    assert not (home.project / "denied.txt").exists()
    _settle(home, 60)
    home.cli("add", "The app starts with python.exe", "--type", "fact")  # a command that writes
    queue = home.cli("review", "--list").stdout
    assert "use pnpm, not npm" in queue, queue
    blocks = home.cli_json("audit", "--action", "enforce_block")
    assert [b["session_id"] for b in blocks] == [s.result["session_id"]], blocks
    hooks = home.cli_json("audit", "--action", "hook", "--limit", "1000")
    ran = {r["hook_event"] for r in hooks if r["session_id"] == s.result["session_id"]}
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"} <= ran, ran
