"""The tools' logic as plain functions over a store: validation, defaults and result shapes.

Kept apart from the SDK so that the server module is only wiring, and so these functions can be
read (and tested) without MCP. Every function returns a JSON-ready dict and raises
``MemoryCliError`` for anything the caller got wrong; the server turns those into tool errors.
Nothing here confirms, pins or hard-deletes: an agent's writes are low-confidence memories
(source ``auto_detected``) a person reviews like any other.
"""

from __future__ import annotations

import os

from .. import entries
from .. import scope as scopes
from ..baselines import api as baselines
from ..db import Store
from ..errors import InvalidInput
from ..incidents import api as incidents
from ..journal import fields
from ..reports import api as reports
from ..search import query as ranked_query  # the one import of ranked memory search

AGENT = "mcp"


def current_project(env: dict | None = None, cwd: str | None = None) -> str | None:
    """``project:<name>`` for the project the server was started in, or None outside one."""
    env = os.environ if env is None else env
    root = scopes.find_project_root(cwd or os.getcwd(), env)
    name = scopes.project_name(root)
    return f"project:{name}" if name else None


def _scope_or_project(scope) -> str:
    if scope is None or (isinstance(scope, str) and not scope.strip()):
        return current_project() or scopes.GLOBAL
    if not isinstance(scope, str):
        raise InvalidInput("scope must be text: global, project:<name> or file:<path>")
    return scopes.parse(scope)


def _entry(e: dict) -> dict:
    keep = ("id", "content", "type", "scope", "confidence", "category", "subject", "source",
            "created_at", "pinned")
    out = {k: e.get(k) for k in keep}
    if "score" in e:
        out["score"] = e["score"]
    return out


def query_memory(store: Store, query, scope=None, type=None, limit=None, *,
                 timeout_ms: float | None = None) -> dict:
    text = query.strip() if isinstance(query, str) else ""
    if not text:
        raise InvalidInput("query is empty: say what to look for")
    n = fields.limit(limit, default=10, maximum=50)
    t = entries.check_type(type) if type is not None else None
    if scope is not None:
        if not isinstance(scope, str):
            raise InvalidInput("scope must be text: global, project:<name> or file:<path>")
        hits = ranked_query(store, text, scope=scopes.parse(scope), type=t, limit=n, timeout_ms=timeout_ms)
    else:
        project = current_project()
        hits = ranked_query(store, text, type=t, limit=n, timeout_ms=timeout_ms,
                            project=project.split(":", 1)[1] if project else "")
    return {"query": text, "results": [_entry(e) for e in hits]}


def remember(store: Store, content, type, scope=None, category=None, subject=None, *,
             session_id: str | None = None) -> dict:
    if not isinstance(content, str):
        raise InvalidInput("content must be text")
    if not isinstance(type, str):
        raise InvalidInput(f"type is required: one of {', '.join(entries.TYPES)}")
    subj = fields.text(subject, "subject", max_len=200)
    e = entries.add(store, content, type, scope=_scope_or_project(scope), source="auto_detected",
                    category=category, subject=subj, agent=AGENT, session_id=session_id,
                    audit_context="mcp:remember")
    return {"stored": _entry(e)}


def record_incident(store: Store, title, symptoms, service=None, severity=None, cause=None,
                    resolution=None, *, timeout_ms: float = 150) -> dict:
    inc = incidents.record_incident(store, title, symptoms, service=service, severity=severity,
                                    cause=cause, resolution=resolution, source="agent",
                                    scope=_scope_or_project(None), embed_timeout_ms=timeout_ms)
    return {"incident": inc}


def search_incidents(store: Store, query, status=None, limit=None, *, timeout_ms: float = 150) -> dict:
    hits = incidents.search_incidents(store, query, status=status, limit=limit, timeout_ms=timeout_ms)
    return {"query": query.strip(), "results": hits}


def resolve_incident(store: Store, id, resolution, *, timeout_ms: float = 150) -> dict:
    return {"incident": incidents.resolve_incident(store, id, resolution, embed_timeout_ms=timeout_ms)}


def save_report(store: Store, summary, details=None) -> dict:
    return {"report": reports.save_report(store, summary, details=details,
                                          scope=_scope_or_project(None), source="agent")}


def get_previous_report(store: Store, scope=None) -> dict:
    sc = _scope_or_project(scope)
    return {"scope": sc, "report": reports.latest_report(store, sc)}


def record_metric(store: Store, name, value, unit=None, scope=None) -> dict:
    return {"sample": baselines.record(store, name, value, unit=unit, scope=_scope_or_project(scope),
                                       source="agent")}


def check_baseline(store: Store, name, value) -> dict:
    r = baselines.check(store, name, value)
    return {"name": r["name"], "value": r["value"], "unit": r["unit"], "normal": r["normal"],
            "baseline": r["baseline"], "ratio": r["ratio"], "why": r["why"]}
