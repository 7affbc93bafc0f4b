"""A hook that runs past its hard deadline (here: stalled reading its stdin, as a process the
machine does not schedule would be) ends with exit 0 and says so: never exit 1, which Claude
Code shows as a hook error. The stall is recorded for doctor in hook-errors.log."""

from __future__ import annotations

import json
import subprocess
import time

from helpers.hooks import hook_cmd

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


def test_a_hook_its_deadline_ends_is_in_the_audit_log_as_cut_short(db_path, claude_dir):
    """Not a silent gap: the alarm spools a `hook` row with result `deadline` (one file write,
    no lock), which the next process that writes puts in the audit log."""
    from memory_cli import audit
    from memory_cli.store import spool
    from memory_cli.store.db import Store

    r, _took = _stalled("SessionEnd", db_path)
    assert r.returncode == 0
    with Store.open(db_path) as s:
        spool.drain(s, wait=True)
        rows = audit.query(s, action="hook", limit=10)
    assert [(row["hook_event"], row["result"]) for row in rows] == [("SessionEnd", "deadline")], rows
    assert rows[0]["details"]["deadline_s"] == HARD_DEADLINE_S["SessionEnd"]


def test_the_gate_past_its_deadline_denies_the_call_and_says_why(db_path, claude_dir):
    r, _took = _stalled("PreToolUse", db_path)
    assert r.returncode == 0, (r.returncode, r.stderr.decode()[-2000:])
    said = json.loads(r.stdout)
    decided = said["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny"
    assert "ran past its 4.5 s deadline" in decided["permissionDecisionReason"]
    assert "memory-cli doctor" in said["systemMessage"]


def test_an_event_after_the_call_past_its_deadline_only_tells_the_person(db_path, claude_dir):
    r, _took = _stalled("PostToolUse", db_path)
    assert r.returncode == 0, (r.returncode, r.stderr.decode()[-2000:])
    said = json.loads(r.stdout)
    assert "ran past its 4.5 s deadline" in said["systemMessage"] and "hookSpecificOutput" not in said


def test_the_deadline_row_written_without_imports_is_read_back_by_the_spool(db_path, claude_dir):
    """The alarm can come while a module is being imported (then nothing of memory-cli can be
    imported): its row is then written by hand in the spool's format, and drained like any other."""
    from memory_cli import audit
    from memory_cli.hooks import runner
    from memory_cli.store import db, spool
    from memory_cli.store.db import Store

    assert runner.SPOOL_SUFFIX == db.SPOOL_SUFFIX
    Store.open(db_path).close()
    runner._answer.update(session_id='s"1\\x', agent="codex")
    runner._spool_deadline_row(str(db_path), "SessionEnd", 1.2)
    with Store.open(db_path) as s:
        assert spool.drain(s, wait=True)["applied"] == 1
        [row] = audit.query(s, action="hook", limit=5)
    assert (row["result"], row["session_id"], row["hook_event"], row["agent"]) == (
        "deadline",
        's"1\\x',
        "SessionEnd",
        "codex",
    )
    assert row["details"] == {"deadline_s": 1.2}
