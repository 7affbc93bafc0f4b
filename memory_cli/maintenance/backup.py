"""Consistent online backups of the memory database, and a restore that checks first.

Hooks write to the database at any moment, so a file copy can catch it half-written (and a
WAL database is two files). SQLite's online backup API copies a consistent snapshot while
writers carry on; the same API run in reverse restores into the live database in one write
transaction, so processes that have it open see either the old or the restored content, never
a file swapped underneath their WAL.

Backups live in ``<memory dir>/backups`` as ``memory-YYYYMMDDTHHMMSSZ.db`` (UTC), one per day
when run by maintenance, ``keep`` (default 7) kept. A restore first saves the current database
as ``memory-...-pre-restore.db`` (kept separately, also ``keep`` of them) so a wrong restore
can itself be undone. Times are UTC throughout so "daily" means the same to every process.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import apsw

from memory_cli.errors import InvalidInput, NotFound, StoreRefused

PRE_RESTORE = "pre-restore"
_NAME_RE = re.compile(r"^memory-(?P<ts>\d{8}T\d{6}Z)(?:-(?P<kind>pre-restore))?(?:-(?P<n>\d+))?\.db$")
REQUIRED_TABLES = ("memory_entries", "schema_migrations")
SQLITE_MAGIC = b"SQLite format 3\x00"
PAGES_PER_STEP = 256
BUSY_TIMEOUT_MS = 5000


@dataclass(frozen=True)
class BackupFile:
    path: Path
    taken_at: datetime
    kind: str  # "" for regular backups, "pre-restore"
    size: int


@dataclass(frozen=True)
class RestoreCheck:
    path: Path
    schema_version: int | None
    entries: int
    page_size: int


@dataclass(frozen=True)
class RestoreResult:
    restored_from: Path
    live_db: Path
    safety_backup: Path | None  # the database as it was before the restore
    check: RestoreCheck


def _utc(now: datetime | None) -> datetime:
    now = now or datetime.now(timezone.utc)
    return now.replace(tzinfo=timezone.utc) if now.tzinfo is None else now.astimezone(timezone.utc)


def _stamp(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%SZ")


# --------------------------------------------------------------------------- listing


def list_backups(backups_dir: Path, kind: str | None = None) -> list[BackupFile]:
    """Backups in ``backups_dir``, oldest first (``kind`` "" or "pre-restore" filters)."""
    found: list[tuple[tuple, BackupFile]] = []
    try:
        names = os.listdir(backups_dir)
    except FileNotFoundError:
        return []
    for name in names:
        m = _NAME_RE.match(name)
        if not m:
            continue
        k = m.group("kind") or ""
        if kind is not None and k != kind:
            continue
        path = Path(backups_dir) / name
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            continue
        taken = datetime.strptime(m.group("ts"), "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
        found.append(((taken, int(m.group("n") or 0)), BackupFile(path, taken, k, size)))
    found.sort(key=lambda item: item[0])
    return [b for _, b in found]


def prune_backups(backups_dir: Path, keep: int, kind: str = "") -> list[Path]:
    """Delete all but the newest ``keep`` backups of ``kind``; returns what was deleted."""
    backups = list_backups(backups_dir, kind)
    doomed = backups[: max(0, len(backups) - max(keep, 1))]
    for b in doomed:
        b.path.unlink(missing_ok=True)
    return [b.path for b in doomed]


def _unique_name(backups_dir: Path, now: datetime, kind: str) -> Path:
    base = f"memory-{_stamp(now)}" + (f"-{kind}" if kind else "")
    candidate = backups_dir / f"{base}.db"
    n = 1
    while candidate.exists():
        n += 1
        candidate = backups_dir / f"{base}-{n}.db"
    return candidate


# --------------------------------------------------------------------------- copying


def _open_source(path: Path, connect: Callable[[Path], apsw.Connection] | None) -> apsw.Connection:
    if connect is not None:
        return connect(path)
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return conn


def _copy(dest: apsw.Connection, src: apsw.Connection, pages: int, deadline: float) -> None:
    """Run the backup in steps so a rollback-journal source is never locked for long.

    Another process writing between steps makes SQLite restart the copy; after a few
    restarts the rest is copied in one step (in WAL mode that holds one read snapshot and
    does not block writers), so a busy database cannot starve the backup.
    """
    restarts = 0
    last_remaining: int | None = None
    with dest.backup("main", src, "main") as b:
        while not b.done:
            try:
                b.step(pages if restarts < 3 else -1)
            except (apsw.BusyError, apsw.LockedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
                continue
            if last_remaining is not None and b.remaining > last_remaining:
                restarts += 1
            last_remaining = b.remaining


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup_to(
    src_db: Path,
    dest: Path,
    *,
    connect: Callable[[Path], apsw.Connection] | None = None,
    pages_per_step: int = PAGES_PER_STEP,
    timeout: float = 60.0,
) -> Path:
    """Write a consistent copy of ``src_db`` to the new file ``dest`` (never overwritten).

    The copy is built in a temporary file beside ``dest``, checked with ``quick_check``, and
    renamed into place, so a backup file that exists is a complete one. Mode 0600: memory can
    hold private notes.
    """
    src_db, dest = Path(src_db), Path(dest)
    if not src_db.exists():
        raise NotFound(f"no database at {src_db}")
    if dest.exists():
        raise InvalidInput(f"{dest} already exists; not overwriting it")
    if dest.resolve() == src_db.resolve():
        raise InvalidInput("the backup target is the database itself")
    if not src_db.is_file():
        raise StoreRefused(f"{src_db} is not a regular file; nothing was backed up")
    with open(src_db, "rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head and head != SQLITE_MAGIC:
        raise StoreRefused(f"{src_db} is not an SQLite database; nothing was backed up")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
    try:
        return _backup_into(src_db, dest, tmp, connect, pages_per_step, timeout)
    except apsw.Error as err:
        from memory_cli.store.db import store_error

        refused = store_error(str(src_db), err)
        raise (refused or StoreRefused(f"cannot back up {src_db}: {err}")) from None


def _backup_into(src_db: Path, dest: Path, tmp: Path, connect, pages_per_step: int, timeout: float) -> Path:
    src = _open_source(src_db, connect)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        out = apsw.Connection(str(tmp))
        try:
            out.execute("PRAGMA journal_mode=MEMORY")  # no stray -journal file beside backups
            _copy(out, src, pages_per_step, time.monotonic() + timeout)
            # The copy carries the source's WAL flag in its header; a backup should be one
            # self-contained file that opens without creating -wal/-shm companions.
            out.execute("PRAGMA journal_mode=DELETE")
            verdict = out.execute("PRAGMA quick_check").fetchall()
            if verdict != [("ok",)]:
                raise StoreRefused(f"backup of {src_db} failed its check: {verdict[:3]}")
        finally:
            out.close()
        _fsync_file(tmp)
        os.replace(tmp, dest)
    finally:
        src.close()
        tmp.unlink(missing_ok=True)
    return dest


def make_backup(
    src_db: Path,
    backups_dir: Path,
    *,
    now: datetime | None = None,
    keep: int = 7,
    kind: str = "",
    connect: Callable[[Path], apsw.Connection] | None = None,
) -> Path:
    """A timestamped backup in ``backups_dir``, then prune that kind down to ``keep``."""
    backups_dir = Path(backups_dir)
    backups_dir.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(backups_dir, 0o700)
    except OSError:  # pragma: no cover
        pass
    dest = backup_to(src_db, _unique_name(backups_dir, _utc(now), kind), connect=connect)
    prune_backups(backups_dir, keep, kind)
    return dest


def backup_if_due(
    src_db: Path,
    backups_dir: Path,
    *,
    now: datetime | None = None,
    keep: int = 7,
    connect: Callable[[Path], apsw.Connection] | None = None,
) -> Path | None:
    """The daily backup: made unless one was already taken today (UTC) or there is no database."""
    now = _utc(now)
    if not Path(src_db).exists():
        return None
    regular = list_backups(backups_dir, "")
    if regular and regular[-1].taken_at.date() >= now.date():
        return None
    return make_backup(src_db, backups_dir, now=now, keep=keep, connect=connect)


# --------------------------------------------------------------------------- restoring


def check_restorable(
    path: Path, *, max_schema_version: int | None = None, application_id: int | None = None
) -> RestoreCheck:
    """Refuse anything that is not a healthy memory-cli database this version can read."""
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"no backup file at {path}")
    with open(path, "rb") as fh:
        if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise StoreRefused(f"{path} is not an SQLite database")
    try:
        conn = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    except apsw.Error as err:
        raise StoreRefused(f"cannot open {path}: {err}") from None
    try:
        try:
            verdict = conn.execute("PRAGMA integrity_check").fetchall()
        except apsw.Error as err:
            raise StoreRefused(f"{path} is damaged: {err}") from None
        if verdict != [("ok",)]:
            raise StoreRefused(f"{path} failed its integrity check: {verdict[0][0]}")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            raise StoreRefused(f"{path} is not a memory-cli database (no {', '.join(missing)} table)")
        if application_id is not None:
            found_id = conn.execute("PRAGMA application_id").fetchall()[0][0]
            if found_id != application_id:
                raise StoreRefused(f"{path} is not a memory-cli database (application id {found_id:#x})")
        recorded = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchall()[0][0]
        user_version = conn.execute("PRAGMA user_version").fetchall()[0][0]
        known = [int(v) for v in (recorded, user_version) if v]
        version = max(known) if known else None
        if max_schema_version is not None and version is not None and version > max_schema_version:
            raise StoreRefused(
                f"{path} has schema version {version}, newer than this memory-cli "
                f"({max_schema_version}); upgrade memory-cli before restoring it"
            )
        entries = conn.execute("SELECT COUNT(*) FROM memory_entries").fetchall()[0][0]
        page_size = conn.execute("PRAGMA page_size").fetchall()[0][0]
        return RestoreCheck(path, version, int(entries), int(page_size))
    finally:
        conn.close()


def _safety_copy(live_db: Path, backups_dir: Path, now: datetime, keep: int) -> Path | None:
    """Save the current database before it is replaced, even when it is too broken to open."""
    if not live_db.exists():
        return None
    try:
        return make_backup(live_db, backups_dir, now=now, keep=keep, kind=PRE_RESTORE)
    except (apsw.Error, StoreRefused):
        # A damaged database is exactly when people restore: keep its raw files instead.
        backups_dir.mkdir(parents=True, exist_ok=True)
        dest = _unique_name(backups_dir, now, PRE_RESTORE)
        shutil.copyfile(live_db, dest)
        for suffix in ("-wal",):
            side = Path(str(live_db) + suffix)
            if side.exists():
                shutil.copyfile(side, Path(str(dest) + suffix))
        os.chmod(dest, 0o600)
        return dest


def restore(
    path: Path,
    live_db: Path,
    backups_dir: Path,
    *,
    max_schema_version: int | None = None,
    application_id: int | None = None,
    now: datetime | None = None,
    keep: int = 7,
    timeout: float = 30.0,
) -> RestoreResult:
    """Check ``path``, save the live database, then copy ``path`` into it in one transaction."""
    path, live_db, backups_dir = Path(path), Path(live_db), Path(backups_dir)
    if live_db.exists() and path.resolve() == live_db.resolve():
        raise InvalidInput("that file is the live database itself")
    check = check_restorable(path, max_schema_version=max_schema_version, application_id=application_id)
    now = _utc(now)
    safety = _safety_copy(live_db, backups_dir, now, keep)
    live_db.parent.mkdir(parents=True, exist_ok=True)
    try:
        _restore_in_place(path, live_db, check, timeout, safety)
    except apsw.Error:
        # The live file is too damaged for SQLite to write into (the usual reason to restore):
        # its raw bytes are in the safety copy, so replace the file itself.
        _replace_file(path, live_db)
    from memory_cli.store.db import clear_corrupt_mark

    clear_corrupt_mark(str(live_db))  # a healthy copy is in place: writes are allowed again
    return RestoreResult(path, live_db, safety, check)


def _replace_file(path: Path, live_db: Path) -> None:
    tmp = live_db.parent / f".{live_db.name}.restore-{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.close(fd)
    try:
        src = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        out = apsw.Connection(str(tmp))
        try:
            _copy(out, src, -1, time.monotonic() + 60)
            out.execute("PRAGMA journal_mode=WAL")
        finally:
            out.close()
            src.close()
        for suffix in ("-wal", "-shm"):
            Path(str(live_db) + suffix).unlink(missing_ok=True)
        os.replace(tmp, live_db)
    finally:
        tmp.unlink(missing_ok=True)


def _restore_in_place(path: Path, live_db: Path, check, timeout: float, safety) -> None:
    src = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    dest = apsw.Connection(str(live_db))
    try:
        dest.set_busy_timeout(int(timeout * 1000))
        deadline = time.monotonic() + timeout
        was_wal = dest.execute("PRAGMA journal_mode").fetchall()[0][0] == "wal"
        dest_page = dest.execute("PRAGMA page_size").fetchall()[0][0]
        if was_wal and dest_page != check.page_size:
            # SQLite cannot change a WAL database's page size in a backup: leave WAL briefly.
            dest.execute("PRAGMA journal_mode=DELETE")
        _copy(dest, src, -1, deadline)  # one step: one write transaction on the live file
        if was_wal:
            dest.execute("PRAGMA journal_mode=WAL")
        verdict = dest.execute("PRAGMA quick_check").fetchall()
        if verdict != [("ok",)]:  # pragma: no cover - the source passed integrity_check
            raise StoreRefused(
                f"restored database failed its check: {verdict[:3]}; the previous one is saved at {safety}"
            )
    finally:
        dest.close()
        src.close()
