"""Writes that cannot wait for the write lock, kept beside the store until one can be made.

Why: a hook must answer Claude Code within its deadline, and another process may hold the
store's write lock for seconds (a bulk change of thousands of entries from the dashboard, an
import). Reads in WAL mode never wait for a writer, so a hook decides from what it reads; what
it must write (audit rows, a captured correction, markers, use counts, violation counts, metric
samples, a transcript queued for session memories) is tried once without waiting (``BEGIN IMMEDIATE`` with the busy handler off, see
:class:`memory_cli.store.db.LockBusy`) and otherwise put here.

The spool is a private folder beside the store, ``<database>.spool/`` (0700). Each process that
spools writes its own file (0600), created under a temporary name and renamed into place whole:
concurrent hooks never share a file and a reader never sees half of one. A file is a list of
operations, one JSON object a line: ``{"id", "kind", "at", "args"}``.

Nothing is written twice: an operation's id is made when it is spooled, and applying it writes
an audit row with that id in the same transaction (the kind's own audit row, or a ``spooled``
row); an operation whose id is already in the audit log is skipped. A drain that dies between
its commit and removing the file (a kill -9) therefore leaves nothing to repeat. An operation
that fails for a reason other than the lock is rolled back alone and kept, whole, in a
``spool_failed`` audit row, so one bad operation never holds up the rest.

Who drains (:func:`drain`): every hook process that gets the lock without waiting (after it has
answered, for at most a fraction of a second), the detached maintenance run, ``memory-cli
doctor`` and every CLI command that opens the store to write.

Standard library and apsw only: hooks import this.
"""

from __future__ import annotations

import os
import time

from .db import LEGACY_PENDING_SUFFIX  # the audit-only spool of earlier versions, still drained
from .db import SPOOL_SUFFIX as SUFFIX

_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 600.0  # a temporary file this old belongs to a process that died mid-write

# kind -> "module:function(store, op_id, at, args)" that applies it inside the caller's transaction.
APPLIERS = {
    "audit": "memory_cli.audit:apply_spooled",
    "capture": "memory_cli.capture.corrections:apply_spooled",
    "inject": "memory_cli.retrieval.inject:apply_spooled",
    "markers": "memory_cli.capture.lifecycle:apply_spooled",
    "violation": "memory_cli.rules.api:apply_spooled",
    "metric": "memory_cli.baselines.api:apply_spooled",
    "kv": "memory_cli.store.kvstate:apply_spooled",
    "prompt": "memory_cli.capture.lessons:apply_spooled",
}


class SpoolError(Exception):
    """The spool could not be written (disk full, an unwritable folder)."""


def folder(db_path: str | None) -> str | None:
    if not db_path or db_path == ":memory:" or db_path.startswith("file:"):
        return None
    return db_path + SUFFIX


def make(kind: str, args: dict, at: str | None = None) -> dict:
    from ..util import new_id, now_iso

    return {"id": new_id(), "kind": kind, "at": at or now_iso(), "args": _encode(args)}


# -- writing --------------------------------------------------------------------------------


def put(db_path: str | None, ops: list[dict]) -> str:
    """Write ``ops`` as one new spool file; returns its path. Raises SpoolError."""
    where = folder(db_path)
    if where is None:
        raise SpoolError("this store has no spool (an in-memory or URI database)")
    from ..fastjson import dumps

    # default=str: a value JSON cannot hold (a set, an object in a handler's details) is kept as
    # its text rather than losing the whole write.
    text = "".join(dumps(op, ensure_ascii=False, compact=True, default=str) + "\n" for op in ops)
    name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}.jsonl"
    tmp = os.path.join(where, _TMP_PREFIX + name)
    try:
        _ensure_folder(where)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            os.write(fd, text.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
        final = os.path.join(where, name)
        os.rename(tmp, final)
        return final
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SpoolError(f"cannot write the spool {where}: {e.strerror or e}") from None


def _ensure_folder(where: str) -> None:
    if not os.path.lexists(where):
        from ..paths import ensure_private_dir

        ensure_private_dir(where)
    if not _trusted(where):
        raise OSError(f"{where} is not a private folder of this user (left alone)")


def _trusted(where: str) -> bool:
    """The spool is read back as writes to make: only a real folder of this user that no one
    else may write into is used (a store beside which another user planted a folder or a
    symbolic link, in a shared directory, must not receive or hand us writes)."""
    import stat

    try:
        st = os.lstat(where)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022:
        return False
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


def write(store, ops: list[dict]) -> str:
    """Apply ``ops`` now if the write lock is free at once, else spool them.

    Returns ``"written"`` or ``"spooled"``. Raises SpoolError when neither was possible, and
    any error of the store other than the lock (the caller decides what a failure costs)."""
    if not ops:
        return "written"
    from .db import LockBusy

    try:
        with store.transaction(wait=False):
            for op in ops:
                apply(store, op, ledger=False)
        return "written"
    except LockBusy:
        put(store.path, ops)
        return "spooled"


# -- applying -------------------------------------------------------------------------------


def apply(store, op: dict, *, ledger: bool = True) -> None:
    """Apply one operation inside the caller's transaction. ``ledger``: also make sure an
    audit row carries the operation's id (a drained operation is then never applied again)."""
    spec = APPLIERS.get(op.get("kind"))
    if spec is None:
        raise ValueError(f"unknown spooled write {op.get('kind')!r}")
    module_name, _, func_name = spec.partition(":")
    func = getattr(__import__(module_name, fromlist=[func_name]), func_name)
    func(store, op["id"], op.get("at"), _decode(op.get("args") or {}))
    if ledger:
        from .. import audit

        if not audit.exists(store, op["id"]):
            audit.record(
                store,
                "spooled",
                aid=op["id"],
                context=op.get("kind"),
                result="applied",
                details={"queued_at": op.get("at")},
            )


def drain(store, *, wait: bool = False, budget_s: float | None = None) -> dict:
    """Apply what waits in the spool, oldest first, in one transaction; remove what is done.

    ``wait=False`` gives up at once when another process holds the lock (a hook);
    ``budget_s`` stops taking new files after that many seconds (the rest stays for the next
    drain). Returns ``{"applied", "skipped", "failed", "left", "busy"}``."""
    out = {"applied": 0, "skipped": 0, "failed": 0, "left": 0, "busy": False}
    where = folder(getattr(store, "path", None))
    if where is None:
        return out
    _adopt_legacy(store.path)
    names = _ready(where)
    if not names:
        return out
    from .. import audit
    from .db import LockBusy

    deadline = None if budget_s is None else time.perf_counter() + budget_s
    done: list[str] = []
    try:
        with store.transaction(wait=wait):
            for name in names:
                if deadline is not None and done and time.perf_counter() > deadline:
                    break
                path = os.path.join(where, name)
                ops = _read(path)
                if ops is None:  # another drain removed it
                    continue
                for op in ops:
                    if not isinstance(op, dict) or not isinstance(op.get("id"), str):
                        out["failed"] += 1
                        continue
                    if audit.exists(store, op["id"]):
                        out["skipped"] += 1
                        continue
                    try:
                        with store.transaction():
                            apply(store, op)
                        out["applied"] += 1
                    except Exception as e:  # noqa: BLE001 - one bad operation must not hold up the rest
                        _record_failure(store, op, e)
                        out["failed"] += 1
                done.append(path)
    except LockBusy:
        out["busy"] = True
        out["left"] = len(names)
        return out
    for path in done:
        try:
            os.unlink(path)
        except OSError:
            pass
    out["left"] = len(names) - len(done)
    return out


def waiting(db_path: str | None) -> tuple[int, int]:
    """(files, operations) waiting in the spool of the store at ``db_path``."""
    where = folder(db_path)
    if where is None:
        return 0, 0
    names = _ready(where, clean=False)
    ops = 0
    for name in names:
        got = _read(os.path.join(where, name))
        ops += len(got or [])
    legacy = db_path + LEGACY_PENDING_SUFFIX
    if os.path.isfile(legacy):
        try:
            with open(legacy, "rb") as f:
                n = sum(1 for _ in f)
        except OSError:
            n = 0
        if n:
            names.append(legacy)
            ops += n
    return len(names), ops


def queued(db_path: str | None, kind: str) -> list[dict]:
    """The arguments of the operations of ``kind`` waiting in the spool, oldest first, read
    without the lock (a reader that must see what a hook could not write yet)."""
    where = folder(db_path)
    if where is None:
        return []
    out = []
    for name in _ready(where, clean=False):
        for op in _read(os.path.join(where, name)) or []:
            if isinstance(op, dict) and op.get("kind") == kind and isinstance(op.get("args"), dict):
                out.append(_decode(op["args"]))
    return out


def _record_failure(store, op: dict, e: BaseException) -> None:
    from .. import audit

    audit.record(
        store,
        "spool_failed",
        aid=op["id"],
        context=str(op.get("kind")),
        result="failed",
        details={"error": f"{type(e).__name__}: {e}"[:500], "queued_at": op.get("at"), "op": op.get("args")},
    )


def _ready(where: str, clean: bool = True) -> list[str]:
    if not _trusted(where):
        return []
    try:
        names = os.listdir(where)
    except OSError:
        return []
    ready = []
    for name in names:
        if name.startswith(_TMP_PREFIX):
            if clean:
                _drop_if_stale(os.path.join(where, name))
        elif name.endswith(".jsonl"):
            ready.append(name)
    ready.sort()
    return ready


def _drop_if_stale(path: str) -> None:
    try:
        if time.time() - os.stat(path).st_mtime > _STALE_TMP_S:
            os.unlink(path)
    except OSError:
        pass


def _read(path: str) -> list | None:
    from ..fastjson import loads

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:  # another drain removed it
        return None
    out = []
    for line in lines:
        if not line.strip():
            continue
        try:
            out.append(loads(line))
        except (ValueError, RecursionError):
            out.append(None)  # counted as failed, never silently dropped from the count
    return out


def _adopt_legacy(db_path: str) -> None:
    """Move rows an earlier version left in ``<database>.audit-pending`` into the spool, with
    ids derived from their text, so adopting the same file twice writes nothing twice."""
    legacy = db_path + LEGACY_PENDING_SUFFIX
    if not os.path.isfile(legacy):
        return
    claimed = f"{legacy}.{os.getpid()}"
    try:
        os.replace(legacy, claimed)
    except OSError:
        return
    import hashlib

    from ..fastjson import loads

    ops = []
    try:
        with open(claimed, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f):
                try:
                    action, kw = loads(line)
                except (ValueError, TypeError, RecursionError):
                    continue
                if not isinstance(action, str) or not isinstance(kw, dict):
                    continue
                digest = hashlib.sha1(f"{i}\x1f{line}".encode("utf-8", errors="replace")).hexdigest()
                ops.append(
                    {"id": "pending-" + digest[:28], "kind": "audit", "at": None, "args": {"action": action, "kw": kw}}
                )
        if ops:
            put(db_path, ops)
        os.unlink(claimed)
    except (OSError, SpoolError):
        try:
            os.replace(claimed, legacy)
        except OSError:
            pass


def _encode(args: dict) -> dict:
    """JSON has no bytes: a vector travels as ``{"$bytes": hex}``."""
    return {k: ({"$bytes": v.hex()} if isinstance(v, (bytes, bytearray, memoryview)) else v) for k, v in args.items()}


def _decode(args: dict) -> dict:
    out = {}
    for k, v in args.items():
        if isinstance(v, dict) and len(v) == 1 and isinstance(v.get("$bytes"), str):
            try:
                v = bytes.fromhex(v["$bytes"])
            except ValueError:
                v = None
        out[k] = v
    return out
