"""The gate fails closed: a tool call memory-cli could not check is refused, with the reason.

Real hook processes (the command `memory-cli install` registers) with Claude Code's payloads,
against real stores put in each fault: locked by another process, missing, not a store, a
config file that is not JSON, a handler that raises. Each time the person and the agent are
told what is wrong and the way back, and once the fault is gone the next call is checked as
usual. The events after a call stay fail-open (their faults never stop the work).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers.hooks import hook_cmd, payload, run_hook
from helpers.store import add_rule

from memory_cli.store.db import Store


def bash(command: str) -> dict:
    call = payload("PreToolUse")
    call["tool_input"] = {"command": command, "description": "run"}
    return call


def _store_with_block_rule(db_path):
    add_rule(db_path, "Never rm -rf build", pattern="rm -rf build", pattern_type="command", action="block")


def _hold_exclusive_lock(db_path) -> subprocess.Popen:
    """One backgrounded `sqlite3` call holding the store in an exclusive lock (readers wait on it
    even in WAL mode), as an agent could start it; released when its stdin closes."""
    proc = subprocess.Popen(
        ["sqlite3", str(db_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdin.write("PRAGMA locking_mode=EXCLUSIVE;\nBEGIN EXCLUSIVE;\nUPDATE kv SET value = value;\nSELECT 'held';\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "exclusive"  # the PRAGMA's answer
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_locked_store_denies_with_the_reason_and_the_next_call_runs_once_it_is_released(db_path, claude_dir):
    _store_with_block_rule(db_path)
    holder = _hold_exclusive_lock(db_path)
    try:
        r = run_hook("PreToolUse", bash("ls -la"), db=db_path)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert r.decision == "deny"
    assert "locked by another process" in r.reason and "memory-cli doctor" in r.reason
    assert "locked by another process" in r.system_message
    # Lock gone: an unrelated call runs, and the rule holds as before.
    again = run_hook("PreToolUse", bash("ls -la"), db=db_path)
    assert again.returncode == 0 and again.decision is None, again
    blocked = run_hook("PreToolUse", bash("rm -rf build"), db=db_path)
    assert blocked.decision == "deny" and "Never rm -rf build" in blocked.reason
    # The refusal is in the audit log (written once the lock was free).
    with Store.open(db_path) as s:
        from memory_cli.store import spool

        spool.drain(s, wait=True)
        rows = s.rows("SELECT details, result FROM memory_audit_log WHERE action = 'hook_error'")
    assert any("locked by another process" in (r["details"] or "") and r["result"] == "denied" for r in rows), rows


def test_a_missing_store_denies_and_is_not_recreated(db_path, claude_dir):
    assert not db_path.exists()
    r = run_hook("PreToolUse", bash("rm -rf build"), db=db_path)
    assert r.returncode == 0 and r.decision == "deny"
    assert f"memory-cli's store is missing at {db_path}: run `memory-cli doctor`" in r.reason
    assert not db_path.exists()  # never an empty store that would enforce nothing


def test_a_path_that_is_not_a_store_denies_and_is_left_untouched(tmp_path, claude_dir):
    folder = tmp_path / "memory.db"
    folder.mkdir()
    r = run_hook("PreToolUse", bash("ls"), db=folder)
    assert r.returncode == 0 and r.decision == "deny"
    assert "store cannot be used" in r.reason and "is a directory" in r.reason
    assert folder.is_dir() and not list(folder.iterdir())


def test_a_config_file_that_is_not_json_denies_with_the_file_to_fix(db_path, claude_dir):
    _store_with_block_rule(db_path)
    config = claude_dir / "memory" / "config.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text('{"enforcement": {"enabled": fals')
    r = run_hook("PreToolUse", bash("ls"), db=db_path)
    assert r.decision == "deny" and str(config) in r.reason and "not valid JSON" in r.reason
    # The events that decide nothing go on (their default config is used).
    post = run_hook("PostToolUse", payload("PostToolUse"), db=db_path)
    assert post.returncode == 0 and post.decision is None
    config.write_text('{"enforcement": {"enabled": true}}')
    assert run_hook("PreToolUse", bash("ls"), db=db_path).decision is None


_CRASHING = """
import builtins, sys
from memory_cli.hooks import registry

def crash(ctx, response):
    raise RuntimeError("a handler broke")

builtins.crash_handler = crash
registry.HANDLERS[sys.argv[2]].insert(0, "builtins:crash_handler")
from memory_cli.hooks.runner import main
sys.exit(main(sys.argv[2], sys.argv[1]))
"""


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_handler_that_raises_denies_the_gate_and_only_tells_after_the_call(db_path, claude_dir, event):
    _store_with_block_rule(db_path)
    proc = subprocess.run(
        [sys.executable, "-c", _CRASHING, str(db_path), event],
        input=json.dumps(payload(event) if event != "PreToolUse" else bash("ls")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    said = json.loads(proc.stdout)
    decision = (said.get("hookSpecificOutput") or {}).get("permissionDecision")
    if event == "PreToolUse":
        assert decision == "deny"
        assert "a handler broke" in said["hookSpecificOutput"]["permissionDecisionReason"]
        assert "refused" in said["systemMessage"] and "memory-cli doctor" in said["systemMessage"]
    else:
        assert decision is None and "failed open" in said["systemMessage"]


def test_codex_and_gemini_get_the_refusal_in_their_own_words(db_path, claude_dir):
    """Neither agent has an onFailure setting: memory-cli's own answer is what blocks there."""
    codex_call = {
        "session_id": "c1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "model": "gpt",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "turn_id": "t",
        "transcript_path": None,
        "permission_mode": "default",
        "tool_use_id": "u1",
    }
    gemini_call = {
        "session_id": "g1",
        "cwd": "/tmp",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00Z",
        "transcript_path": "/tmp/t.json",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "ls"},
    }
    for agent, native, call in (("codex", "PreToolUse", codex_call), ("gemini", "BeforeTool", gemini_call)):
        proc = subprocess.run(
            [*hook_cmd(), "--db", str(db_path), "hook", "--agent", agent, native],
            input=json.dumps(call),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        said = json.loads(proc.stdout)
        if agent == "gemini":
            assert said["decision"] == "deny" and "store is missing" in said["reason"]
        else:
            assert said["hookSpecificOutput"]["permissionDecision"] == "deny"
            assert "store is missing" in said["hookSpecificOutput"]["permissionDecisionReason"]
