"""The audit log: every action memory-cli takes, so a person can see why it did what it did.

Writes from hooks must never fail the hook, hence :func:`record_safely`.
"""

from __future__ import annotations

from .db import Store
from .util import dumps, new_id, now_iso


def record(
    store: Store,
    action: str,
    *,
    entry_id: str | None = None,
    context: str | None = None,
    result: str | None = None,
    details: dict | None = None,
    session_id: str | None = None,
    hook_event: str | None = None,
    elapsed_ms: float | None = None,
) -> str:
    aid = new_id()
    # Payload fields arrive with any JSON type; the store's redaction gate bounds text only.
    context, result, session_id, hook_event = (_text(v) for v in (context, result, session_id, hook_event))
    store.execute(
        "INSERT INTO memory_audit_log(id, timestamp, action, entry_id, context, result, details,"
        " session_id, hook_event, elapsed_ms) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            aid,
            now_iso(),
            action,
            entry_id,
            context,
            result,
            dumps(details) if details is not None else None,
            session_id,
            hook_event,
            round(elapsed_ms, 3) if elapsed_ms is not None else None,
        ),
    )
    return aid


def _text(value):
    if value is None or isinstance(value, str):
        return value
    try:
        return dumps(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:2000]


def record_safely(store: Store | None, action: str, **kw) -> bool:
    if store is None:
        return False
    try:
        record(store, action, **kw)
        return True
    except Exception:
        return False


def query(
    store: Store,
    *,
    action: str | None = None,
    since: str | None = None,
    entry_id: str | None = None,
    session_id: str | None = None,
    limit: int = 50,
) -> list[dict]:
    """Audit events, newest first; ``session_id``: what one session did (the memories it
    wrote link here from the dashboard)."""
    where, params = [], []
    if action:
        if action.endswith("*"):
            where.append("action LIKE ?")
            params.append(action[:-1] + "%")
        else:
            where.append("action = ?")
            params.append(action)
    if since:
        where.append("timestamp >= ?")
        params.append(since)
    if entry_id:
        where.append("entry_id = ?")
        params.append(entry_id)
    if session_id:
        where.append("session_id = ?")
        params.append(session_id)
    sql = "SELECT * FROM memory_audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY timestamp DESC LIMIT ?"
    params.append(int(limit))
    rows = store.rows(sql, params)
    import json

    for r in rows:
        if r.get("details"):
            try:
                r["details"] = json.loads(r["details"])
            except ValueError:
                pass
    return rows
