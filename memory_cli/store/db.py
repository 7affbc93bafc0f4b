"""The one SQLite store every part of memory-cli shares.

Why apsw rather than the standard ``sqlite3`` module: the interpreter's ``sqlite3`` cannot load
extensions on many Pythons (this machine's, macOS's system Python), and the vector index is the
sqlite-vec extension. apsw ships its own recent SQLite with FTS5 and extension loading on Linux,
macOS and Windows, and imports as fast as ``sqlite3``. Using one driver everywhere also avoids
two SQLite libraries touching one file in one process, which can corrupt it (POSIX locks).

Concurrency: WAL mode, a busy timeout, and ``BEGIN IMMEDIATE`` for every write transaction, so
several Claude Code sessions writing at once queue up instead of failing with
"database is locked" (a deferred transaction that later upgrades to a write lock can fail
without waiting; an immediate one waits on the busy handler).

A hook process never waits for the write lock: its store has ``write_wait = False``, so the
outermost transaction tries ``BEGIN IMMEDIATE`` once with no busy wait and raises
:class:`LockBusy` when another process holds the lock; the hook then keeps the write in the
spool (:mod:`memory_cli.store.spool`). Reads in WAL mode never wait for a writer.
"""

from __future__ import annotations

import os

import apsw

from ..errors import StoreRefused

BUSY_TIMEOUT_MS = 10_000
# Beside the store: the folder of writes hooks could not make while another process held the
# write lock (memory_cli.store.spool), and the audit-only file of earlier versions. Named here so a
# hook can see that there is nothing to write without importing the spool code.
SPOOL_SUFFIX = ".spool"
LEGACY_PENDING_SUFFIX = ".audit-pending"


class LockBusy(Exception):
    """Another process holds the write lock and this transaction was asked not to wait."""


class Store:
    """A connection to the memory database with small query helpers.

    Rows come back as dicts. Writes go through :meth:`transaction`, which nests (savepoints),
    so domain functions can be composed inside one atomic unit by their callers.
    """

    def __init__(self, conn: apsw.Connection, path: str):
        self.conn = conn
        self.path = path
        self._depth = 0
        self.warnings: list[str] = []
        self.vec_loaded = False
        # False in hook processes: a write transaction never waits for another writer.
        self.write_wait = True
        self.busy_timeout_ms = BUSY_TIMEOUT_MS

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        *,
        migrate: bool = True,
        readonly: bool = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> Store:
        """Open (creating if needed) and bring the schema up to date.

        Refuses, without modifying anything, files that are not SQLite, SQLite files that
        belong to another program, and databases written by a newer memory-cli.
        """
        p = os.fspath(path)
        created = False
        if p != ":memory:":
            if os.path.isdir(p):
                raise StoreRefused(f"database path {p} is a directory")
            if os.path.exists(p):
                _check_regular(p)
                _check_header(p)
                if not readonly:
                    _refuse_if_marked_corrupt(p)
                    _make_private(p)
                    from ..paths import ensure_private_dir

                    ensure_private_dir(os.path.dirname(os.path.abspath(p)))
            elif readonly:
                raise StoreRefused(f"no database at {p}")
            else:
                parent = os.path.dirname(os.path.abspath(p))
                try:
                    from ..paths import ensure_private_dir

                    ensure_private_dir(parent)
                except OSError as e:
                    raise StoreRefused(f"cannot create directory {parent}: {e.strerror}") from None
                if not os.access(parent, os.W_OK):
                    raise StoreRefused(f"cannot create database in {parent}: directory is not writable")
                _create_private(p)
                created = True
        flags = apsw.SQLITE_OPEN_READONLY if readonly else (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE)
        try:
            conn = apsw.Connection(p, flags=flags)
        except apsw.Error as e:
            raise StoreRefused(f"cannot open database {p}: {_msg(e)}") from None
        conn.setbusytimeout(busy_timeout_ms)
        store = cls(conn, p)
        store.busy_timeout_ms = busy_timeout_ms
        try:
            from .. import confirmation
            from . import migrations

            store._configure()
            current = migrations.refuse_if_unusable(store)  # before anything writes to the file
            if not current and not created and p != ":memory:":
                migrations.refuse_if_replaced(store)
            if not readonly:
                store._use_wal(busy_timeout_ms)
            # memory-cli's own rule changes confirm themselves; no other program's do
            watched = readonly or confirmation.watch(conn)
            migrations.check_and_migrate(store, apply=migrate and not readonly, current=current)
            if not watched:
                confirmation.watch(conn)
        except StoreRefused:
            conn.close()
            raise
        except apsw.Error as e:
            conn.close()
            refused = store_error(p, e)
            raise (refused or StoreRefused(f"cannot use database {p}: {_msg(e)}")) from None
        return store

    def _configure(self) -> None:
        c = self.conn
        c.execute("PRAGMA foreign_keys=ON")
        c.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across app crashes
        # Every hook process closes the last connection; checkpointing there cost ~1-6 ms per
        # tool call. The automatic checkpoint (every 1000 WAL pages, on commit) still runs.
        c.config(apsw.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)

    def _use_wal(self, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        """Switch a new file to WAL, waiting as long as the busy timeout for other openers.

        The switch needs the exclusive lock, and while another connection holds the write lock
        (a second process switching or migrating the same new file) SQLite answers
        "database is locked" at once instead of calling the busy handler: retry until the
        other process is done (it has usually switched the file to WAL by then).
        """
        deadline = None
        pause = 0.002
        while True:
            try:
                row = self.conn.execute("PRAGMA journal_mode").fetchone()
                mode = row[0] if row else ""
                if str(mode).lower() != "wal":
                    self.conn.execute("PRAGMA journal_mode=WAL")
                return
            except apsw.BusyError:
                import time

                now = time.monotonic()
                if deadline is None:
                    deadline = now + busy_timeout_ms / 1000
                if now >= deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.05)

    def close(self) -> None:
        try:
            self.conn.close()
        except apsw.Error:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- queries -------------------------------------------------------------------------
    def rows(self, sql: str, params=()) -> list[dict]:
        cur = self.conn.cursor()
        out = []
        cols = None
        try:
            for row in cur.execute(sql, params):
                if cols is None:
                    cols = [d[0] for d in cur.getdescription()]
                out.append(dict(zip(cols, row)))
        except apsw.Error as e:
            self._raise(e)
        return out

    def row(self, sql: str, params=()) -> dict | None:
        r = self.rows(sql, params)
        return r[0] if r else None

    def value(self, sql: str, params=()):
        try:
            for row in self.conn.execute(sql, params):
                return row[0]
        except apsw.Error as e:
            self._raise(e)
        return None

    def execute(self, sql: str, params=()) -> int:
        """Run one statement; returns the number of rows it changed.

        Every INSERT/UPDATE passes the redaction gate (:func:`memory_cli.privacy.redact.gate_params`):
        text is redacted, made valid UTF-8 and bounded before it reaches the file.
        """
        if not self.write_wait and self._depth == 0 and _changes_rows(sql):
            with self.transaction():  # a write outside a transaction waits for no one either
                return self.execute(sql, params)
        if params and _is_write(sql):
            params = _gate(sql, params)
        try:
            self.conn.execute(sql, params)
        except apsw.Error as e:
            self._raise(e)
        return self.conn.changes()

    def executemany(self, sql: str, seq) -> None:
        if not self.write_wait and self._depth == 0 and _changes_rows(sql):
            with self.transaction():
                return self.executemany(sql, seq)
        if _is_write(sql):
            seq = [_gate(sql, p) for p in seq]
        try:
            self.conn.executemany(sql, seq)
        except apsw.Error as e:
            self._raise(e)

    def _raise(self, e: BaseException):
        """Re-raise an apsw error; faults of the file itself become a one-line StoreRefused."""
        refused = store_error(self.path, e)
        if refused is not None:
            raise refused from None
        raise e

    def table_exists(self, name: str) -> bool:
        return self.value("SELECT 1 FROM sqlite_master WHERE name=?", (name,)) is not None

    def warn(self, message: str) -> None:
        """Collect a warning for the person (the CLI prints these after the command)."""
        self.warnings.append(message)

    # -- transactions --------------------------------------------------------------------
    def transaction(self, wait: bool | None = None) -> _Transaction:
        """Atomic write unit. Outermost: BEGIN IMMEDIATE; nested: a savepoint.

        ``wait=False`` (default: ``not store.write_wait``) takes the write lock only if it is
        free at once and raises :class:`LockBusy` otherwise, without waiting."""
        return _Transaction(self, self.write_wait if wait is None else wait)

    # -- extensions ----------------------------------------------------------------------
    def load_vec(self) -> bool:
        """Load sqlite-vec's vec0 without importing the ``sqlite_vec`` module (it imports numpy)."""
        if self.vec_loaded:
            return True
        lib = vec_library_path()
        if lib is None:
            return False
        try:
            self.conn.enable_load_extension(True)
            self.conn.load_extension(lib)
            self.conn.enable_load_extension(False)
        except apsw.Error:
            return False
        self.vec_loaded = True
        return True


class _Transaction:
    """A hand-written context manager: ``contextlib`` costs ~3 ms to import on the hook path."""

    __slots__ = ("store", "name", "wait")

    def __init__(self, store: Store, wait: bool = True):
        self.store = store
        self.name: str | None = None
        self.wait = wait

    def __enter__(self) -> Store:
        s = self.store
        try:
            if s._depth == 0:
                if self.wait:
                    s.conn.execute("BEGIN IMMEDIATE")
                else:
                    _begin_without_waiting(s)
            else:
                self.name = f"sp{s._depth}"
                s.conn.execute(f"SAVEPOINT {self.name}")
        except apsw.Error as e:
            s._raise(e)
        s._depth += 1
        return s

    def __exit__(self, exc_type, exc, tb) -> None:
        s = self.store
        s._depth -= 1
        if self.name is None:
            if exc_type is None:
                try:
                    s.conn.execute("COMMIT")
                except BaseException as e:
                    _rollback(s)
                    if isinstance(e, apsw.Error):
                        s._raise(e)
                    raise
            else:
                _rollback(s)
        elif exc_type is None:
            s.conn.execute(f"RELEASE {self.name}")
        else:
            s.conn.execute(f"ROLLBACK TO {self.name}")
            s.conn.execute(f"RELEASE {self.name}")


def _begin_without_waiting(s: Store) -> None:
    """BEGIN IMMEDIATE with the busy handler off: the lock now, or LockBusy at once."""
    conn = s.conn
    conn.setbusytimeout(0)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except (apsw.BusyError, apsw.LockedError):
        raise LockBusy(f"another process holds the write lock of {s.path}") from None
    finally:
        conn.setbusytimeout(s.busy_timeout_ms)


def _rollback(s: Store) -> None:
    try:
        s.conn.execute("ROLLBACK")
    except apsw.Error:
        pass


def vec_library_path() -> str | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("sqlite_vec")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in ("vec0.so", "vec0.dylib", "vec0.dll"):
            candidate = os.path.join(folder, name)
            if os.path.exists(candidate):
                return os.path.splitext(candidate)[0]
    return None


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_header(fp: str) -> None:
    try:
        with open(fp, "rb") as f:
            head = f.read(100)
    except PermissionError:
        raise StoreRefused(f"cannot read database {fp}: permission denied") from None
    except OSError as e:
        raise StoreRefused(f"cannot read database {fp}: {e.strerror}") from None
    if len(head) == 0:
        return  # an empty file is a new database
    if not head.startswith(_SQLITE_MAGIC):
        raise StoreRefused(f"{fp} is not a SQLite database (left untouched)")


def _is_write(sql: str) -> bool:
    head = sql.lstrip()[:6].upper()
    return head == "INSERT" or head == "UPDATE" or head == "REPLAC"


def _changes_rows(sql: str) -> bool:
    head = sql.lstrip()[:6].upper()
    return head in ("INSERT", "UPDATE", "REPLAC", "DELETE")


def _gate(sql: str, params):
    from ..privacy.redact import gate_params

    return gate_params(sql, params)


# -- faults of the file itself ---------------------------------------------------------------
CORRUPT_SUFFIX = ".corrupt"
_RESTORE_HINT = "restore a backup with `memory-cli restore`"


def corrupt_marker(path: str) -> str:
    """Beside a store found corrupt: refuses further writes until a restore or a clean doctor."""
    return path + CORRUPT_SUFFIX


def store_error(path: str, e: BaseException) -> StoreRefused | None:
    """The one-line StoreRefused (exit 4) for an apsw error that is a fault of the file.

    Corruption also leaves a marker beside the store, so that later writes are refused before
    they can make the damage worse.
    """
    if not isinstance(e, apsw.Error):
        return None
    if isinstance(e, (apsw.CorruptError, apsw.NotADBError)):
        if path and path != ":memory:":
            _mark_corrupt(path, _msg(e))
        return StoreRefused(f"database {path} is corrupt ({_msg(e)}); {_RESTORE_HINT}")
    if isinstance(e, apsw.FullError):
        return StoreRefused(
            f"cannot write database {path}: disk or file size limit full; nothing was stored (free space, then retry)"
        )
    if isinstance(e, apsw.ReadOnlyError):
        return StoreRefused(
            f"cannot write database {path}: it is read-only (check the file's and its directory's permissions)"
        )
    if isinstance(e, (apsw.IOError, apsw.CantOpenError, apsw.PermissionsError, apsw.AuthError)):
        return StoreRefused(f"cannot use database {path}: {_msg(e)}")
    return None


def _mark_corrupt(path: str, reason: str) -> None:
    from ..util import now_iso

    try:
        fd = os.open(corrupt_marker(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"{now_iso()}\t{reason}\n")
    except OSError:
        pass


def clear_corrupt_mark(path: str) -> None:
    try:
        os.unlink(corrupt_marker(path))
    except OSError:
        pass


def _refuse_if_marked_corrupt(path: str) -> None:
    marker = corrupt_marker(path)
    if os.path.exists(marker):
        try:
            with open(marker, encoding="utf-8", errors="replace") as f:
                when = f.read(200).split("\t", 1)[0].strip()
        except OSError:
            when = "?"
        raise StoreRefused(
            f"database {path} was found corrupt ({when}); writes are refused: "
            f"{_RESTORE_HINT} (or `memory-cli doctor` once it is repaired)"
        )


def _check_regular(path: str) -> None:
    """A FIFO or device at the store path would hang or be clobbered: refuse it at once."""
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        raise StoreRefused(f"cannot read database {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise StoreRefused(f"database path {path} is not a regular file")


# -- private file modes -------------------------------------------------------------------
def _create_private(path: str) -> None:
    """Create the store file 0600 whatever the umask; SQLite gives -wal/-shm the same mode."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError as e:
        raise StoreRefused(f"cannot create database {path}: {e.strerror}") from None
    _make_private(path)


def _make_private(path: str) -> None:
    """Tighten a store (and its -wal/-shm) that others can read: it holds what the person said."""
    for p in (path, path + "-wal", path + "-shm"):
        try:
            st = os.stat(p)
            if st.st_mode & 0o077 and st.st_uid == os.geteuid():
                os.chmod(p, 0o600)
        except (OSError, AttributeError):
            pass


def _msg(e: Exception) -> str:
    text = str(e)
    # apsw messages look like "NotADBError: file is not a database"
    return text.split(": ", 1)[-1] if ": " in text else text
