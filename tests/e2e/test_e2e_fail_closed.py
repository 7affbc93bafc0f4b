"""The gate fails closed, in the real Claude Code (scripted model).

- Another process holds memory-cli's store in an exclusive lock: the gated call is denied with
  the reason (it never ran), and once the lock is gone the next unrelated call runs.
- The gate's hook cannot start, or hangs past its timeout: `install` registered it with
  `onFailure: "block"`, so Claude Code blocks the call instead of running it unchecked; the
  same broken hook without the flag lets the call run (what the flag is for).
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e


def _hold_exclusive_lock(db) -> subprocess.Popen:
    proc = subprocess.Popen(
        ["sqlite3", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    proc.stdin.write("PRAGMA locking_mode=EXCLUSIVE;\nBEGIN EXCLUSIVE;\nUPDATE kv SET value = value;\nSELECT 'held';\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "exclusive"
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_locked_store_denies_with_the_reason_and_the_next_call_runs_once_released(fresh_home):
    home = fresh_home
    home.allow_hook_failures = True  # the refused call is recorded as the gate's fault, on purpose
    home.cli(
        "rules", "add", "Never rm -rf build", "--pattern", "rm -rf build", "--pattern-type", "command", "-a", "block"
    )
    (home.project / "build").mkdir()
    holder = _hold_exclusive_lock(home.db)
    try:
        s = home.run_session("clean up", [bash("rm -rf build && touch cleaned.txt", "clean"), "Done."])
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert s.returncode == 0, s.describe()
    refused = s.main_requests[1].tool_results()[-1]
    assert refused["is_error"], s.describe()
    assert "locked by another process" in refused["text"] and "memory-cli doctor" in refused["text"], refused
    assert (home.project / "build").is_dir() and not (home.project / "cleaned.txt").exists()

    after = home.run_session("list the files", [bash("touch listed.txt && ls", "list"), "Done."])
    assert after.returncode == 0, after.describe()
    assert not after.main_requests[1].tool_results()[-1]["is_error"], after.describe()
    assert (home.project / "listed.txt").exists()
    # The rule holds as before once the store can be read.
    again = home.run_session("clean up", [bash("rm -rf build", "clean"), "Done."])
    assert "Never rm -rf build" in again.main_requests[1].tool_results()[-1]["text"], again.describe()
    assert (home.project / "build").is_dir()


def _rewrite_gate(home, change) -> None:
    """Change the gate's command-route entry (an ``mcp_tool`` entry is first put on the command
    route, as `install` writes it for Codex, Gemini or `enforcement.hook_route: command`)."""
    path = home.claude_dir / "settings.json"
    data = json.loads(path.read_text())
    start = next(h for g in data["hooks"]["SessionStart"] for h in g["hooks"] if h.get("type") == "command")
    for group in data["hooks"]["PreToolUse"]:
        for handler in group["hooks"]:
            if handler.get("type") == "mcp_tool":
                for key in ("server", "tool", "input"):
                    handler.pop(key)
                handler.update(type="command", command=start["command"].replace(" SessionStart", " PreToolUse"))
            change(handler)
    path.write_text(json.dumps(data, indent=2))


def _cannot_start(handler) -> None:
    """The interpreter the command names is gone (a moved or deleted virtualenv)."""
    words = shlex.split(handler["command"])
    words[0] = words[0] + "-gone"
    handler["command"] = shlex.join(words)


def _hangs(handler) -> None:
    handler["command"] = "sleep 30; " + handler["command"]
    handler["timeout"] = 2


@pytest.mark.parametrize("broken", [_cannot_start, _hangs], ids=["cannot-start", "hangs"])
def test_a_gate_that_crashes_or_hangs_blocks_the_call(fresh_home, broken):
    home = fresh_home
    home.allow_hook_failures = True
    assert all(h.get("onFailure") == "block" for g in home.settings()["hooks"]["PreToolUse"] for h in g["hooks"])
    _rewrite_gate(home, broken)
    s = home.run_session("make a file", [bash("touch made.txt", "make"), "Done."])
    assert s.returncode == 0, s.describe()
    assert s.main_requests[1].tool_results()[-1]["is_error"], s.describe()
    assert not (home.project / "made.txt").exists()

    # The same broken hook without the flag: Claude Code's default lets the call run unchecked.
    _rewrite_gate(home, lambda h: h.pop("onFailure", None))
    s = home.run_session("make a file", [bash("touch made.txt", "make"), "Done."])
    assert s.returncode == 0, s.describe()
    assert (home.project / "made.txt").exists()
