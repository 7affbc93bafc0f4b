"""``/api/memories``: list with filters and ranked search, create, read, change, delete, bulk,
and ``/api/purge``. Each route is one call into :mod:`memory_cli.entries`."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from .. import entries
from ..entry_effects import index_now, resync_pins
from ..errors import InvalidInput
from . import deps

router = APIRouter(prefix="/api", tags=["memories"])

MAX_LIMIT = 1000
MAX_RANKED = 2000  # ranked search looks at most this deep


class MemoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str
    type: str = "fact"
    scope: str = "global"
    source: str = "manual"
    confidence: float | None = None
    tags: list[str] | None = None
    category: str | None = None
    subject: str | None = None
    # Rules only: what a hook enforces (derived from the content when omitted).
    pattern: str | None = None
    pattern_type: str | None = None
    action: str | None = None
    severity: str | None = None
    alternative: str | None = None


class MemoryPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str | None = None
    type: str | None = None
    scope: str | None = None
    confidence: float | None = None
    tags: list[str] | None = None
    category: str | None = None
    subject: str | None = None
    status: str | None = None


class BulkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["delete", "archive", "activate"]
    ids: list[str] = Field(min_length=1, max_length=10_000)


class PurgeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scope: str
    source: str | None = None


def list_memories(
    store,
    *,
    type=None,
    scope=None,
    status="active",
    source=None,
    category=None,
    subject=None,
    q=None,
    min_confidence=None,
    limit=50,
    offset=0,
    order="updated",
    descending=None,
) -> dict:
    """The listing both the API and the memories page show: ``{"items", "total"}``.

    With ``q`` the order is relevance (ranked search), then the other filters apply to the
    ranked candidates."""
    filters = dict(
        type=type or None,
        scope=scope or None,
        status=status or "active",
        source=source or None,
        category=category or None,
        subject=subject or None,
        min_confidence=min_confidence,
    )
    deps.check_entry_fields(store, {k: v for k, v in filters.items() if k != "status" or v != "all"})
    if order not in entries.ORDERS:
        raise deps.FieldError("order", f"unknown order {order!r}: use one of {', '.join(entries.ORDERS)}")
    if q is not None and q.strip():
        # Ranked search scores its candidates one by one, so ask only for what the page needs
        # (more when filters below may drop some); ``total`` counts the matches found.
        post_filters = (
            any(filters[k] for k in ("scope", "source", "category", "subject"))
            or min_confidence is not None
            or filters["status"] not in ("active", "all")
        )
        want = offset + limit
        hits = deps.ranked_query(
            store,
            q,
            type=filters["type"],
            limit=max(1, min(MAX_RANKED, want * 4 if post_filters else want)),
            use_vectors=True,
            timeout_ms=300,
        )
        keep = []
        for h in hits:
            if filters["scope"] and h["scope"] != _scope(filters["scope"]):
                continue
            if filters["status"] != "all" and h["status"] != filters["status"]:
                continue
            if filters["source"] and h["source"] != filters["source"]:
                continue
            if filters["category"] and h.get("category") != filters["category"]:
                continue
            if filters["subject"] and not entries.subject_matches(filters["subject"], h.get("subject")):
                continue
            if min_confidence is not None and h["confidence"] < float(min_confidence):
                continue
            keep.append(h)
        return {"items": keep[offset : offset + limit], "total": len(keep)}
    items = entries.list_entries(store, **filters, limit=limit, offset=offset, order=order, descending=descending)
    return {"items": items, "total": entries.count_entries(store, **filters)}


def _scope(value: str) -> str:
    from .. import scope as scopes

    return scopes.parse(value)


@router.get("/memories", summary="List memories (filters, ranked search with q, pagination)")
def api_list(
    type: str | None = None,
    scope: str | None = None,
    status: str = Query("active", description="active|archived|superseded|all"),
    source: str | None = None,
    category: str | None = None,
    subject: str | None = None,
    q: str | None = Query(None, description="ranked search"),
    min_confidence: float | None = Query(None, ge=0.0, le=1.0),
    limit: int = Query(50, ge=0, le=MAX_LIMIT),
    offset: int = Query(0, ge=0),
    order: str = Query("updated", description="|".join(entries.ORDERS)),
    descending: bool | None = None,
    store=Depends(deps.get_store),
):
    # Plain JSON values already: skip FastAPI's generic encoder (a few ms per page of 50).
    return JSONResponse(
        list_memories(
            store,
            type=type,
            scope=scope,
            status=status,
            source=source,
            category=category,
            subject=subject,
            q=q,
            min_confidence=min_confidence,
            limit=limit,
            offset=offset,
            order=order,
            descending=descending,
        )
    )


def create_memory(store, body: MemoryIn) -> dict:
    deps.check_entry_fields(
        store, body.model_dump(include={"content", "type", "scope", "source", "confidence", "category"})
    )
    rule_opts = body.model_dump(include={"pattern", "pattern_type", "action", "severity", "alternative"})
    if any(v is not None for v in rule_opts.values()) and body.type.strip().lower() != "rule":
        raise deps.FieldError("type", 'pattern, pattern_type, action, severity and alternative need type "rule"')
    with store.transaction():
        entry = entries.add(
            store,
            body.content,
            body.type,
            scope=body.scope,
            source=body.source,
            confidence=body.confidence,
            tags=body.tags,
            category=body.category,
            subject=body.subject,
            origin="person",  # typed by the person, whatever source they label it with
        )
        rule = None
        if entry["type"] == "rule":
            from ..rules import api as rules_api

            with deps.field("pattern"):
                rule = rules_api.attach_rule(store, entry, **rule_opts)
    index_now(store, entry["id"])
    out = dict(entry)
    if rule is not None:
        out["rule"] = rule
    if store.warnings:
        out["warnings"] = list(store.warnings)
    return out


@router.post("/memories", status_code=201, summary="Add a memory (rules get their pattern here)")
def api_create(body: MemoryIn, store=Depends(deps.get_store)):
    return create_memory(store, body)


@router.get("/memories/{entry_id}", summary="One memory with its rule and history")
def api_get(entry_id: str, store=Depends(deps.get_store)):
    return memory_detail(store, entry_id)


def memory_detail(store, entry_id: str) -> dict:
    from .. import audit

    entry = entries.get(store, entry_id)
    from ..rules import api as rules_api

    rule = rules_api.get_rule(store, entry["id"]) if rules_api.rule_exists(store, entry["id"]) else None
    history = audit.query(store, entry_id=entry["id"], limit=200)
    return dict(entry, rule=rule, history=history)


def update_memory(store, entry_id: str, changes: dict) -> dict:
    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes:
        raise InvalidInput("nothing to update: give at least one field")
    deps.check_entry_fields(store, changes)
    before = entries.get(store, entry_id)
    entry = entries.update(store, entry_id, **changes)
    if "content" in changes:
        index_now(store, entry["id"])
    resync_pins(store, before)
    if store.warnings:
        entry = dict(entry, warnings=list(store.warnings))
    return entry


@router.put("/memories/{entry_id}", summary="Change the fields given (others untouched)")
def api_update(entry_id: str, body: MemoryPatch, store=Depends(deps.get_store)):
    return update_memory(store, entry_id, body.model_dump(exclude_unset=True))


def delete_memory(store, entry_id: str) -> dict:
    entry = entries.get(store, entry_id)
    entries.delete(store, entry["id"])
    resync_pins(store, entry)
    return entry


@router.delete("/memories/{entry_id}", summary="Delete for good (the row stays in the audit log)")
def api_delete(entry_id: str, store=Depends(deps.get_store)):
    entry = delete_memory(store, entry_id)
    return {"deleted": entry["id"]}


def bulk_change(store, action: str, ids: list[str]) -> int:
    touched = [e for e in (entries.pin_state(store, i) for i in ids) if e]
    with deps.field("ids"):
        n = entries.bulk(store, action, ids)
    resync_pins(store, *touched)
    return n


@router.post("/memories/bulk", summary="Delete, archive or activate many memories, all or nothing")
def api_bulk(body: BulkIn, store=Depends(deps.get_store)):
    return {"changed": bulk_change(store, body.action, body.ids)}


@router.post("/purge", summary="Delete every memory in one scope (optionally of one source)")
def api_purge(body: PurgeIn, store=Depends(deps.get_store)):
    with deps.field("scope"):
        entries.purge_scope(body.scope)
    deps.check_entry_fields(store, {"source": body.source})
    pinned = entries.pinned_entries(store)
    n = entries.purge(store, body.scope, source=body.source)
    resync_pins(store, *pinned)
    return {"deleted": n}


def no_content() -> Response:
    return Response(status_code=204)
