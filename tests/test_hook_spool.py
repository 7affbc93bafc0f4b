"""No hook waits for the write lock, and nothing a hook had to write is lost or written twice.

A real second process holds a write transaction open (``BEGIN IMMEDIATE``, as a long bulk
change from the dashboard does) while real hook processes run. Each hook must answer and end
while the lock is still held; what it had to write (audit rows, a captured correction, a
marker) is in the store once the lock is released and the next process has run, exactly once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers.hooks import payload, run_hook
from helpers.store import add_rule
from helpers.write_lock import HeldWriteLock

from memory_cli import audit
from memory_cli.store import spool
from memory_cli.store.db import Store


@pytest.fixture(autouse=True)
def detector_speaks(claude_dir):
    """These tests read the line the hook tells the agent of its own detections, which it says
    only when the agent is not recording lessons itself (``capture.agent_lessons`` off)."""
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')


@pytest.fixture
def held_lock(db_path, claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    Store.open(db_path).close()
    locks = []

    def take():
        lock = HeldWriteLock(db_path)
        locks.append(lock)
        return lock

    yield take
    for lock in locks:
        lock.release()


def rows(db_path, action, **kw):
    with Store.open(db_path) as s:
        return audit.query(s, action=action, limit=10_000, **kw)


def corrections(db_path):
    with Store.open(db_path) as s:
        return s.rows("SELECT statement, occurrence_count FROM corrections ORDER BY detected_at")


def bash(command):
    return payload("PreToolUse", tool_input={"command": command, "description": "run"})


def prompt(text, session_id="abc123"):
    return payload("UserPromptSubmit", prompt=text, session_id=session_id)


def test_a_deny_answers_and_ends_while_another_process_holds_the_write_lock(hook, db_path, held_lock):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    hook("PreToolUse", bash("ls"))  # the rule cache is built before the lock is taken
    lock = held_lock()
    r = hook("PreToolUse", bash("npm install left-pad"))
    # The hook process has ended, with its deny, and the other process still holds the lock:
    # the hook did not wait for it.
    assert r.returncode == 0 and r.decision == "deny" and "no npm" in r.stdout
    assert lock.still_held()
    files, ops = spool.waiting(str(db_path))
    assert files == 1 and ops >= 2  # the enforce_block row and the hook row wait beside the store
    lock.release()
    assert rows(db_path, "enforce_block") == []  # written by the next process, not before
    hook("PreToolUse", bash("ls"))
    [block] = rows(db_path, "enforce_block")
    assert block["result"] == "denied" and "npm install left-pad" in block["details"]["subject"]
    assert spool.waiting(str(db_path)) == (0, 0)


def test_a_correction_typed_during_a_long_bulk_change_is_stored_after_it(hook, cli, db_path, held_lock):
    lock = held_lock()
    r = hook("UserPromptSubmit", prompt("no, don't use npm here, use pnpm"))
    # Answered (Claude hears of the correction at once) and ended while the lock is held.
    assert r.returncode == 0 and "Recorded correction" in r.context and "pnpm" in r.context
    assert lock.still_held()
    assert corrections(db_path) == []
    lock.release()
    # The next process that writes (here a CLI command) stores it, once.
    assert cli("add", "the CI runs on Fridays", "--type", "fact", process=True).returncode == 0
    [stored] = corrections(db_path)
    assert "pnpm" in stored["statement"] and stored["occurrence_count"] == 1
    [captured] = rows(db_path, "capture")
    assert captured["result"] == "new" and captured["hook_event"] == "UserPromptSubmit"


def test_a_repeated_correction_spooled_twice_counts_twice_and_says_so(hook, db_path, held_lock):
    hook("UserPromptSubmit", prompt("no, don't use npm here, use pnpm", session_id="s1"))
    lock = held_lock()
    r = hook("UserPromptSubmit", prompt("no, don't use npm here, use pnpm", session_id="s2"))
    assert "said 2 times" in r.context  # read from the store as it is, while the lock is held
    lock.release()
    hook("PreToolUse", bash("ls"))
    [stored] = corrections(db_path)
    assert stored["occurrence_count"] == 2


def test_hooks_spooling_at_once_lose_nothing(db_path, held_lock):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    run_hook("PreToolUse", bash("ls"), db=db_path)
    said = [
        "no, don't use npm here, use pnpm",
        "no, never run pythonw.exe, use python.exe",
        "don't use tabs for indentation, use spaces",
        "no, use ruff instead of flake8",
    ]
    calls = [("PreToolUse", bash(f"npm install pkg{i}")) for i in range(4)]
    calls += [("UserPromptSubmit", prompt(text, session_id=f"s{i}")) for i, text in enumerate(said)]
    lock = held_lock()
    with ThreadPoolExecutor(len(calls)) as pool:
        results = list(pool.map(lambda c: run_hook(c[0], c[1], db=db_path), calls))
    assert lock.still_held()
    assert all(r.returncode == 0 for r in results)
    assert [r.decision for r in results[:4]] == ["deny"] * 4
    assert all("Recorded correction" in r.context for r in results[4:])
    assert spool.waiting(str(db_path))[0] >= len(calls)  # private files, at least one per process
    lock.release()
    run_hook("PreToolUse", bash("ls"), db=db_path)
    subjects = sorted(b["details"]["subject"] for b in rows(db_path, "enforce_block"))
    assert subjects == [f"npm install pkg{i}" for i in range(4)]
    assert len(corrections(db_path)) == len(said)
    assert len(rows(db_path, "capture")) == len(said)
    assert spool.waiting(str(db_path)) == (0, 0)


def test_a_drain_that_dies_before_removing_its_files_writes_nothing_twice(hook, db_path, held_lock, tmp_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    hook("PreToolUse", bash("ls"))
    lock = held_lock()
    hook("PreToolUse", bash("npm install left-pad"))
    hook("UserPromptSubmit", prompt("no, don't use npm here, use pnpm"))
    kept = tmp_path / "kept"
    shutil.copytree(spool.folder(str(db_path)), kept)
    lock.release()
    hook("PreToolUse", bash("ls"))
    # The drain committed; put its files back, as if it had been killed before removing them.
    for f in kept.iterdir():
        shutil.copy(f, spool.folder(str(db_path)))
    hook("PreToolUse", bash("ls"))
    assert len(rows(db_path, "enforce_block")) == 1
    assert len(rows(db_path, "capture")) == 1
    [stored] = corrections(db_path)
    assert stored["occurrence_count"] == 1
    assert spool.waiting(str(db_path)) == (0, 0)


def test_a_marker_written_during_a_bulk_change_is_remembered_after_it(hook, db_path, held_lock):
    lock = held_lock()
    r = hook("Stop", payload("Stop", last_assistant_message="[MEMORY:timing:ci] The CI build takes 12 minutes."))
    assert r.returncode == 0 and "once the store is free" in r.system_message
    assert lock.still_held()
    lock.release()
    hook("PreToolUse", bash("ls"))
    with Store.open(db_path) as s:
        stored = s.rows("SELECT content FROM memory_entries WHERE source = 'marker'")
    assert [e["content"] for e in stored] == ["The CI build takes 12 minutes."]


def test_a_write_that_cannot_be_applied_is_kept_and_does_not_hold_up_the_rest(db_path):
    with Store.open(db_path) as s:
        spool.put(str(db_path), [spool.make("no-such-kind", {"x": 1})])
        spool.put(str(db_path), [spool.make("audit", {"action": "enforce_block", "kw": {"result": "denied"}})])
        r = spool.drain(s, wait=True)
        assert (r["applied"], r["failed"]) == (1, 1)
        [failed] = audit.query(s, action="spool_failed")
        assert failed["details"]["op"] == {"x": 1}
        assert len(audit.query(s, action="enforce_block")) == 1
    assert spool.waiting(str(db_path)) == (0, 0)


def test_memories_are_injected_while_another_process_holds_the_write_lock(hook, cli, db_path, held_lock):
    cli("add", "Deploys go through the staging cluster first, never straight to production", "--type", "rule")
    lock = held_lock()
    start = hook("SessionStart", payload("SessionStart"))
    asked = hook("UserPromptSubmit", prompt("how do deploys to production work here?"))
    assert start.returncode == 0 and "staging cluster" in start.context
    assert asked.returncode == 0 and "staging cluster" in asked.context
    assert lock.still_held()
    lock.release()
    hook("PreToolUse", bash("ls"))
    with Store.open(db_path) as s:
        # SessionStart's detached maintenance may be draining too, within its time budget:
        # finish whatever it left (each operation is applied once whoever drains it).
        spool.drain(s, wait=True)
        assert s.value("SELECT use_count FROM memory_entries") == 2  # both injections counted, once
    assert len(rows(db_path, "inject")) == 2


def test_a_malformed_payload_during_a_bulk_change_is_reported_and_recorded_after_it(hook, db_path, held_lock):
    lock = held_lock()
    r = hook("PreToolUse", '{"hook_event_name": "PreToolUse", "tool_input": ')
    assert r.returncode == 0 and r.decision == "deny" and "not valid JSON" in r.system_message
    assert lock.still_held()
    lock.release()
    hook("PreToolUse", bash("ls"))
    [error] = rows(db_path, "hook_error")
    assert error["context"] == "invalid_input" and error["hook_event"] == "PreToolUse"


def test_a_spooled_row_whose_details_json_cannot_hold_is_kept_as_text(db_path):
    with Store.open(db_path) as s:
        spool.put(str(db_path), [spool.make("audit", {"action": "enforce_warn", "kw": {"details": {"ids": {"r1"}}}})])
        assert spool.drain(s, wait=True)["applied"] == 1
        [row] = audit.query(s, action="enforce_warn")
    assert row["details"] == {"ids": "{'r1'}"}


def test_a_violation_during_a_bulk_change_is_fed_back_at_once_and_counted_after_it(hook, db_path, held_lock):
    rule = add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    ran = payload("PostToolUse", tool_input={"command": "npm install left-pad", "description": "install"})
    hook("PostToolUse", payload("PostToolUse"))  # the rule cache is built before the lock is taken
    lock = held_lock()
    r = hook("PostToolUse", ran)
    assert r.returncode == 0 and "went against a rule" in r.stdout
    assert lock.still_held()
    lock.release()
    hook("PreToolUse", bash("ls"))
    with Store.open(db_path) as s:
        assert s.value("SELECT violation_count FROM memory_entries WHERE id = ?", (rule["id"],)) == 1
    [failed] = rows(db_path, "verify_fail")
    assert failed["details"]["count_queued"] is True


def test_a_long_command_timed_during_a_bulk_change_is_kept_as_a_sample(hook, db_path, held_lock):
    ran = payload(
        "PostToolUse",
        tool_input={"command": "pytest -q", "description": "tests"},
        duration_ms=4200,
    )
    lock = held_lock()
    assert hook("PostToolUse", ran).returncode == 0
    assert lock.still_held()
    lock.release()
    hook("PreToolUse", bash("ls"))
    with Store.open(db_path) as s:
        assert s.rows("SELECT name, value FROM metric_samples") == [{"name": "cmd: pytest -q", "value": 4.2}]


def test_a_session_ending_during_a_bulk_change_still_queues_its_transcript(hook, db_path, held_lock, tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hello"}}\n')
    lock = held_lock()
    ended = hook("SessionEnd", payload("SessionEnd", session_id="ending", transcript_path=str(transcript)))
    assert ended.returncode == 0
    assert lock.still_held()
    where = spool.folder(str(db_path))
    assert any("llm.pending:" in f.read_text() for f in Path(where).iterdir())
    lock.release()

    def handled():  # still queued for the session-memory job, or already summarised by it
        with Store.open(db_path) as s:
            spool.drain(s, wait=True)
            queued = s.value("SELECT count(*) FROM kv WHERE key = ?", ("llm.pending:" + str(transcript.resolve()),))
        return queued or rows(db_path, "summarize", entry_id=None)

    deadline = time.monotonic() + 60
    while not handled() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert handled()


# The dashboard's bulk change of 10,000 entries, in a process of its own: it holds the write
# lock from "locked" until it has archived every entry and committed.
_DASHBOARD_BULK = """
import sys
from memory_cli import entries
from memory_cli.store.db import Store
s = Store.open(sys.argv[1])
ids = [r["id"] for r in s.rows("SELECT id FROM memory_entries WHERE type = 'fact'")]
with s.transaction():
    print("locked", flush=True)
    n = entries.bulk(s, "archive", ids)
print(n, flush=True)
"""


@pytest.mark.slow
def test_no_correction_is_lost_while_a_10000_entry_bulk_change_runs(db_path, claude_dir):
    from memory_cli import entries

    (claude_dir / "memory").mkdir(exist_ok=True)
    with Store.open(db_path) as s, s.transaction():
        for i in range(10_000):
            entries.add(s, f"Bulk fact {i}: the service {i % 97} listens on port {8000 + i}", "fact")
    bulk = subprocess.Popen([sys.executable, "-c", _DASHBOARD_BULK, str(db_path)], stdout=subprocess.PIPE, text=True)
    assert bulk.stdout.readline().strip() == "locked"
    said = [
        "no, don't use npm here, use pnpm",
        "no, never run pythonw.exe, use python.exe",
        "no, use ruff instead of flake8",
    ]
    answered = []
    for i, text in enumerate(said):
        r = run_hook("UserPromptSubmit", prompt(text, session_id=f"bulk{i}"), db=db_path)
        answered.append(r.returncode == 0 and "Recorded correction" in r.context)
    during = bulk.poll() is None  # the bulk change was still running when every prompt was answered
    assert int(bulk.stdout.readline()) == 10_000
    bulk.wait(timeout=60)
    run_hook("PreToolUse", bash("ls"), db=db_path)
    assert answered == [True] * len(said) and during
    assert len(corrections(db_path)) == len(said)
    assert len(rows(db_path, "capture")) == len(said)


def test_a_spool_folder_planted_by_someone_else_is_neither_read_nor_written(hook, db_path, held_lock, tmp_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    planted = tmp_path / "planted"
    planted.mkdir()
    forged = spool.make("audit", {"action": "enforce_block", "kw": {"result": "forged"}})
    (planted / "00000000000000000001-1-aaaa.jsonl").write_text(json.dumps(forged) + "\n")
    Path(spool.folder(str(db_path))).symlink_to(planted)
    hook("PreToolUse", bash("ls"))
    assert rows(db_path, "enforce_block") == []  # nothing it held was applied
    lock = held_lock()
    r = hook("PreToolUse", bash("npm install left-pad"))
    assert r.returncode == 0 and r.decision == "deny"  # the gate is not weakened by it
    assert lock.still_held()
    assert len(list(planted.iterdir())) == 1  # and nothing of ours went into it
