"""What the gate records, and what one bad field or a busy store can and cannot take away.

Through the real ``memory-cli hook`` process: an overrun row names exactly the rules left
unchecked and what happened to the call; calls that skipped nothing write no overrun rows; the
answer never waits on another process's write lock; the watchdog does not depend on a
directory; a bad payload field loses only the decisions that depend on it; huge inputs are
bounded to the work actually used.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.cli import _cmd
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.rules import api
from memory_cli.rules.safe_regex import fork_available
from memory_cli.store.db import Store

needs_fork = pytest.mark.skipif(not fork_available(), reason="needs os.fork")


def rows(db_path, action):
    s = Store.open(db_path)
    try:
        return audit.query(s, action=action, limit=1000)
    finally:
        s.close()


def bash(command, **kw):
    return payload("PreToolUse", tool_input={"command": command, "description": "run"}, **kw)


# -- honest overrun rows -----------------------------------------------------------------------


@needs_fork
def test_a_denied_call_with_a_skipped_rule_is_recorded_as_denied_naming_the_skipped_rule(hook, db_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    evil = add_rule(db_path, "catastrophic", name="evil-regex", pattern=r"(a+)+$", pattern_type="regex", action="block")
    r = hook("PreToolUse", bash("npm i " + "a" * 60 + "!"))
    assert r.decision == "deny" and "no npm" in r.stdout
    [row] = rows(db_path, "enforce_overrun")
    assert row["result"] == "denied"
    [skipped] = row["details"]["skipped"]
    assert skipped["id"] == evil["id"] and skipped["name"] == "evil-regex"
    assert "risky regex" in skipped["reason"] and "budget" in skipped["reason"]


@needs_fork
def test_nested_bounded_repeats_no_longer_stall_the_hook(hook, db_path):
    """Classified risky, they run in a child killed at the budget; the cheap rule decides."""
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    for p in (r"(a{1,999}){1,999}$", r"((a{1,10}){1,10}){1,10}$", r"(a|a){1,1000}y"):
        add_rule(db_path, f"nested {p}", pattern=p, pattern_type="regex", action="block")
    r = hook("PreToolUse", bash("npm i " + "a" * 31 + "!y"))
    assert r.returncode == 0 and r.decision == "deny"
    [row] = rows(db_path, "enforce_overrun")
    assert len(row["details"]["skipped"]) == 3


def test_calls_that_skip_nothing_write_no_overrun_rows_however_slow(hook, db_path, claude_dir):
    # A 1 ms budget is spent by any call; cheap rules are still all decided, so nothing was
    # skipped and nothing is reported (before, every such call wrote an "overrun").
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(
        json.dumps({"enforcement": {"max_latency_ms": 1}, "verification": {"max_latency_ms": 1}})
    )
    add_rule(
        db_path,
        "no force push in prompts",
        pattern=r"force\s+push",
        pattern_type="regex",
        action="warn",
        hook_events=["UserPromptSubmit"],
        fields=["prompt"],
    )
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    add_rule(db_path, "no rm -rf /", pattern=r"rm\s+-rf\s+/", pattern_type="regex", action="block", tools=["Bash"])
    for i in range(5):
        r = hook("UserPromptSubmit", payload("UserPromptSubmit", prompt=f"please force push {i}"))
        assert "no force push" in r.context
    assert hook("PreToolUse", bash("rm -rf / ")).decision == "deny"
    assert hook("PreToolUse", bash("npm i")).decision == "deny"
    assert hook("PreToolUse", bash("ls")).decision is None
    assert rows(db_path, "enforce_overrun") == []


def test_doctor_counts_only_overruns_that_skipped_a_rule(db_path):
    from memory_cli.rules.doctor import doctor_checks
    from memory_cli.settings import load

    s = Store.open(db_path)
    try:
        for _ in range(5):  # rows an older version wrote for slow calls that skipped nothing
            audit.record(
                s,
                "enforce_overrun",
                result="allowed",
                details={"budget_ms": 100, "elapsed_ms": 140, "unchecked_rules": []},
            )
        audit.record(
            s,
            "enforce_overrun",
            result="allowed",
            details={"skipped": [{"id": "r1", "name": "evil", "reason": "budget"}]},
        )
        audit.record(
            s, "enforce_overrun", result="intent_skipped", details={"rules": ["r2"], "reason": "daemon not answering"}
        )
        [check] = [c for c in doctor_checks(s, load()) if c["name"] == "rules: budget"]
    finally:
        s.close()
    assert check["detail"].startswith("2 call(s)")


# -- the answer first, the audit after ---------------------------------------------------------

_LOCKER = """
import sys, time
from memory_cli.store.db import Store
s = Store.open(sys.argv[1])
s.conn.execute("BEGIN IMMEDIATE")
s.conn.execute("INSERT INTO memory_audit_log(id, timestamp, action) VALUES ('lock', '2000', 'x')")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
s.conn.execute("ROLLBACK")
"""


def test_a_deny_is_answered_while_another_process_holds_the_write_lock(hook, db_path, claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    hook("PreToolUse", bash("ls"))  # build the rule cache before the lock is taken
    # Held past the watchdog (4.5 s): before, the audit insert waited on the lock and the
    # deny was lost with the process.
    locker = subprocess.Popen([sys.executable, "-c", _LOCKER, str(db_path), "7"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        r = hook("PreToolUse", bash("npm install left-pad"))
        assert r.returncode == 0 and r.decision == "deny" and "no npm" in r.stdout
        still_locked = locker.poll() is None
        if still_locked:  # the rows wait in the spool, private to the user
            folder = db_path.parent / (db_path.name + ".spool")
            [spooled] = list(folder.iterdir())
            assert "enforce_block" in spooled.read_text()
            assert (spooled.stat().st_mode & 0o077) == 0 and (folder.stat().st_mode & 0o077) == 0
            from memory_cli.doctor import run

            [check] = [c for c in run(str(db_path), measure=False) if c["name"] == "store: spool"]
            assert check["status"] == "warn" and "another process holds the write lock" in check["detail"]
    finally:
        locker.wait(timeout=60)
    hook("PreToolUse", bash("ls"))  # the next hook moves them into the audit log
    [block] = rows(db_path, "enforce_block")
    assert block["result"] == "denied" and "npm install" in block["details"]["subject"]
    assert not list((db_path.parent / (db_path.name + ".spool")).iterdir())


def test_rows_an_earlier_version_left_pending_are_written_once(hook, db_path, claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    Store.open(db_path).close()
    line = json.dumps(["enforce_block", {"result": "denied", "context": "Bash", "hook_event": "PreToolUse"}])
    pending = db_path.parent / (db_path.name + ".audit-pending")
    pending.write_text(line + "\n")
    hook("PreToolUse", bash("ls"))
    pending.write_text(line + "\n")  # the same file again, as if the move had been cut short
    hook("PreToolUse", bash("ls"))
    assert len(rows(db_path, "enforce_block")) == 1 and not pending.exists()


# -- the watchdog ------------------------------------------------------------------------------


def test_the_watchdog_is_armed_without_a_memory_directory(tmp_path):
    """A hook whose stdin never ends must still stop at the deadline (exit 0 and a one-line
    notice: a hook never exits 1), even with the store elsewhere and no writable Claude
    directory at all."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = dict(
        os.environ,
        HOME=str(tmp_path / "fresh-home"),
        CLAUDE_CONFIG_DIR=str(blocker / "claude"),  # cannot be created: a file is in the way
        MEMORY_CLI_DB=str(tmp_path / "elsewhere" / "m.db"),
    )
    proc = subprocess.Popen(
        [*_cmd(), "hook", "PreToolUse"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        proc.stdin.write(b'{"session_id": "s", "tool_name": "Bash", ')
        proc.stdin.flush()  # and never closed, like a stalled pipe
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    assert rc == 0
    assert b"Traceback" not in proc.stderr.read()
    assert b"ran past its 4.5 s deadline" in proc.stdout.read()


# -- one bad field loses only what depends on it -----------------------------------------------


def test_a_nul_in_transcript_path_keeps_every_other_decision(hook, db_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    add_rule(
        db_path, "transcript mentions prod", pattern="prod", pattern_type="regex", action="warn", fields=["transcript"]
    )
    r = hook("PreToolUse", bash("npm i", transcript_path="/tmp/a\x00b.jsonl"))
    assert r.decision == "deny" and "no npm" in r.stdout
    assert "failed open" not in r.stdout


def test_a_fifo_as_transcript_path_does_not_hold_the_hook(hook, db_path, tmp_path):
    fifo = tmp_path / "transcript.fifo"
    os.mkfifo(fifo)
    add_rule(
        db_path, "transcript mentions prod", pattern="prod", pattern_type="regex", action="warn", fields=["transcript"]
    )
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    r = hook("PreToolUse", bash("npm i", transcript_path=str(fifo)), timeout=30)
    assert r.returncode == 0 and r.decision == "deny"
    stop = hook(
        "Stop",
        payload("Stop", transcript_path=str(fifo), last_assistant_message="[MEMORY:fact:build] make uses ninja"),
        timeout=30,
    )
    assert stop.returncode == 0 and "Traceback" not in stop.stderr


def test_a_non_string_command_keeps_the_violation_feedback(hook, db_path):
    add_rule(
        db_path,
        "no leaked keys",
        pattern=r"AKIA[0-9A-Z]{16}",
        pattern_type="regex",
        action="warn",
        fields=["stdout"],
        tools=["Bash"],
    )
    for command in (12345, ["npm", "i"], {"argv": ["ls"]}):
        r = hook(
            "PostToolUse",
            payload("PostToolUse", tool_input={"command": command}, tool_response={"stdout": "AKIAABCDEFGHIJKLMNOP"}),
        )
        assert r.returncode == 0 and "no leaked keys" in r.context, (command, r)  # a warn rule warns


# -- huge inputs: the work is bounded to what is used ------------------------------------------


@pytest.mark.slow
def test_a_19mb_command_and_a_20mb_prompt_are_answered(hook, db_path, claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)  # where the watchdog writes: it is armed
    rule = add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    add_rule(db_path, "no curl", pattern="curl", pattern_type="command", action="block")
    filler = "echo abc def ghi " * (19 * 1024 * 1024 // 17)
    r = hook("PreToolUse", bash(filler), timeout=60)
    assert r.returncode == 0 and r.decision is None  # no program a rule names: decided
    r = hook("PreToolUse", bash(filler + "; npm i"), timeout=60)
    assert r.returncode == 0
    if r.decision is None:  # too large to parse: left unchecked, and said so
        [row] = rows(db_path, "enforce_overrun")
        assert [s["id"] for s in row["details"]["skipped"]] == [rule["id"]]
        assert "input too large" in row["details"]["skipped"][0]["reason"]
    prompt = "no, use pnpm not npm. " + "lorem ipsum dolor sit amet " * (20 * 1024 * 1024 // 27)
    r = hook("UserPromptSubmit", payload("UserPromptSubmit", prompt=prompt), timeout=60)
    assert r.returncode == 0
    s = Store.open(db_path)
    try:
        stored = s.value("SELECT length(user_message) FROM corrections")
    finally:
        s.close()
    assert stored is not None and stored <= 4000  # captured, and cut


def test_a_huge_write_is_scanned_within_the_budget_and_the_rest_named(store):
    """Substring checks are always made up to a scan size; past it, against a spent budget,
    the remaining rules are named as unchecked with the reason (nothing guessed)."""
    import time as _time

    from memory_cli.rules import engine, ruleset

    ids = {}
    for k in range(60):
        r = api.create_rule(
            store, f"no token {k}", pattern=f"token_{k}_x", pattern_type="regex", action="block", tools=["Write"]
        )
        ids[r["id"]] = k
    # Rules of one action and severity are checked in id order (ids are random): the rule
    # checked last would match, so the cheap first part of the scan can never reach it.
    last = ids[max(ids)]
    content = "y = 1\n" * 2_000_000 + f"token_{last}_x\n"  # 12 MB
    rs = ruleset.load(store)
    v = engine.evaluate(
        rs,
        event="PreToolUse",
        tool_name="Write",
        tool_input={"file_path": "/p/a.py", "content": content},
        deadline=_time.perf_counter() - 1,
    )
    assert v.decision == "allow" and 0 < len(v.unchecked) < 60
    assert {s["reason"] for s in v.skipped} == {"input too large to scan within the budget"}
    v = engine.evaluate(
        rs,
        event="PreToolUse",
        tool_name="Write",
        tool_input={"file_path": "/p/a.py", "content": content},
        deadline=_time.perf_counter() + 30,
    )
    assert v.decision == "block" and not v.unchecked
