"""``/api/stats``, ``/api/overview`` and ``/api/audit``: what ``memory-cli stats`` and
``memory-cli audit`` show, plus the series the overview page plots."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from .. import audit, entries, stats
from . import deps

router = APIRouter(prefix="/api", tags=["stats and audit"])


@router.get("/stats", summary="Everything `memory-cli stats --json` prints")
def api_stats(store=Depends(deps.get_store)):
    return stats.collect(store)


def overview(store, days: int = 30) -> dict:
    """The overview page's numbers (a read model: :func:`memory_cli.stats.overview`)."""
    return stats.overview(store, days)


@router.get("/overview", summary="The overview page's numbers: counts, gate activity per day, hook latency, funnel")
def api_overview(days: int = Query(30, ge=1, le=365), store=Depends(deps.get_store)):
    return overview(store, days)


def audit_rows(store, *, action=None, since=None, entry=None, session=None, limit=50) -> list[dict]:
    """Same filters and parsing as ``memory-cli audit``."""
    from ..util import iso, parse_iso

    since_iso = None
    if since:
        try:
            since_iso = iso(parse_iso(since))
        except ValueError:
            raise deps.FieldError("since", f"since {since!r} is not an ISO date/time (e.g. 2026-11-01)") from None
    entry_id = None
    if entry:
        try:
            entry_id = entries.resolve_id(store, entry)
        except Exception:
            entry_id = entry  # a deleted memory still has its history
    return audit.query(
        store, action=action or None, since=since_iso, entry_id=entry_id, session_id=session or None, limit=limit
    )


@router.get("/audit", summary="The audit log, newest first (filters as `memory-cli audit`)")
def api_audit(
    action: str | None = Query(None, description="an action, or a prefix ending in *"),
    since: str | None = Query(None, description="ISO date or time"),
    entry: str | None = Query(None, description="a memory id or prefix"),
    session: str | None = Query(None, description="a session id: what that session did"),
    limit: int = Query(50, ge=1, le=100_000),
    store=Depends(deps.get_store),
):
    return audit_rows(store, action=action, since=since, entry=entry, session=session, limit=limit)
