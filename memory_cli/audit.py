"""The audit log: every action memory-cli takes, so a person can see why it did what it did.

Writes from hooks must never fail the hook, hence :func:`record_safely`.
"""

from __future__ import annotations

from .store.db import Store
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
    where: list[str] = []
    params: list = []
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


def actions(store: Store) -> list[str]:
    """Every action the log holds, sorted: the dashboard's filter choices."""
    return [r["action"] for r in store.rows("SELECT DISTINCT action FROM memory_audit_log ORDER BY action")]


def hook_errors_since(store: Store, since: str) -> list[dict]:
    """``hook_error`` rows since ``since`` (timestamp, hook_event, context, details as stored),
    newest first."""
    return store.rows(
        "SELECT timestamp, hook_event, context, details FROM memory_audit_log "
        "WHERE action='hook_error' AND timestamp >= ? ORDER BY timestamp DESC",
        (since,),
    )


def first_hook_at(store: Store) -> str | None:
    """When the first hook ran in this store (a ``hook`` or ``hook_error`` row), or None."""
    return store.value("SELECT min(timestamp) FROM memory_audit_log WHERE action IN ('hook', 'hook_error')")


def count_recent(store: Store, action: str, *, result: str | None = None, days: int = 7) -> int:
    """How many ``action`` rows (with this ``result``, when given) the last ``days`` days hold."""
    sql = "SELECT count(*) FROM memory_audit_log WHERE action = ? AND timestamp >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)"
    params: list = [action, f"-{int(days)} days"]
    if result is not None:
        sql += " AND result = ?"
        params.append(result)
    return int(store.value(sql, params) or 0)


def count_unchecked_overruns(store: Store, *, days: int = 7) -> int:
    """``enforce_overrun`` rows of the last ``days`` days that name at least one rule left
    undecided. Rows written by older versions for a slow call that skipped nothing (an empty
    list) are not counted."""
    return int(
        store.value(
            "SELECT count(*) FROM memory_audit_log WHERE action = 'enforce_overrun'"
            " AND timestamp >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)"
            " AND json_valid(details) AND ("
            " coalesce(json_array_length(details, '$.skipped'), 0) > 0"
            " OR coalesce(json_array_length(details, '$.unchecked_rules'), 0) > 0"
            " OR coalesce(json_array_length(details, '$.intent_skipped'), 0) > 0"
            " OR coalesce(json_array_length(details, '$.rules'), 0) > 0)",
            (f"-{int(days)} days",),
        )
        or 0
    )


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """One audit row a hook could not write at once (see :mod:`memory_cli.store.spool`)."""
    kw = dict(args.get("kw") or {})
    allowed = ("entry_id", "context", "result", "details", "session_id", "hook_event", "elapsed_ms", "agent")
    record(store, str(args.get("action") or "?"), aid=op_id, timestamp=at, **{k: kw[k] for k in allowed if k in kw})
