"""SessionEnd hands maintenance to one detached process: no pile-ups, no lingering, once a day."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers.hooks import payload, run_hook
from helpers.waiting import bound, wait_for_maintenance

from memory_cli import audit, entries
from memory_cli.maintenance import backup, detached
from memory_cli.store import spool
from memory_cli.store.db import Store
from memory_cli.store.locks import open_lock_file, try_lock_fd

REPO = Path(__file__).resolve().parents[1]


def _processes_with_env(marker: str) -> list[int]:
    """Live processes (other than this one) whose environment mentions ``marker``."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _tail(path: Path) -> str:
    return path.read_text()[-1500:] if path.exists() else "(none)"


def _wait_for_no_processes(marker: str, timeout: float = 30) -> list[int]:
    deadline = time.monotonic() + bound(timeout)
    while True:
        alive = _processes_with_env(marker)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


@pytest.fixture
def db(db_path: Path) -> Path:
    with Store.open(db_path) as s:
        entries.add(s, "Never use pythonw.exe; use python.exe", "rule")
    return db_path


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to look for processes")
def test_ten_concurrent_session_ends_start_one_run_and_leave_nothing_running(db: Path, claude_dir: Path):
    procs = []
    cmd = [str(Path(sys.executable).parent / "memory-cli"), "--db", str(db), "hook", "SessionEnd"]
    body = (__import__("json").dumps(payload("SessionEnd", reason="prompt_input_exit"))).encode()
    for _ in range(10):
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(p)
    for p in procs:
        out, err = p.communicate(body, timeout=bound(60))
        # SessionEnd output is discarded anyway; a hook never exits 1, even past its deadline
        assert (p.returncode, out, err) == (0, b"", b""), (
            p.returncode,
            out,
            err,
            _tail(claude_dir / "memory" / "hook-errors.log"),
        )

    run_dir = claude_dir / "memory" / "run"
    wait_for_maintenance(db, run_dir)
    assert _wait_for_no_processes(str(claude_dir)) == []

    log = detached.log_path(run_dir, detached.db_key(db)).read_text()
    assert log.count("maintenance run start") == 1, log
    assert "maintenance run done" in log
    with Store.open(db) as s:
        # A hook that found the write lock taken by another left its rows in the spool, which
        # the next process that writes empties: this one.
        spool.drain(s, wait=True)
        started = audit.query(s, action="maintenance")
        assert sorted(r["result"] for r in started) == ["done", "started"]
        hooks = s.rows(
            "SELECT result, session_id, details FROM memory_audit_log WHERE action='hook' AND hook_event='SessionEnd'"
        )
        # each hook is in the audit log, a hook its deadline cut short as such (result "deadline")
        assert len(hooks) == 10, ([dict(r) for r in hooks], _tail(claude_dir / "memory" / "hook-errors.log"))
    from memory_cli import settings as settings_mod
    from memory_cli.maintenance.tasks import backups_dir

    assert len(backup.list_backups(backups_dir(settings_mod.load(), db))) == 1

    # Later the same day: nothing is started at all.
    again = run_hook("SessionEnd", payload("SessionEnd"), db=db)
    assert again.returncode == 0
    assert detached.spawn_maintenance(db) == detached.RAN_TODAY
    with Store.open(db) as s:
        assert len(audit.query(s, action="maintenance")) == 2


def test_spawn_while_a_run_holds_the_lock_starts_nothing(db: Path, claude_dir: Path):
    run_dir = claude_dir / "memory" / "run"
    run_dir.mkdir(parents=True)
    fd = open_lock_file(detached.lock_path(run_dir, detached.db_key(db)))
    try:
        assert try_lock_fd(fd)
        assert detached.spawn_maintenance(db) == detached.BUSY
    finally:
        os.close(fd)
    assert not detached.log_path(run_dir, detached.db_key(db)).exists()


def test_stamp_means_once_per_utc_day(db: Path, tmp_path: Path):
    key = detached.db_key(db)
    now = datetime(2025, 6, 1, 23, 59, tzinfo=timezone.utc)
    assert not detached.ran_today(tmp_path, key, now)
    detached.write_stamp(tmp_path, key, now)
    assert detached.ran_today(tmp_path, key, now)
    assert not detached.ran_today(tmp_path, key, now + timedelta(minutes=2))
    assert not detached.ran_today(tmp_path, detached.db_key(tmp_path / "other.db"), now)


def test_a_failing_task_does_not_stop_the_others(db: Path, tmp_path: Path, capsys):
    done = []

    def broken():
        raise RuntimeError("disk on fire")

    status = detached.run_maintenance(
        [("first", broken), ("second", lambda: done.append(1) or "fine")], db, run_dir=tmp_path
    )
    assert status == 1 and done == [1]
    out = capsys.readouterr().out
    assert "task first failed: RuntimeError: disk on fire" in out and "task second ok" in out
    # A failed run leaves no "ran today" stamp, so the next session end tries again ...
    assert not detached.ran_today(tmp_path, detached.db_key(db))
    # ... and the lock was released: a second run is possible, succeeds and stamps the day.
    assert detached.run_maintenance([("x", lambda: done.append(2))], db, run_dir=tmp_path) == 0
    assert done == [1, 2] and detached.ran_today(tmp_path, detached.db_key(db))
    assert detached.run_maintenance([("x", lambda: done.append(3))], db, run_dir=tmp_path) == 0
    assert done == [1, 2]  # the stamp now says it ran today


SLOW_CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[3])
    from memory_cli.maintenance import detached
    status = detached.run_maintenance([("slow", lambda: time.sleep(600))], sys.argv[1],
                                      run_dir=sys.argv[2], time_limit=1)
    sys.exit(status)
    """
)


def test_the_run_stops_itself_at_its_time_limit(db: Path, tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-c", SLOW_CHILD, str(db), str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 124
    assert "maintenance run stopped: time limit of 1s reached" in proc.stdout
    assert not detached.ran_today(tmp_path, detached.db_key(db))  # it will try again next time


def test_session_start_also_starts_the_daily_run(db: Path, claude_dir: Path):
    r = run_hook("SessionStart", payload("SessionStart"), db=db)
    assert r.returncode == 0
    wait_for_maintenance(db, claude_dir / "memory" / "run")
    with Store.open(db) as s:
        rows = audit.query(s, action="maintenance")
    assert {r["result"] for r in rows} == {"started", "done"}
    assert [r["context"] for r in rows if r["result"] == "started"] == ["SessionStart"]


def test_disabled_maintenance_starts_nothing(db: Path, claude_dir: Path):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"maintenance": {"enabled": false}}')
    r = run_hook("SessionEnd", payload("SessionEnd"), db=db)
    assert r.returncode == 0
    assert not list((claude_dir / "memory" / "run").glob("maintenance*.log"))
    with Store.open(db) as s:
        assert audit.query(s, action="maintenance") == []


def test_maintenance_status_shows_only_its_own_stores_log(tmp_path: Path, claude_dir: Path):
    """Two stores share one Claude directory: each one's status shows its own runs' lines."""
    import json as _json

    from helpers.cli import run_cli

    mine, other = tmp_path / "mine.db", tmp_path / "other.db"
    for db in (mine, other):
        with Store.open(db) as s:
            entries.add(s, "Never use pythonw.exe; use python.exe", "rule")
    run_dir = claude_dir / "memory" / "run"
    assert detached.spawn_maintenance(other) == detached.SPAWNED
    wait_for_maintenance(other, run_dir)
    theirs = _json.loads(run_cli("maintenance", "status", "--json", db=other).stdout)
    assert any("maintenance run done" in line for line in theirs["log_tail"])
    status = _json.loads(run_cli("maintenance", "status", "--json", db=mine).stdout)
    assert status["last_run"] is None and status["log_tail"] == []
    assert "never" in run_cli("maintenance", "status", db=mine).stdout
    assert "maintenance run" not in run_cli("maintenance", "status", db=mine).stdout
