"""Rules as every caller reads them: the stored row joined with its memory entry, JSON columns
decoded, and the action a rule takes while unconfirmed. Reads only; the rules table is written
through :func:`memory_cli.rules.api.write_rule`. Kept apart from :mod:`.api` so that the native
rule copies, which :func:`~memory_cli.rules.api.write_rule` rewrites, can list the rules
without importing the module that writes them.
"""

from __future__ import annotations

import json

from . import spec

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

_SELECT = (
    "SELECT r.*, e.content, e.scope, e.status, e.confidence, e.violation_count, e.source,"
    " e.tags FROM enforcement_rules r JOIN memory_entries e ON e.id = r.id"
)
_JSON_COLUMNS = ("tools", "fields", "conditions", "hook_events", "tags")


def public_rule(row: dict | None) -> dict | None:
    """The shape every caller sees: JSON columns decoded, booleans as booleans."""
    if row is None:
        return None
    return _public(row)


def _public(row: dict) -> dict:
    """:func:`public_rule` of a row that exists (typed so, for the lists of rules)."""
    out = dict(row)
    for key in _JSON_COLUMNS:
        if key in out:
            try:
                out[key] = json.loads(out[key] or "[]")
            except (TypeError, ValueError):
                out[key] = []
    out["enabled"] = bool(out.pop("active", 1))
    out["confirmed"] = bool(out.get("confirmed"))
    out["case_sensitive"] = bool(out.get("case_sensitive"))
    if out.get("pattern_type") == "command":
        from .operations import stands_for

        out["spelling_only"] = bool(out.get("spelling_only"))
        out["operation"] = stands_for(out.get("pattern") or "", out["spelling_only"])
    out.pop("analysis", None)
    out["effective_action"] = effective_action(out["action"], out["confirmed"], out.get("pattern_type"))
    return out


def effective_action(action: str, confirmed: bool, pattern_type: str | None = None) -> str:
    """An unconfirmed rule never blocks: it warns until the person confirms it. An intent rule
    never blocks or asks: similarity is a hint, not proof (see engine.effective_action)."""
    if pattern_type == "intent" and action in ("block", "ask"):
        return "warn"
    return "warn" if action == "block" and not confirmed else action


def list_rules(
    store: Store,
    *,
    enabled: bool | None = None,
    status: str = "active",
    scope: str | None = None,
    pattern_type: str | None = None,
    provenance: str | None = None,
    confirmed: bool | None = None,
    limit: int | None = None,
) -> list[dict]:
    where: list[str] = []
    params: list = []
    if status != "all":
        where.append("e.status = ?")
        params.append(status)
    if enabled is not None:
        where.append("r.active = ?")
        params.append(1 if enabled else 0)
    if scope:
        from .. import scope as scopes

        where.append("e.scope = ?")
        params.append(scopes.parse(scope))
    if pattern_type:
        where.append("r.pattern_type = ?")
        params.append(spec.check_pattern_type(pattern_type))
    if provenance:
        where.append("r.provenance = ?")
        params.append(spec.check_provenance(provenance))
    if confirmed is not None:
        where.append("r.confirmed = ?")
        params.append(1 if confirmed else 0)
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY CASE r.action WHEN 'block' THEN 0 WHEN 'ask' THEN 1 WHEN 'warn' THEN 2 ELSE 3 END, r.created_at"
    if limit:
        sql += " LIMIT ?"
        params.append(int(limit))
    return [_public(r) for r in store.rows(sql, params)]
