"""The store: WAL, migrations, refusal of files memory-cli must not touch, concurrent writers."""

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from memory_cli import entries
from memory_cli.errors import StoreRefused
from memory_cli.store import migrations
from memory_cli.store.db import Store
from memory_cli.store.migrations import APPLICATION_ID


def test_new_database_is_wal_with_current_schema(db_path):
    s = Store.open(db_path)
    assert s.value("PRAGMA journal_mode") == "wal"
    assert s.value("PRAGMA user_version") == migrations.LATEST
    assert s.value("PRAGMA application_id") == APPLICATION_ID
    assert [m["version"] for m in migrations.applied(s)] == [m[0] for m in migrations.MIGRATIONS]
    for table in ("memory_entries", "enforcement_rules", "corrections", "memory_audit_log", "memory_rank_fts"):
        assert s.table_exists(table)
    assert not s.table_exists("memory_fts")  # one FTS index (migration 8)
    s.close()


def test_migrations_are_numbered_consecutively():
    assert [m[0] for m in migrations.MIGRATIONS] == list(range(1, len(migrations.MIGRATIONS) + 1))


def test_reopening_is_idempotent_and_keeps_data(db_path):
    s = Store.open(db_path)
    entries.add(s, "keep me", "fact")
    s.close()
    for _ in range(3):
        s = Store.open(db_path)
        assert [e["content"] for e in entries.list_entries(s)] == ["keep me"]
        assert len(migrations.applied(s)) == len(migrations.MIGRATIONS)
        s.close()


def test_newer_schema_is_refused_and_not_modified(db_path):
    s = Store.open(db_path)
    s.execute(f"PRAGMA user_version={migrations.LATEST + 5}")
    s.close()
    before = db_path.read_bytes()
    with pytest.raises(StoreRefused, match="newer memory-cli"):
        Store.open(db_path)
    assert db_path.read_bytes() == before


def test_foreign_sqlite_database_is_refused_untouched(tmp_path):
    foreign = tmp_path / "other.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    con.execute("INSERT INTO invoices VALUES (1, 9.5)")
    con.commit()
    con.close()
    before = foreign.read_bytes()
    with pytest.raises(StoreRefused, match="did not create.*invoices"):
        Store.open(foreign)
    assert foreign.read_bytes() == before


def test_non_sqlite_file_is_refused_untouched(tmp_path):
    junk = tmp_path / "notes.db"
    junk.write_text("these are my notes, not a database\n" * 10)
    before = junk.read_bytes()
    with pytest.raises(StoreRefused, match="not a SQLite database"):
        Store.open(junk)
    assert junk.read_bytes() == before


def test_read_only_directory_is_a_clear_error(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(StoreRefused, match="not writable"):
            Store.open(ro / "memory.db")
    finally:
        ro.chmod(0o700)


def test_failed_transaction_leaves_nothing(store):
    with pytest.raises(RuntimeError), store.transaction():
        entries.add(store, "half-written", "fact")
        raise RuntimeError("boom")
    assert entries.list_entries(store) == []
    assert store.value("SELECT count(*) FROM memory_rank_fts") == 0


def test_fts_index_follows_content_in_the_same_transaction(store):
    e = entries.add(store, "pywebview drag freezes", "fact")
    assert (
        store.value(
            "SELECT e.id FROM memory_rank_fts JOIN memory_entries e ON e.rowid = memory_rank_fts.rowid "
            "WHERE memory_rank_fts MATCH 'pywebview'"
        )
        == e["id"]
    )
    entries.update(store, e["id"], content="tkinter resize flickers")
    assert store.value("SELECT count(*) FROM memory_rank_fts WHERE memory_rank_fts MATCH 'content:pywebview'") == 0
    assert (
        store.value(
            "SELECT e.id FROM memory_rank_fts JOIN memory_entries e ON e.rowid = memory_rank_fts.rowid "
            "WHERE memory_rank_fts MATCH 'tkinter'"
        )
        == e["id"]
    )
    entries.delete(store, e["id"])
    assert store.value("SELECT count(*) FROM memory_rank_fts") == 0


WRITER = textwrap.dedent("""
    import sys
    from memory_cli.store.db import Store
    from memory_cli import entries, audit
    s = Store.open(sys.argv[1], busy_timeout_ms=30000)
    for i in range(int(sys.argv[3])):
        with s.transaction():
            entries.add(s, f"writer {sys.argv[2]} item {i}", "fact", session_id=sys.argv[2])
            audit.record(s, "hook", hook_event="PreToolUse", session_id=sys.argv[2])
    s.close()
""")


def test_concurrent_writers_from_separate_processes_lose_nothing(db_path):
    Store.open(db_path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db_path), f"s{n}", "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for n in range(8)
    ]
    errors = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        if p.returncode != 0:
            errors.append(err.decode())
    assert errors == []
    s = Store.open(db_path)
    assert s.value("SELECT count(*) FROM memory_entries") == 8 * 40
    assert s.value("SELECT count(DISTINCT content) FROM memory_entries") == 8 * 40
    assert s.value("SELECT count(*) FROM memory_rank_fts") == 8 * 40
    s.close()


def test_two_processes_opening_an_empty_file_migrate_once(tmp_path):
    db = tmp_path / "race.db"
    code = "import sys; from memory_cli.store.db import Store; Store.open(sys.argv[1]).close()"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db)], stderr=subprocess.PIPE) for _ in range(6)]
    assert all(p.wait(timeout=60) == 0 for p in procs), [p.stderr.read() for p in procs]
    s = Store.open(db)
    assert len(migrations.applied(s)) == len(migrations.MIGRATIONS)
    s.close()


HOLD_WRITE_LOCK = textwrap.dedent("""
    import sys, time, apsw
    c = apsw.Connection(sys.argv[1])
    c.execute("BEGIN IMMEDIATE")
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
    c.execute("COMMIT")
""")


def test_opening_a_new_store_waits_while_another_process_holds_its_write_lock(tmp_path):
    """A first-install race: one process holds the empty file's write lock while another opens it.

    Switching a new file to WAL needs the exclusive lock, and SQLite answers "database is locked"
    at once (no busy handler) when another connection holds the write lock; the opener waits.
    """
    db = tmp_path / "new.db"
    db.touch()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_WRITE_LOCK, str(db), "1.0"], stdout=subprocess.PIPE)
    assert holder.stdout.readline().strip() == b"holding"
    s = Store.open(db)
    assert s.value("PRAGMA journal_mode") == "wal"
    assert len(migrations.applied(s)) == len(migrations.MIGRATIONS)
    s.close()
    assert holder.wait(timeout=60) == 0


def test_vec0_loads_through_apsw(store):
    assert store.load_vec()
    assert store.value("SELECT vec_version()").startswith("v")
