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
    agent: str | None = None,
    aid: str | None = None,
    timestamp: str | None = None,
) -> str:
    """Insert one row. ``aid`` and ``timestamp`` are given for a row written late from the
    spool: the id it got when it was spooled (so it is never written twice) and when it happened."""
    aid = aid or new_id()
    # Payload fields arrive with any JSON type; the store's redaction gate bounds text only.
    context, result, session_id, hook_event = (_text(v) for v in (context, result, session_id, hook_event))
    store.execute(
        "INSERT INTO memory_audit_log(id, timestamp, action, entry_id, context, result, details,"
        " session_id, hook_event, elapsed_ms, agent) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            aid,
            timestamp or now_iso(),
            action,
            entry_id,
            context,
            result,
            dumps(details) if details is not None else None,
            session_id,
            hook_event,
            round(elapsed_ms, 3) if elapsed_ms is not None else None,
            _text(agent),
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


def exists(store: Store, aid: str) -> bool:
    return store.value("SELECT 1 FROM memory_audit_log WHERE id = ?", (aid,)) is not None


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


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """One audit row a hook could not write at once (see :mod:`memory_cli.spool`)."""
    kw = dict(args.get("kw") or {})
    allowed = ("entry_id", "context", "result", "details", "session_id", "hook_event", "elapsed_ms", "agent")
    record(store, str(args.get("action") or "?"), aid=op_id, timestamp=at, **{k: kw[k] for k in allowed if k in kw})
