"""Keep each scope under ``limits.per_scope`` automatic memories, without losing anything.

Only automatic memories count and only they are touched: active entries of the sources
``session`` and ``marker`` that are not pinned and carry no confirmed rule. What a person wrote,
pinned or confirmed is never counted, offered or changed.

Past the limit the provider is asked (``compact_memories``: delete, merge, edit) with that one
scope's automatic memories, nothing else; its answer is validated strictly and what is valid is
applied. With no provider, a failure, a timeout, the daily cap or an invalid answer, and for
whatever the model's answer leaves over the limit, the fallback removes memories FIFO by score:
lowest :func:`keep_score` first (least confident, least used, longest untouched), oldest first
on a tie.

Nothing is hard-deleted: "delete" archives, "edit" and "merge" supersede (the old entries keep
their text and point to the new one). Every change is in the audit log and can be undone with
``memory-cli update ID --status active``.
"""

from __future__ import annotations

import time
from datetime import datetime

from memory_cli import audit, entries
from memory_cli import scope as scopes
from memory_cli.llm import config as llm_config
from memory_cli.llm import prompts, providers
from memory_cli.llm.validate import Malformed, check_compact

RECENCY_HALF_LIFE_DAYS = 30.0


def automatic_entries(store, scope: str) -> list[dict]:
    marks = ",".join("?" * len(llm_config.AUTOMATIC_SOURCES))
    return store.rows(
        "SELECT id, content, type, scope, source, confidence, use_count, last_used, created_at, reinforced_at "
        f"FROM memory_entries e WHERE scope = ? AND status = 'active' AND pinned = 0 AND source IN ({marks}) "
        "AND NOT EXISTS (SELECT 1 FROM enforcement_rules r WHERE r.id = e.id AND r.confirmed = 1) "
        "ORDER BY created_at, id",
        (scope, *llm_config.AUTOMATIC_SOURCES),
    )


def _epoch(ts: str | None) -> float | None:
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def keep_score(e: dict, now: float | None = None) -> float:
    """0-1: how much an automatic memory deserves to stay. Confidence weighs 0.5, use 0.3
    (saturating at 5 uses), recency 0.2 (half-life 30 days since last use or reinforcement)."""
    now = now or time.time()
    touched = max(
        t
        for t in (_epoch(e.get("last_used")), _epoch(e.get("reinforced_at")), _epoch(e.get("created_at")), 0.0)
        if t is not None
    )
    age_days = max(0.0, (now - touched) / 86400.0) if touched else 3650.0
    recency = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    uses = min(1.0, float(e.get("use_count") or 0) / 5.0)
    return 0.5 * float(e.get("confidence") or 0.0) + 0.3 * uses + 0.2 * recency


def fifo_order(rows: list[dict]) -> list[dict]:
    """Rows in eviction order: lowest score first, oldest first on a tie."""
    now = time.time()
    return sorted(rows, key=lambda e: (round(keep_score(e, now), 6), e["created_at"], e["id"]))


def _apply(store, op: dict, *, method: str) -> dict:
    reason = f"compaction ({method})"
    if op["op"] == "delete":
        entries.archive(store, op["ids"][0], reason=reason)
        return {"op": "archive", "ids": op["ids"]}
    if op["op"] == "edit":
        new = entries.supersede(store, op["ids"][0], op["content"])
        return {"op": "edit", "ids": op["ids"], "new_id": new["id"], "content": new["content"]}
    olds = [entries.get(store, i) for i in op["ids"]]
    new = entries.supersede(
        store, olds[0]["id"], op["content"], confidence=max(float(o["confidence"] or 0) for o in olds)
    )
    for o in olds[1:]:
        entries.set_superseded_by(store, o["id"], new["id"])
        audit.record(store, "supersede", entry_id=o["id"], result=new["id"], context=reason)
    return {"op": "merge", "ids": op["ids"], "new_id": new["id"], "content": new["content"]}


def _fifo(store, scope: str, limit: int, *, dry_run: bool) -> list[dict]:
    rows = automatic_entries(store, scope)
    excess = len(rows) - limit
    if excess <= 0:
        return []
    victims = fifo_order(rows)[:excess]
    if dry_run:
        return [{"op": "archive", "ids": [v["id"]], "content": v["content"]} for v in victims]
    done = []
    with store.transaction():
        for v in victims:
            entries.archive(store, v["id"], reason="compaction (fifo by score)")
            done.append({"op": "archive", "ids": [v["id"]], "content": v["content"]})
    return done


def compact_scope(store, settings, scope: str, *, dry_run: bool = False) -> dict:
    """Bring one scope back under its limit; returns what was done (or would be, with dry_run)."""
    scope = scopes.parse(scope)
    limit = llm_config.per_scope_limit(settings)
    rows = automatic_entries(store, scope)
    result = {
        "scope": scope,
        "limit": limit,
        "before": len(rows),
        "after": len(rows),
        "method": "none",
        "applied": [],
        "refused": [],
        "fallback": None,
        "dry_run": dry_run,
    }
    if len(rows) <= limit:
        return result
    provider = providers.provider_for(settings)
    if provider is not None and scope.startswith("project:") and llm_config.excluded(settings, scope, None):
        result["fallback"] = "project excluded by llm.exclude_projects: nothing sent"
        provider = None
    if provider is None and result["fallback"] is None:
        result["fallback"] = "no provider (llm.provider is none)"
    if provider is not None:
        offered = {r["id"] for r in rows}
        try:
            answer = providers.ask(
                store,
                settings,
                provider,
                purpose="compact",
                system=prompts.COMPACT_SYSTEM,
                prompt=prompts.compact_prompt(scope, rows, limit=limit),
                tool=prompts.COMPACT_TOOL,
                scope=scope,
            )
            with store.transaction():
                ops, refused = check_compact(store, answer.input, scope=scope, offered=offered)
                for r in refused:
                    audit.record(
                        store,
                        "llm_refused",
                        context="compact",
                        result=r["reason"],
                        details={"item": r["item"], "scope": scope, "provider": provider.name},
                    )
                result["refused"] = refused
                if dry_run:
                    result["applied"] = [
                        {"op": "archive" if o["op"] == "delete" else o["op"], "ids": o["ids"], "content": o["content"]}
                        for o in ops
                    ]
                else:
                    result["applied"] = [_apply(store, o, method=provider.name) for o in ops]
            result["method"] = provider.name
        except (providers.LLMError, Malformed) as err:
            kind = getattr(err, "kind", "malformed")
            result["fallback"] = f"{provider.name} failed ({kind}: {err})"
            with store.transaction():
                audit.record(
                    store,
                    "llm_fallback",
                    context="compact",
                    result=kind,
                    details={"provider": provider.name, "error": str(err), "scope": scope},
                )
    # The fallback: whatever is still over the limit (all of it without a usable answer).
    if dry_run and result["applied"]:
        gone = {i for a in result["applied"] for i in a["ids"]}
        adds = sum(1 for a in result["applied"] if a["op"] in ("merge", "edit"))
        remaining = [r for r in rows if r["id"] not in gone]
        excess = len(remaining) + adds - limit
        fifo = [
            {"op": "archive", "ids": [v["id"]], "content": v["content"]}
            for v in fifo_order(remaining)[: max(0, excess)]
        ]
    else:
        fifo = _fifo(store, scope, limit, dry_run=dry_run)
    if fifo:
        result["applied"] += [dict(f, method="fifo") for f in fifo]
        result["method"] = "fifo" if result["method"] == "none" else result["method"] + "+fifo"
    if dry_run:
        removed = sum(len(a["ids"]) for a in result["applied"])
        result["after"] = len(rows) - removed + sum(1 for a in result["applied"] if a["op"] in ("merge", "edit"))
    else:
        result["after"] = len(automatic_entries(store, scope))
        with store.transaction():
            audit.record(
                store,
                "compact",
                context=scope,
                result=result["method"],
                details={
                    "before": result["before"],
                    "after": result["after"],
                    "limit": limit,
                    "applied": len(result["applied"]),
                    "refused": len(result["refused"]),
                    "fallback": result["fallback"],
                },
            )
    return result


def scopes_over_limit(store, settings) -> list[str]:
    limit = llm_config.per_scope_limit(settings)
    marks = ",".join("?" * len(llm_config.AUTOMATIC_SOURCES))
    return [
        r["scope"]
        for r in store.rows(
            f"SELECT scope, count(*) AS n FROM memory_entries e WHERE status = 'active' AND pinned = 0 "
            f"AND source IN ({marks}) AND NOT EXISTS (SELECT 1 FROM enforcement_rules r WHERE r.id = e.id "
            "AND r.confirmed = 1) GROUP BY scope HAVING n > ? ORDER BY scope",
            (*llm_config.AUTOMATIC_SOURCES, limit),
        )
    ]


def compact_all(store, settings, *, scope: str | None = None, dry_run: bool = False) -> dict:
    """Compact one scope (``scope``) or every scope over the limit."""
    targets = [scopes.parse(scope)] if scope else scopes_over_limit(store, settings)
    return {
        "limit": llm_config.per_scope_limit(settings),
        "scopes": [compact_scope(store, settings, s, dry_run=dry_run) for s in targets],
    }
