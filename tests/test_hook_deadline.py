"""A hook that runs past its hard deadline (here: stalled reading its stdin, as a process the
machine does not schedule would be) ends with exit 0 and says so: never exit 1, which Claude
Code shows as a hook error. The stall is recorded for doctor in hook-errors.log."""

from __future__ import annotations

import json
import subprocess
import time

from conftest import hook_cmd

from memory_cli.hooks.runner import HARD_DEADLINE_S


def _stalled(event: str, db_path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.Popen(
        [*hook_cmd(), "--db", str(db_path), "hook", event],
        stdin=subprocess.PIPE,  # open and never written: the hook waits on it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.wait(timeout=HARD_DEADLINE_S[event] * 10 + 30)  # stdin stays open all along
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdin.close()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), time.monotonic() - start


def test_a_session_end_past_its_deadline_exits_0(db_path, claude_dir):
    r, took = _stalled("SessionEnd", db_path)
    assert r.returncode == 0, (r.returncode, r.stderr.decode()[-2000:])
    assert r.stdout == b"" and r.stderr == b""  # SessionEnd's output is discarded: nothing said
    assert took >= HARD_DEADLINE_S["SessionEnd"]
    log = (claude_dir / "memory" / "hook-errors.log").read_text()
    assert "Timeout (" in log and "SessionEnd hook ran past its hard deadline" in log, log


def test_a_tool_hook_past_its_deadline_exits_0_and_tells_the_person(db_path, claude_dir):
    r, _took = _stalled("PreToolUse", db_path)
    assert r.returncode == 0, (r.returncode, r.stderr.decode()[-2000:])
    said = json.loads(r.stdout)
    assert "ran past its 4.5 s deadline" in said["systemMessage"] and "hookSpecificOutput" not in said
