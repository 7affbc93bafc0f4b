"""``/api/incidents``, ``/api/reports``, ``/api/baselines``: the agent stores, read through the
same domain functions as `memory-cli incidents|reports|baselines` and the MCP tools."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from ..baselines import api as baselines
from ..incidents import api as incidents
from ..reports import api as reports
from . import deps

router = APIRouter(prefix="/api", tags=["incidents, reports and baselines"])


@router.get(
    "/incidents",
    summary="Incidents, newest first, or ranked by `q` (has this happened before?); `service`, `alert` filter",
)
def api_incidents(
    q: str | None = None,
    status: str | None = Query(None, pattern="^(open|resolved)$"),
    limit: int = Query(50, ge=1, le=1000),
    service: str | None = None,
    alert: str | None = None,
    store=Depends(deps.get_store),
):
    if q or service or alert:
        found = incidents.search(store, q, status=status, limit=min(limit, 100), service=service, alert=alert)
        return {"items": found}
    return {"items": incidents.list_incidents(store, status=status, limit=limit)}


@router.get("/incidents/{incident_id}", summary="One incident")
def api_incident(incident_id: str, store=Depends(deps.get_store)):
    return incidents.get(store, incident_id)


@router.get("/reports", summary="Session reports, newest first")
def api_reports(scope: str | None = None, limit: int = Query(20, ge=1, le=1000), store=Depends(deps.get_store)):
    return {"items": reports.list_reports(store, scope=scope, limit=limit)}


@router.get("/baselines", summary="Every metric with its baseline (n, median, MAD, avg, p95, min, max)")
def api_baselines(store=Depends(deps.get_store)):
    return {"items": [dict(m, baseline=baselines.baseline(store, m["name"])) for m in baselines.list_metrics(store)]}


def journal(store) -> dict:
    """What the journal page shows."""
    return {
        "incidents": incidents.list_incidents(store, limit=100),
        "reports": reports.list_reports(store, limit=20),
        "metrics": api_baselines(store)["items"],
    }
