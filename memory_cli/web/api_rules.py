"""``/api/rules`` and ``/api/corrections``: the same calls as ``memory-cli rules`` and
``memory-cli review``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict

from .. import entries, review
from ..entry_effects import resync_native, resync_pins
from ..rules import api as rules_api
from . import deps

router = APIRouter(prefix="/api", tags=["rules and review"])


class RulePatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str | None = None
    pattern_type: str | None = None
    action: str | None = None
    severity: str | None = None
    alternative: str | None = None
    message: str | None = None
    content: str | None = None
    scope: str | None = None
    tools: list[str] | None = None
    enabled: bool | None = None


class ConfirmIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str | None = None


class ApproveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str | None = None
    pattern: str | None = None
    pattern_type: str | None = None
    message: str | None = None
    scope: str | None = None
    no_rule: bool = False
    form: str | None = None  # rule | reminder | ask | stop-check | advice (None: as proposed)


class RejectIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = None


@router.get("/rules", summary="List enforcement rules")
def api_rules(
    enabled: bool | None = None,
    status: str = Query("active", description="active|archived|all"),
    scope: str | None = None,
    pattern_type: str | None = None,
    provenance: str | None = None,
    confirmed: bool | None = None,
    store=Depends(deps.get_store),
):
    if status not in ("active", "archived", "superseded", "all"):
        raise deps.FieldError("status", f"unknown status {status!r}: use active, archived, superseded or all")
    deps.check_entry_fields(store, {"scope": scope})
    with deps.field("pattern_type" if pattern_type else "provenance"):
        return rules_api.list_rules(
            store,
            enabled=enabled,
            status=status,
            scope=scope,
            pattern_type=pattern_type,
            provenance=provenance,
            confirmed=confirmed,
        )


@router.get("/rules/{rule_id}", summary="One rule")
def api_rule(rule_id: str, store=Depends(deps.get_store)):
    return rules_api.get_rule(store, rule_id)


def edit_rule(store, rule_id: str, changes: dict) -> dict:
    from ..rules import spec

    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes:
        raise deps.FieldError("body", "nothing to change: give at least one field")
    checks = {
        "action": spec.check_action,
        "severity": spec.check_severity,
        "pattern_type": spec.check_pattern_type,
    }
    for name, check in checks.items():
        if name in changes:
            with deps.field(name):
                check(changes[name])
    deps.check_entry_fields(store, {k: changes.get(k) for k in ("content", "scope")})
    before = rules_api.get_rule(store, rule_id)
    with deps.field("pattern"):
        rule = rules_api.edit_rule(store, rule_id, **changes)
    resync_pins(store, entries.pin_state(store, before["id"]))
    resync_native(store)
    return rule


@router.put("/rules/{rule_id}", summary="Edit a rule (pattern re-validated)")
def api_edit_rule(rule_id: str, body: RulePatch, store=Depends(deps.get_store)):
    return edit_rule(store, rule_id, body.model_dump(exclude_unset=True))


@router.post("/rules/{rule_id}/enable", summary="Switch a rule on")
def api_enable(rule_id: str, store=Depends(deps.get_store)):
    rule = rules_api.set_enabled(store, rule_id, True)
    resync_native(store)
    return rule


@router.post("/rules/{rule_id}/disable", summary="Switch a rule off (kept, not enforced)")
def api_disable(rule_id: str, store=Depends(deps.get_store)):
    rule = rules_api.set_enabled(store, rule_id, False)
    resync_native(store)
    return rule


@router.post("/rules/{rule_id}/confirm", summary="Vouch for a rule (a promoted warn becomes block)")
def api_confirm(rule_id: str, body: ConfirmIn | None = None, store=Depends(deps.get_store)):
    action = body.action if body else None
    with deps.field("action"):
        rule = rules_api.confirm_rule(store, rule_id, action=action)
    resync_native(store)
    return rule


@router.delete("/rules/{rule_id}", summary="Delete a rule and its memory (kept in the audit log)")
def api_delete_rule(rule_id: str, store=Depends(deps.get_store)):
    rule = rules_api.get_rule(store, rule_id)
    pinned = entries.pin_state(store, rule["id"])
    rules_api.delete_rule(store, rule["id"])
    resync_pins(store, pinned)
    resync_native(store)
    return {"deleted": rule["id"]}


@router.get("/corrections", summary="The review queue, or corrections by status")
def api_corrections(
    status: str = Query("review", description="review|pending|promoted|approved|rejected|dismissed|all"),
    limit: int = Query(100, ge=1, le=10_000),
    store=Depends(deps.get_store),
):
    if status == "review":
        return review.pending(store)
    with deps.field("status"):
        return review.corrections_by_status(store, status=status, limit=limit)


@router.post("/corrections/{correction_id}/approve", summary="Approve: the rule enforces (with the action given)")
def api_approve(correction_id: str, body: ApproveIn | None = None, store=Depends(deps.get_store)):
    b = body or ApproveIn()
    with deps.field("action"):
        review.check_action(b.action)
    with deps.field("form"):
        review.check_form(b.form)
    deps.check_entry_fields(store, {"scope": b.scope})
    with deps.field("pattern"):
        return review.approve(
            store,
            correction_id,
            action=b.action,
            pattern=b.pattern,
            pattern_type=b.pattern_type,
            message=b.message,
            scope=b.scope,
            no_rule=b.no_rule,
            form=b.form,
        )


@router.post("/corrections/{correction_id}/reject", summary="Reject: never proposed again")
def api_reject(correction_id: str, body: RejectIn | None = None, store=Depends(deps.get_store)):
    return review.reject(store, correction_id, reason=body.reason if body else None)


@router.get("/lessons", summary="Approved lessons: form of enforcement, scope, kept / sent-back figures")
def api_lessons(store=Depends(deps.get_store)):
    from ..checks import forms, verdicts

    return {"paused": forms.paused(store), "lessons": verdicts.lessons(store)}


@router.get("/scope-requests", summary="Agent and model memories asking to apply beyond their project")
def api_scope_requests(store=Depends(deps.get_store)):
    return review.scope_requests(store)


@router.post("/scope-requests/{entry_id}/approve", summary="Let it apply where it asked to")
def api_scope_approve(entry_id: str, store=Depends(deps.get_store)):
    return review.approve_scope(store, entry_id)


@router.post("/scope-requests/{entry_id}/reject", summary="Keep it where it was written")
def api_scope_reject(entry_id: str, store=Depends(deps.get_store)):
    return review.reject_scope(store, entry_id)
