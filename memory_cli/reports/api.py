"""Save and read session reports: what a session did, for the next session of the project."""

from __future__ import annotations

from .. import audit, fields
from .. import scope as scopes
from ..errors import NotFound
from ..util import new_id, now_iso

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

SOURCES = ("agent", "session", "manual")
PUBLIC = ("id", "scope", "summary", "details", "session_id", "source", "created_at")


def _public(row):
    return None if row is None else {k: row.get(k) for k in PUBLIC}


def save_report(store: Store, summary, *, details=None, scope, session_id=None, source="agent") -> dict:
    """Store a report for ``scope`` (a project's scope, or global)."""
    text = fields.text(store, summary, "summary", required=True, max_len=4000)
    more = fields.text(store, details, "details")
    src = fields.choice(source, "source", SOURCES)
    sc = scopes.parse(scope)
    rid = new_id()
    with store.transaction():
        store.execute(
            "INSERT INTO session_reports(id, scope, summary, details, session_id, source, created_at)"
            " VALUES (?,?,?,?,?,?,?)",
            (rid, sc, text, more, fields.text(store, session_id, "session_id", max_len=200), src, now_iso()),
        )
        audit.record(
            store,
            "report_save",
            context=text[:200],
            result=sc,
            details={"report": rid, "source": src},
            session_id=session_id,
        )
    return get(store, rid)


def latest_report(store: Store, scope) -> dict | None:
    """The newest report of exactly ``scope``, or None."""
    sc = scopes.parse(scope)
    return _public(
        store.row("SELECT * FROM session_reports WHERE scope = ? ORDER BY created_at DESC, rowid DESC LIMIT 1", (sc,))
    )


AUTOMATIC = ("session",)  # written by the session-end summariser, not on purpose


def previous_report(store: Store, scope) -> dict | None:
    """The report a new session should start from: the newest of ``scope``, except that a report
    written on purpose (by the agent's ``save_report`` or a person) during the session that the
    newest automatic end-of-session summary describes wins over that summary. The session's start
    is its first audited event; reports saved through MCP carry no session id."""
    latest = latest_report(store, scope)
    if latest is None or latest.get("source") not in AUTOMATIC or not latest.get("session_id"):
        return latest
    started = store.value("SELECT min(timestamp) FROM memory_audit_log WHERE session_id = ?", (latest["session_id"],))
    if not started:
        return latest
    marks = ",".join("?" * len(AUTOMATIC))
    chosen = store.row(
        f"SELECT * FROM session_reports WHERE scope = ? AND source NOT IN ({marks}) AND created_at >= ?"
        " ORDER BY created_at DESC, rowid DESC LIMIT 1",
        (scopes.parse(scope), *AUTOMATIC, started),
    )
    return _public(chosen) if chosen else latest


def list_reports(store: Store, *, scope=None, limit=20) -> list[dict]:
    where, params = "", []
    if scope:
        where, params = "WHERE scope = ?", [scopes.parse(scope)]
    rows = store.rows(
        f"SELECT * FROM session_reports {where} ORDER BY created_at DESC, rowid DESC LIMIT ?",
        [*params, fields.limit(limit, 20, 10_000)],
    )
    return [_public(r) for r in rows]


def get(store: Store, ref: str) -> dict:
    ref = (ref or "").strip()
    from ..ids import like_prefix

    rows = store.rows(
        "SELECT * FROM session_reports WHERE id = ? OR (length(?) >= 4 AND id LIKE ? ESCAPE '\\') LIMIT 2",
        (ref, ref, like_prefix(ref)),
    )
    exact = [r for r in rows if r["id"] == ref]
    if exact or len(rows) == 1:
        return _public((exact or rows)[0])
    raise NotFound(f"no report {ref!r}" if not rows else f"report id {ref!r} is ambiguous")
