"""Team memory as the CLI, the detached sync and the sharing commands use it.

State lives in the store's ``kv`` table: ``team.conninfo`` (the server, never with a password:
libpq finds that in ``~/.pgpass``, ``PGPASSWORD`` or a service file), ``team.mark`` (where the
next pull starts), ``team.last_sync`` and ``team.last_error`` (what ``status`` and ``doctor``
show). ``team_entries`` lists what is shared.
"""

from __future__ import annotations

from .. import audit, entries
from ..errors import InvalidInput
from ..store import kvstate
from ..util import now_iso
from . import server, sync
from .server import TeamUnavailable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

KEY_CONNINFO = "team.conninfo"
KEY_MARK = "team.mark"
KEY_LAST_SYNC = "team.last_sync"
KEY_LAST_ERROR = "team.last_error"

__all__ = [
    "init",
    "join",
    "leave",
    "status",
    "sync_now",
    "mark_shared",
    "unmark_shared",
    "confirm",
    "joined",
    "TeamUnavailable",
]


def safe_conninfo(url: str) -> tuple[str, bool]:
    """``url`` without its password, and whether one was removed."""
    url = (url or "").strip()
    if not url:
        raise InvalidInput("give the team server as a libpq URL or conninfo, e.g. postgresql://host/dbname")
    try:
        from psycopg.conninfo import conninfo_to_dict, make_conninfo
    except ImportError:
        raise TeamUnavailable("team memory needs psycopg: pip install 'memory-cli[team]'") from None
    try:
        parts = conninfo_to_dict(url)
    except Exception as err:
        raise InvalidInput(f"not a PostgreSQL URL or conninfo: {server.one_line(err)}") from None
    had = parts.pop("password", None) is not None
    return make_conninfo(**parts), had


def joined(store: Store) -> str | None:
    return kvstate.get(store, KEY_CONNINFO)


def _require(store) -> str:
    conninfo = joined(store)
    if not conninfo:
        raise InvalidInput("this store has not joined a team store: memory-cli team join URL")
    return conninfo


def init(url: str) -> dict:
    """Create the schema and roles on the server (an admin does this once)."""
    conninfo, _ = safe_conninfo(url)
    conn = server.connect(url)
    try:
        server.create_schema(conn)
    finally:
        conn.close()
    return {"server": conninfo, "schema_version": server.schema.SERVER_SCHEMA_VERSION}


def join(store: Store, url: str) -> dict:
    """Remember the server (without its password) and check it can be used now."""
    conninfo, had_password = safe_conninfo(url)
    conn = server.connect(url)
    try:
        server.check_schema(conn)
        roles = server.roles_of(conn)
    finally:
        conn.close()
    with store.transaction():
        kvstate.put(store, KEY_CONNINFO, conninfo)
        kvstate.put(store, KEY_MARK, "0")
        kvstate.delete(store, KEY_LAST_ERROR)
        audit.record(store, "team_join", result=conninfo)
    return {"server": conninfo, "password_stripped": had_password, "roles": roles}


def leave(store: Store) -> dict:
    """Forget the server. Pulled entries stay (source ``team``); nothing is pushed any more."""
    conninfo = _require(store)
    with store.transaction():
        n = store.value("SELECT count(*) FROM team_entries")
        store.execute("DELETE FROM team_entries")
        for key in (KEY_CONNINFO, KEY_MARK, KEY_LAST_SYNC, KEY_LAST_ERROR):
            kvstate.delete(store, key)
        audit.record(store, "team_leave", result=conninfo, details={"shared_entries_forgotten": n})
    return {"server": conninfo, "shared_entries_forgotten": n}


def mark_shared(store: Store, entry_id: str) -> bool:
    """Share an entry with the team: the next sync pushes it. Returns whether a team is joined
    (an entry marked before joining is pushed by the first sync after it)."""
    eid = entries.resolve_id(store, entry_id)
    with store.transaction():
        store.execute(
            "INSERT INTO team_entries(entry_id, shared_at) VALUES (?, ?)"
            " ON CONFLICT(entry_id) DO UPDATE SET state = 'shared'",
            (eid, now_iso()),
        )
        audit.record(store, "team_share", entry_id=eid)
    return joined(store) is not None


def unmark_shared(store: Store, entry_id: str) -> bool:
    """Stop sharing: the next sync sends a tombstone, so teammates archive their copies.
    Returns False when the entry was not shared."""
    eid = entries.resolve_id(store, entry_id)
    with store.transaction():
        if not store.value("SELECT 1 FROM team_entries WHERE entry_id = ?", (eid,)):
            return False
        store.execute("UPDATE team_entries SET state = 'tombstone' WHERE entry_id = ?", (eid,))
        audit.record(store, "team_unshare", entry_id=eid)
    return True


def sync_now(store: Store, *, url: str | None = None) -> dict:
    """Push, then pull. A failure is recorded for ``status``/``doctor`` and raised as one line;
    the local store is unchanged by a failed step and the next sync catches up. ``url`` (the
    one ``join`` was given, password included) is used for this sync only."""
    conninfo = _require(store)
    started = now_iso()
    try:
        conn = server.connect(url or conninfo)
        try:
            server.check_schema(conn)
            pushed = sync.push(store, conn)
            pulled, mark = sync.pull(store, conn, kvstate.get(store, KEY_MARK, "0") or "0")
        finally:
            conn.close()
    except TeamUnavailable as err:
        with store.transaction():
            kvstate.put(store, KEY_LAST_ERROR, {"at": started, "message": str(err)})
            audit.record(store, "team_sync", result="failed", context=str(err))
        raise
    result = {"at": started, **pushed, **pulled}
    with store.transaction():
        kvstate.put(store, KEY_MARK, mark)
        kvstate.put(store, KEY_LAST_SYNC, result)
        kvstate.delete(store, KEY_LAST_ERROR)
        audit.record(store, "team_sync", result="ok", details=result)
    return result


def confirm(store: Store, entry_id: str) -> dict:
    """A maintainer confirms a shared rule on the server; the next sync makes it block everywhere."""
    conninfo = _require(store)
    eid = entries.resolve_id(store, entry_id)
    if not sync.exchanged(store, eid):  # the server's row with this id would be someone else's
        raise InvalidInput(f"{eid[:8]} is not in the team store from here (share it and sync first)")
    conn = server.connect(conninfo)
    try:
        server.check_schema(conn)
        sid = store.value("SELECT server_id FROM team_entries WHERE entry_id = ?", (eid,))
        row = server.confirm(conn, sid or eid)
    finally:
        conn.close()
    if row is None:
        raise InvalidInput(f"{eid[:8]} is not a rule in the team store (share it and sync first)")
    with store.transaction():
        sync.note_maintainers(store, [row])
        sync.apply_remote(store, row, row["updated_by"])  # the confirmation is this login's own change
    return row


def sync_backlog(store) -> tuple[int, int]:
    """``(listed, waiting)``: the rows ``team_entries`` holds, and those the next push must
    still send (never pushed, or a tombstone)."""
    row = store.row(
        "SELECT count(*) AS listed, coalesce(sum(version = 0 OR state = 'tombstone'), 0) AS waiting FROM team_entries"
    )
    return int(row["listed"] or 0), int(row["waiting"] or 0)


def status(store: Store, *, check_server: bool = True) -> dict:
    conninfo = joined(store)
    out = {
        "joined": conninfo is not None,
        "server": conninfo,
        "shared": store.value("SELECT count(*) FROM team_entries WHERE state = 'shared'") or 0,
        "pending_tombstones": store.value("SELECT count(*) FROM team_entries WHERE state = 'tombstone'") or 0,
        "unpushed": store.value("SELECT count(*) FROM team_entries WHERE version = 0") or 0,
        "from_teammates": store.value("SELECT count(*) FROM memory_entries WHERE source = 'team' AND status = 'active'")
        or 0,
        "last_sync": kvstate.get(store, KEY_LAST_SYNC),
        "last_error": kvstate.get(store, KEY_LAST_ERROR),
    }
    if conninfo and check_server:
        try:
            conn = server.connect(conninfo)
            try:
                server.check_schema(conn)
                out["server_counts"] = server.counts(conn)
                out["roles"] = server.roles_of(conn)
            finally:
                conn.close()
            out["reachable"] = True
        except TeamUnavailable as err:
            out["reachable"] = False
            out["server_error"] = str(err)
    return out
