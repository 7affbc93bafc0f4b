"""What changes memory-cli's rules, hooks or store outside memory-cli is never silent.

From the person's side: a rule switched off by a raw `sqlite3` call, the store deleted, the
rule cache deleted, a settings file rewritten without the gate's hook. Each is said at the next
SessionStart (the line the person sees) and by `memory-cli doctor`; the gate keeps enforcing the
rules as the person last confirmed them until they accept the change; the native rule copies
are not rewritten from a tampered store.
"""

from __future__ import annotations

import json
import re
import subprocess

from helpers.cli import run_cli
from helpers.hooks import payload, run_hook
from helpers.store import add_rule


def bash(command: str) -> dict:
    call = payload("PreToolUse")
    call["tool_input"] = {"command": command, "description": "run"}
    return call


def _block_rule(db_path) -> dict:
    """A block rule as the person adds it (`memory-cli rules add`)."""
    r = run_cli(
        "--json", "rules", "add", "Never rm -rf build", "-p", "rm -rf build", "-T", "command", "-a", "block", db=db_path
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _session_start(db_path):
    r = run_hook("SessionStart", payload("SessionStart", source="startup"), db=db_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    return r


def _doctor(db_path) -> dict:
    data = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)
    return data


def _sql(db_path, statement: str) -> None:
    subprocess.run(["sqlite3", str(db_path), statement], check=True, capture_output=True, timeout=30)


def test_a_rule_turned_off_by_raw_sql_still_blocks_and_is_said_until_accepted(db_path, claude_dir):
    rule = _block_rule(db_path)
    assert run_hook("PreToolUse", bash("rm -rf build"), db=db_path).decision == "deny"
    clean = _session_start(db_path)
    assert "not memory-cli" not in clean.system_message

    _sql(db_path, "UPDATE enforcement_rules SET active = 0")  # the route nobody listed

    # The gate keeps the rule the person confirmed.
    r = run_hook("PreToolUse", bash("rm -rf build"), db=db_path)
    assert r.decision == "deny" and "Never rm -rf build" in r.reason
    # The person is told at the next session start, with what and when.
    said = _session_start(db_path).system_message
    assert re.search(r"1 rule turned off by a process that was not memory-cli, at \d\d:\d\d UTC", said), said
    assert rule["id"][:8] in said and "memory-cli rules accept-changes" in said
    checks = [c for c in _doctor(db_path)["checks"] if c["name"] == "outside changes"]
    assert checks and checks[0]["status"] == "fail" and "1 rule turned off" in checks[0]["detail"]
    # Changes made through memory-cli afterwards do not hide it.
    add_rule(db_path, "Never git push --force", pattern="git push --force", pattern_type="command", action="block")
    assert "1 rule turned off" in _session_start(db_path).system_message

    # The person's word: now the rule is off.
    r = run_cli("rules", "accept-changes", "--yes", db=db_path)
    assert r.returncode == 0 and "accepted: 1 turned off" in r.stdout, r.stderr
    assert run_hook("PreToolUse", bash("rm -rf build"), db=db_path).decision is None
    assert run_hook("PreToolUse", bash("git push --force"), db=db_path).decision == "deny"
    assert "not memory-cli" not in _session_start(db_path).system_message
    checks = [c for c in _doctor(db_path)["checks"] if c["name"] == "outside changes"]
    assert checks[0]["status"] == "ok"


def test_accepting_changes_without_a_terminal_needs_yes(db_path, claude_dir):
    _block_rule(db_path)
    _sql(db_path, "DELETE FROM enforcement_rules")
    r = run_cli("rules", "accept-changes", db=db_path)
    assert r.returncode != 0 and "pass --yes" in r.stderr
    # From the agent's shell it is refused even with --yes: accepting is the person's word.
    r = run_cli("rules", "accept-changes", "--yes", db=db_path, env={"CLAUDECODE": "1"})
    assert r.returncode == 7 and "your own terminal" in r.stderr
    hook = run_hook("PreToolUse", bash("memory-cli rules accept-changes --yes"), db=db_path)
    assert hook.decision == "ask" and "weakens memory-cli's enforcement" in hook.reason
    assert run_hook("PreToolUse", bash("rm -rf build"), db=db_path).decision == "deny"


def test_a_deleted_store_is_said_not_recreated_and_doctor_brings_one_back(db_path, claude_dir):
    _block_rule(db_path)
    assert run_hook("PreToolUse", bash("ls"), db=db_path).decision is None  # the rule cache exists now
    db_path.unlink()

    said = _session_start(db_path)
    assert f"store at {db_path} was deleted by a process that was not memory-cli" in said.system_message
    assert "memory-cli doctor" in said.system_message and "was deleted" in said.context
    assert not db_path.exists()  # no hook recreates it
    r = run_hook("PreToolUse", bash("ls"), db=db_path)
    assert r.decision == "deny" and f"memory-cli's store is missing at {db_path}" in r.reason
    assert not db_path.exists()

    checks = [c for c in _doctor(db_path)["checks"] if c["name"] == "database"]
    assert checks[0]["status"] == "fail" and "was deleted outside memory-cli" in checks[0]["detail"]
    assert "memory-cli restore" in checks[0]["detail"]
    assert db_path.exists() and run_hook("PreToolUse", bash("ls"), db=db_path).decision is None


def test_a_first_session_without_any_store_creates_it(db_path, claude_dir):
    """Nothing beside the path: a first run (e.g. the plugin before any command), not a deletion."""
    said = _session_start(db_path)
    assert "deleted" not in said.system_message
    assert db_path.exists()


def test_a_deleted_rule_cache_is_said_at_the_next_session_start(db_path, claude_dir):
    _block_rule(db_path)
    assert run_hook("PreToolUse", bash("ls"), db=db_path).decision is None
    cache = db_path.parent / (db_path.name + ".rules-cache")
    assert cache.exists()
    cache.unlink()
    # The gate rebuilds it and keeps enforcing.
    assert run_hook("PreToolUse", bash("rm -rf build"), db=db_path).decision == "deny"
    said = _session_start(db_path).system_message
    assert "rule cache beside the store was deleted by a process that was not memory-cli" in said
    assert "rule cache" not in _session_start(db_path).system_message  # said once


def test_a_settings_file_rewritten_without_the_gate_is_said(db_path, claude_dir):
    _block_rule(db_path)
    assert run_cli("install", db=db_path).returncode == 0
    settings = claude_dir / "settings.json"
    installed = settings.read_text()
    data = json.loads(installed)
    [gate] = [h for g in data["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert gate["onFailure"] == "block"  # a gate that crashes or hangs blocks the call
    assert "onFailure" not in json.dumps(data["hooks"]["PostToolUse"])  # after the call: never blocks
    assert "not memory-cli" not in _session_start(db_path).system_message
    assert "PreToolUse hook" not in _session_start(db_path).system_message

    del data["hooks"]["PreToolUse"]  # as a `cp` of another settings.json would leave it
    settings.write_text(json.dumps(data))
    said = _session_start(db_path).system_message
    assert f"its PreToolUse hook is gone from {settings}" in said and "memory-cli install" in said

    data = json.loads(installed)  # as `memory-cli install` wrote it, then without the flag
    for group in data["hooks"]["PreToolUse"]:
        for h in group["hooks"]:
            h.pop("onFailure")
    settings.write_text(json.dumps(data))
    assert "without onFailure: block" in _session_start(db_path).system_message
    checks = [c for c in _doctor(db_path)["checks"] if c["name"] == "outside changes"]
    assert any("without onFailure: block" in c["detail"] for c in checks), checks


def test_native_copies_are_not_rewritten_from_a_tampered_store(db_path, claude_dir):
    from test_native_rules import native_path

    _block_rule(db_path)
    assert run_cli("rules", "export", "--to", "gemini", "--write", db=db_path).returncode == 0
    copy = native_path("gemini")
    assert "rm -rf build" in copy.read_text()
    _sql(db_path, "UPDATE enforcement_rules SET active = 0")
    from memory_cli import settings as settings_mod
    from memory_cli.maintenance.tasks import native_task

    said = native_task(db_path, settings_mod.load())  # what the daily maintenance runs
    assert "kept as they were" in said
    assert "rm -rf build" in copy.read_text()
