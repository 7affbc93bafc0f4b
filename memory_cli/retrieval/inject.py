"""What every injection shares: which memories apply where, the ranked search, recording use.

Memories reach the agent at three moments, one module each: at session start
(:mod:`.session_start`), beside a prompt (:mod:`.per_prompt`) and after a failure
(:mod:`.per_failure`). Each moment loads only its own module and this one.

Every injection counts as use (use_count, last_used, ``session_injections``) and is audited,
through the spool (:mod:`memory_cli.store.spool`) when another process holds the write lock.
Standard library and apsw only at module level: this runs inside hook processes.
"""

from __future__ import annotations

from .. import scope as scopes
from ..errors import InvalidInput


def project_aliases(name: str | None) -> list[str]:
    """The scope name a project answers to: its one normalised name
    (:func:`memory_cli.scope.normalize_project`: ``WhisperClick V3`` is ``whisperclick``)."""
    if not name:
        return []
    base = scopes.normalize_project(name)
    return [base] if base else []


def applies(scope: str, projects: list[str], files: list[str], root: str | None, always: tuple[str, ...] = ()) -> bool:
    """Does a memory of ``scope`` apply in these projects, to these files, in this checkout?"""
    if scope == scopes.GLOBAL or scope in always:
        return True
    kind, _, value = scope.partition(":")
    if kind == "project":
        return value in projects
    if kind == "file":
        return any(scopes.file_matches(value, f, root) for f in files)
    if kind == "repo":
        return root is not None and value == root
    return False


# ---------------------------------------------------------------------------------------------
# Retrieval: the ranked search (documented 0-1 scores)


def search(
    store,
    text: str,
    *,
    project: str | None = None,
    files=(),
    limit: int = 10,
    min_score: float | None = None,
    type: str | None = None,
    timeout_ms: int | None = None,
    root: str | None = None,
) -> list[dict]:
    """:func:`memory_cli.retrieval.search.query` restricted to what applies in ``project``/``files``;
    a query with nothing to search for (only stop words) finds nothing."""
    from .search import query

    try:
        return query(
            store,
            text,
            limit=limit,
            type=type,
            project=project,
            files=tuple(files),
            timeout_ms=timeout_ms,
            min_score=min_score,
            root=root,
        )
    except InvalidInput:
        return []


# ---------------------------------------------------------------------------------------------
# Recording


def record_injection(
    store,
    included: list[dict],
    *,
    session_id: str | None,
    context: str,
    total: int,
    tokens: int,
    hook_event: str | None,
    extra: dict | None = None,
    reset_session: bool = False,
) -> None:
    """Use counts, last-use times, the session's injection list and one audit row, atomically;
    spooled when another process holds the write lock (written later, never twice)."""
    from ..store import spool

    ids = [e["id"] for e in included]
    details = {"ids": ids, "tokens": tokens, "included": len(ids), "eligible": total}
    if extra:
        details.update(extra)
    op = spool.make(
        "inject",
        {
            "ids": ids,
            "session_id": session_id or None,
            "reset_session": bool(reset_session),
            "context": context,
            "result": f"{len(ids)} of {total}",
            "details": details,
            "hook_event": hook_event,
        },
    )
    spool.write(store, [op])


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """Record one injection: inside the caller's transaction, its audit row carrying ``op_id``."""
    from .. import entries
    from ..audit import record

    session_id = args.get("session_id")
    ids = [i for i in (args.get("ids") or []) if isinstance(i, str)]
    if args.get("reset_session") and session_id:
        store.execute("DELETE FROM session_injections WHERE session_id = ?", (session_id,))
    entries.mark_used(store, ids, session_id=session_id)
    record(
        store,
        "inject",
        context=args.get("context"),
        result=args.get("result"),
        details=args.get("details"),
        session_id=session_id,
        hook_event=args.get("hook_event"),
        aid=op_id,
        timestamp=at,
    )


def already_injected(store, session_id: str | None) -> set[str]:
    if not session_id:
        return set()
    return {
        r["entry_id"] for r in store.rows("SELECT entry_id FROM session_injections WHERE session_id = ?", (session_id,))
    }


def drop_dormant(store, entries: list[dict], settings) -> list[dict]:
    """Leave out memories that decay has already pushed below the floor, even when today's
    detached decay pass has not run yet, and give the others the confidence decay has already
    taken (what decides eligibility is what is ranked and shown). A cheap SQL check first: only
    entries idle past the grace period can be affected, and the decay code is imported only
    for those."""
    if not entries:
        return entries
    import time

    from ..settings import value as setting

    grace_days = float(setting(settings, "decay.inactive_days"))
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - grace_days * 86400))
    ids = [e["id"] for e in entries]
    marks = ",".join("?" * len(ids))
    stale = [
        r["id"]
        for r in store.rows(
            f"SELECT id FROM memory_entries WHERE id IN ({marks}) AND pinned = 0 AND "
            "max(created_at, coalesce(reinforced_at, ''), coalesce(last_used, '')) < ?",
            [*ids, cutoff],
        )
    ]
    if not stale:
        return entries
    from ..maintenance.decay_store import pending_confidences, policy_from

    effective = pending_confidences(store, stale, settings)
    if not effective:
        return entries
    floor = policy_from(settings).injection_floor
    out = []
    for e in entries:
        c = effective.get(e["id"])
        if c is None:
            out.append(e)
        elif c >= floor:
            out.append(dict(e, confidence=round(c, 6)))
    return out
