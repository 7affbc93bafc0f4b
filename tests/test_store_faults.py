"""A store that is damaged, full, read-only, size-limited or not a file: one line, exit 4.

The README's exit codes promise 4 for "database refused: corrupt, unwritable ..."; these tests
drive the real CLI and hook processes into each fault and check the code, the single line, that
nothing stored is lost, and that hooks fail open loudly (a notice and a record doctor shows).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess

import pytest
from helpers.cli import _cmd, run_cli
from helpers.hooks import payload, run_hook


def _one_line(r, code):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


def _filled_store(db, n=60):
    from memory_cli import entries
    from memory_cli.store.db import Store

    with Store.open(db) as s:
        for i in range(n):
            entries.add(s, content=f"memory number {i} " + "lorem ipsum dolor " * 40, type="fact")
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _corrupt_pages(db):
    """Overwrite pages in the middle with garbage; the header (page 1) stays valid."""
    size = db.stat().st_size
    page = 4096
    with open(db, "r+b") as f:
        for at in range(page * 3, size - page, page * 2):
            f.seek(at)
            f.write(os.urandom(page))


@pytest.fixture
def corrupt_db(tmp_path):
    db = tmp_path / "memory.db"
    _filled_store(db)
    _corrupt_pages(db)
    return db


@pytest.mark.parametrize(
    "args",
    [
        ["add", "--type", "fact", "--content", "one more"],
        ["query", "lorem"],
        ["stats"],
        ["export"],
        ["list"],
    ],
)
def test_corrupt_store_is_refused_with_exit_4_and_the_way_out(corrupt_db, args):
    r = run_cli(*args, db=corrupt_db)
    line = _one_line(r, 4)
    assert "corrupt" in line and "memory-cli restore" in line and str(corrupt_db) in line


def test_a_store_found_corrupt_refuses_later_writes_until_restored(tmp_path, corrupt_db):
    r = run_cli("stats", db=corrupt_db)
    assert r.returncode == 4
    before = corrupt_db.read_bytes()
    # even a write that would not touch a damaged page is refused now
    r = run_cli("add", "--type", "fact", "--content", "should not be written", db=corrupt_db)
    line = _one_line(r, 4)
    assert "restore" in line
    assert corrupt_db.read_bytes() == before

    # doctor reports it as a failed check, never a traceback
    d = run_cli("doctor", db=corrupt_db)
    assert d.returncode == 1, d.stdout + d.stderr
    assert "Traceback" not in d.stdout + d.stderr
    assert "corrupt" in (d.stdout + d.stderr).lower()

    # restoring a healthy backup lifts the refusal
    good = tmp_path / "good.db"
    _filled_store(good, n=3)
    r = run_cli("restore", str(good), "--yes", db=corrupt_db)
    assert r.returncode == 0, r.stderr + r.stdout
    r = run_cli("add", "--type", "fact", "--content", "after restore", db=corrupt_db)
    assert r.returncode == 0, r.stderr


def test_doctor_on_a_corrupt_store_fails_the_check_instead_of_crashing(corrupt_db):
    d = run_cli("doctor", db=corrupt_db)
    assert d.returncode == 1
    out = d.stdout + d.stderr
    assert "Traceback" not in out and "internal error" not in out
    assert "database" in out and ("corrupt" in out.lower() or "malformed" in out.lower())


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "PreToolUse"])
def test_hooks_on_a_corrupt_store_say_so_and_the_gate_denies(corrupt_db, claude_dir, event):
    res = run_hook(event, payload(event, prompt="lorem ipsum dolor"), db=corrupt_db)
    assert res.returncode == 0 and "Traceback" not in res.stderr
    # The gate cannot read the rules: it refuses the call; the other events let the work go on.
    assert res.decision == ("deny" if event == "PreToolUse" else None)
    assert "memory-cli" in res.system_message and "doctor" in res.system_message
    log = claude_dir / "memory" / "hook-errors.log"
    assert log.exists() and "corrupt" in log.read_text()


def test_fifo_as_the_store_path_is_refused_at_once(tmp_path):
    fifo = tmp_path / "memory.db"
    os.mkfifo(fifo)
    r = run_cli("add", "--type", "fact", "--content", "x", db=fifo, timeout=30)
    assert "regular file" in _one_line(r, 4)


def test_size_limit_exits_4_and_keeps_the_store(tmp_path):
    """ulimit -f: SQLite gets EFBIG; the write is refused with exit 4, earlier rows intact."""
    db = tmp_path / "memory.db"
    _filled_store(db, n=5)
    limit = db.stat().st_size + 8192

    def _limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    big = "word " * 20_000
    proc = subprocess.run(
        _cmd() + ["--db", str(db), "add", "--type", "fact", "--content", big],
        capture_output=True,
        text=True,
        preexec_fn=_limit,
        timeout=120,
    )
    line = _one_line(proc, 4)
    assert "full" in line or "size" in line
    r = run_cli("--json", "stats", db=db)
    assert r.returncode == 0 and json.loads(r.stdout)
    from memory_cli.store.db import Store

    with Store.open(db) as s:
        assert s.value("PRAGMA integrity_check") == "ok"
        assert s.value("SELECT count(*) FROM memory_entries") == 5


def _mount(tmp_path, name, size="1m"):
    mnt = tmp_path / name
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {r.stderr.strip()}")
    return mnt


def _umount(mnt):
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_full_disk_exits_4_and_keeps_the_store(tmp_path):
    mnt = _mount(tmp_path, "small", "1m")
    try:
        db = mnt / "memory.db"
        ok = run_cli("add", "--type", "fact", "--content", "kept safe", db=db)
        assert ok.returncode == 0, ok.stderr
        codes = set()
        for i in range(20):
            r = run_cli("add", "--type", "fact", "--content", f"{i} " + "fill " * 20_000, db=db)
            codes.add(r.returncode)
            if r.returncode:
                line = _one_line(r, 4)
                assert "full" in line or "disk" in line
        assert 4 in codes
        r = run_cli("--json", "query", "kept safe", db=db)
        assert r.returncode == 0 and "kept safe" in r.stdout
    finally:
        _umount(mnt)


def test_read_only_store_exits_4(tmp_path):
    mnt = _mount(tmp_path, "ro", "4m")
    try:
        db = mnt / "memory.db"
        assert run_cli("add", "--type", "fact", "--content", "before", db=db).returncode == 0
        r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        if r.returncode:
            pytest.skip("cannot remount read-only")
        r = run_cli("add", "--type", "fact", "--content", "after", db=db)
        line = _one_line(r, 4)
        assert "read-only" in line or "readonly" in line.replace(" ", "") or "cannot" in line
    finally:
        _umount(mnt)


def test_import_constraint_failure_exits_2_naming_the_line(tmp_path, db_path):
    from memory_cli.store.migrations import LATEST

    lines = [
        json.dumps(
            {"format": "memory-cli-export", "version": 1, "schema_version": LATEST, "tables": ["memory_entries"]}
        ),
        json.dumps(
            {
                "table": "memory_entries",
                "row": {
                    "id": "a1",
                    "content": "fine",
                    "type": "fact",
                    "scope": "global",
                    "source": "manual",
                    "created_at": "2026-01-01T00:00:00Z",
                    "updated_at": "2026-01-01T00:00:00Z",
                },
            }
        ),
        json.dumps({"table": "memory_entries", "row": {"id": "a2", "content": None, "type": "fact"}}),
    ]
    f = tmp_path / "bad.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = run_cli("import", str(f), db=db_path)
    line = _one_line(r, 2)
    assert "line 3" in line and "nothing was imported" in line
    r = run_cli("--json", "list", db=db_path)
    assert "fine" not in r.stdout


def test_backup_of_a_non_database_exits_4(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite at all, just text\n" * 10)
    r = run_cli("backup", db=junk)
    line = _one_line(r, 4)
    assert "not" in line and str(junk) in line


def test_doctor_shows_hook_calls_the_watchdog_ended(claude_dir, db_path):
    """faulthandler's dump has no timestamp; doctor still counts and names it."""
    import sys

    log = claude_dir / "memory" / "hook-errors.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    code = (
        "import faulthandler, time, sys\n"
        f"f = open({str(log)!r}, 'a')\n"
        "faulthandler.dump_traceback_later(0.2, exit=True, file=f)\n"
        "time.sleep(5)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == 1 and "Timeout (" in log.read_text()
    r = run_cli("--json", "doctor", db=db_path, timeout=300)
    checks = json.loads(r.stdout)
    checks = checks if isinstance(checks, list) else checks.get("checks", [])
    errors = [c for c in checks if c["name"] == "hook errors"][0]
    assert errors["status"] == "warn" and "watchdog" in errors["detail"]
