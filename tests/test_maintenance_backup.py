"""Backups are consistent while hooks write, rotate daily, and restores check before replacing."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

from memory_cli import entries
from memory_cli.errors import InvalidInput, StoreRefused
from memory_cli.maintenance import backup
from memory_cli.store import migrations
from memory_cli.store.db import Store
from memory_cli.store.migrations import APPLICATION_ID

T0 = datetime(2025, 6, 1, 3, 15, tzinfo=timezone.utc)
REPO = Path(__file__).resolve().parents[1]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _contents(path: Path) -> list[str]:
    conn = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return sorted(r[0] for r in conn.execute("SELECT content FROM memory_entries"))
    finally:
        conn.close()


@pytest.fixture
def live(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    with Store.open(path) as s:
        entries.add(s, "Never use pythonw.exe; use python.exe", "rule")
        entries.add(s, "Jellyfin takes 60s to start after a restart", "fact")
    return path


@pytest.fixture
def backups(tmp_path: Path) -> Path:
    return tmp_path / "backups"


def test_backup_is_a_self_contained_copy_with_private_mode(live: Path, backups: Path):
    made = backup.make_backup(live, backups, now=T0)
    assert made.name == "memory-20250601T031500Z.db"
    assert _contents(made) == _contents(live)
    assert oct(made.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in backups.iterdir()) == [made.name]  # no -wal/-shm/temp files
    check = backup.check_restorable(made, max_schema_version=migrations.LATEST, application_id=APPLICATION_ID)
    assert check.entries == 2


def test_daily_backup_runs_once_a_day_and_keeps_seven(live: Path, backups: Path):
    assert backup.backup_if_due(live, backups, now=T0) is not None
    assert backup.backup_if_due(live, backups, now=T0 + timedelta(hours=20)) is None  # same UTC day
    for day in range(1, 10):
        assert backup.backup_if_due(live, backups, now=T0 + timedelta(days=day)) is not None
    kept = backup.list_backups(backups)
    assert len(kept) == 7
    assert [b.taken_at.date() for b in kept] == [(T0 + timedelta(days=d)).date() for d in range(3, 10)]


def test_backup_without_a_database_does_nothing(tmp_path: Path, backups: Path):
    assert backup.backup_if_due(tmp_path / "none.db", backups, now=T0) is None
    assert not backups.exists()


def test_two_backups_in_one_second_get_distinct_names(live: Path, backups: Path):
    a = backup.make_backup(live, backups, now=T0)
    b = backup.make_backup(live, backups, now=T0)
    assert a != b and a.exists() and b.exists()
    assert [x.path for x in backup.list_backups(backups)] == [a, b]


def test_backup_to_refuses_to_overwrite(live: Path, tmp_path: Path):
    target = tmp_path / "elsewhere" / "copy.db"
    backup.backup_to(live, target)
    with pytest.raises(InvalidInput):
        backup.backup_to(live, target)
    with pytest.raises(InvalidInput):
        backup.backup_to(live, live)


WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[3])
    from pathlib import Path
    from memory_cli import entries
    from memory_cli.store.db import Store
    db, stop = Path(sys.argv[1]), Path(sys.argv[2])
    store = Store.open(db)
    n = 0
    while not stop.exists() and n < 100000:
        with store.transaction():
            entries.add(store, f"writer entry {n} " + "x" * 200, "fact")
        n += 1
    store.close()
    print(n)
    """
)


def test_backups_taken_while_another_process_writes_are_consistent(live: Path, backups: Path, tmp_path: Path):
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(live), str(stop), str(REPO)], stdout=subprocess.PIPE, text=True
    )
    try:
        probe = Store.open(live)
        deadline = time.monotonic() + 60
        while probe.value("SELECT count(*) FROM memory_entries") < 50 and time.monotonic() < deadline:
            time.sleep(0.02)
        probe.close()
        made = [backup.make_backup(live, backups, now=T0 + timedelta(seconds=i), keep=100) for i in range(5)]
    finally:
        stop.touch()
        written = int(writer.communicate(timeout=60)[0])
    assert writer.returncode == 0 and written >= 50
    counts = []
    for path in made:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        n_entries = conn.execute("SELECT count(*) FROM memory_entries").fetchall()[0][0]
        # Each add writes its entry, its audit row and its keyword-index row in one
        # transaction: a torn copy would show them out of step.
        n_audit = conn.execute("SELECT count(*) FROM memory_audit_log WHERE action='add'").fetchall()[0][0]
        n_fts = conn.execute("SELECT count(*) FROM memory_rank_fts").fetchall()[0][0]
        conn.close()
        assert n_entries == n_audit == n_fts
        counts.append(n_entries)
    assert counts == sorted(counts)
    assert counts[0] >= 50 and counts[-1] <= 2 + written


HOLDER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[2])
    from memory_cli import entries
    from memory_cli.store.db import Store
    store = Store.open(sys.argv[1])
    print(len(entries.list_entries(store)), flush=True)
    sys.stdin.readline()  # the test restores meanwhile
    print(sorted(e["content"] for e in entries.list_entries(store)), flush=True)
    entries.add(store, "written after the restore", "fact")
    print("wrote", flush=True)
    store.close()
    """
)


def test_restore_replaces_the_live_database_under_an_open_connection(live: Path, backups: Path):
    good = backup.make_backup(live, backups, now=T0)
    with Store.open(live) as s:
        entries.add(s, "added after the backup", "fact")
        entries.delete(s, entries.list_entries(s, type="rule")[0]["id"])
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(live), str(REPO)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "2"
        result = backup.restore(
            good,
            live,
            backups,
            max_schema_version=migrations.LATEST,
            application_id=APPLICATION_ID,
            now=T0 + timedelta(days=1),
        )
        out, _ = holder.communicate("go\n", timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
    assert "'Never use pythonw.exe; use python.exe'" in out and "added after the backup" not in out
    assert "wrote" in out
    assert _contents(live) == sorted(
        [
            "Never use pythonw.exe; use python.exe",
            "Jellyfin takes 60s to start after a restart",
            "written after the restore",
        ]
    )
    # The database as it was before the restore is kept, so the restore can be undone.
    assert result.safety_backup.name == "memory-20250602T031500Z-pre-restore.db"
    assert "added after the backup" in _contents(result.safety_backup)
    with Store.open(live) as s:
        assert s.value("PRAGMA journal_mode") == "wal"
        assert s.value("PRAGMA integrity_check") == "ok"


def _assert_refused(candidate: Path, live: Path, backups: Path, message: str):
    before = _digest(live)
    with pytest.raises(StoreRefused, match=message):
        backup.restore(candidate, live, backups, max_schema_version=migrations.LATEST, application_id=APPLICATION_ID)
    assert _digest(live) == before
    assert backup.list_backups(backups, backup.PRE_RESTORE) == []


def test_restore_refuses_a_file_that_is_not_sqlite(live: Path, backups: Path, tmp_path: Path):
    bogus = tmp_path / "notes.db"
    bogus.write_text("# just some markdown\n")
    _assert_refused(bogus, live, backups, "not an SQLite database")


def test_restore_refuses_another_programs_database(live: Path, backups: Path, tmp_path: Path):
    other = tmp_path / "other.db"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE bookmarks(url TEXT)")
    conn.close()
    _assert_refused(other, live, backups, "not a memory-cli database")


def test_restore_refuses_a_newer_schema(live: Path, backups: Path, tmp_path: Path):
    newer = backup.backup_to(live, tmp_path / "newer.db")
    conn = apsw.Connection(str(newer))
    conn.execute(
        "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, 'future', 'x')", (migrations.LATEST + 1,)
    )
    conn.execute(f"PRAGMA user_version={migrations.LATEST + 1}")
    conn.close()
    _assert_refused(newer, live, backups, "newer than this memory-cli")


def test_restore_refuses_a_damaged_file(live: Path, backups: Path, tmp_path: Path):
    with Store.open(live) as s:
        for i in range(300):
            entries.add(s, f"filler entry number {i} " + "y" * 300, "fact")
    damaged = backup.backup_to(live, tmp_path / "damaged.db")
    data = bytearray(damaged.read_bytes())
    page = 4096
    for offset in range(page * 3, min(len(data), page * 12), 97):  # scribble over a few pages
        data[offset : offset + 8] = b"\xde\xad\xbe\xef\x00\xff\x13\x37"
    damaged.write_bytes(bytes(data))
    _assert_refused(damaged, live, backups, "damaged|integrity")


def test_restore_of_the_live_file_itself_is_refused(live: Path, backups: Path):
    with pytest.raises(InvalidInput):
        backup.restore(live, live, backups)


def test_restore_into_a_missing_database_creates_it(live: Path, backups: Path, tmp_path: Path):
    good = backup.make_backup(live, backups, now=T0)
    fresh = tmp_path / "new-home" / "memory.db"
    result = backup.restore(good, fresh, backups, max_schema_version=migrations.LATEST)
    assert result.safety_backup is None
    assert _contents(fresh) == _contents(live)
    with Store.open(fresh) as s:  # opens and migrates like any memory-cli database
        assert s.value("PRAGMA integrity_check") == "ok"
    assert not any(p.name.endswith(".tmp") for p in backups.iterdir())
    assert os.path.exists(fresh)


def test_two_databases_keep_separate_daily_backups(tmp_path, claude_dir):
    """A second store must not be skipped as "today's backup already exists", nor pruned with the first."""
    from memory_cli import entries
    from memory_cli import settings as settings_mod
    from memory_cli.maintenance.tasks import backup_task, backups_dir
    from memory_cli.store.db import Store

    cfg = settings_mod.load()
    dbs = [claude_dir / "memory" / "memory.db", tmp_path / "work.db"]
    for i, db in enumerate(dbs):
        with Store.open(db) as s:
            entries.add(s, f"store {i}", "fact")
    for db in dbs:
        assert backup_task(db, cfg).startswith("wrote")
    folders = [backups_dir(cfg, db) for db in dbs]
    assert folders[0] != folders[1]
    for db, folder in zip(dbs, folders):
        made = list(folder.glob("*.db"))
        assert len(made) == 1
        with Store.open(made[0]) as s:
            assert [e["content"] for e in entries.list_entries(s)] == [f"store {dbs.index(db)}"]
