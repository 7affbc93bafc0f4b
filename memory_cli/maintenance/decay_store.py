"""Decay applied to the store: reads the decay clock, writes changes with their audit records.

The arithmetic lives in :mod:`memory_cli.maintenance.decay` (pure, tested on its own);
this module only maps rows to it and back. The decay clock is ``max(created_at,
reinforced_at, last_used)``; decay itself never touches ``updated_at`` or ``reinforced_at``, so
it cannot restart its own clock.
"""

from __future__ import annotations

from datetime import datetime, timezone

from memory_cli import audit, entries
from memory_cli.maintenance.decay import (
    DecayInput,
    DecayPolicy,
    effective_confidence,
    exemption,
    last_activity,
    plan_decay,
)
from memory_cli.store import kvstate
from memory_cli.util import iso, now_iso

LAST_RUN_KEY = "decay.last_run"

_SELECT_BY_ID = (
    "SELECT e.id, e.content, e.type, e.confidence, e.created_at, e.reinforced_at, e.last_used,"
    " e.decayed_at, e.pinned, r.confirmed"
    " FROM memory_entries e LEFT JOIN enforcement_rules r ON r.id = e.id"
    " WHERE e.id IN ({marks})"
)
_SELECT = (
    "SELECT e.id, e.content, e.type, e.confidence, e.created_at, e.reinforced_at, e.last_used,"
    " e.decayed_at, e.pinned, r.confirmed"
    " FROM memory_entries e LEFT JOIN enforcement_rules r ON r.id = e.id"
    " WHERE e.status = 'active'"
)


def policy_from(settings) -> DecayPolicy:
    from memory_cli.settings import value as setting

    decay = {key: setting(settings, f"decay.{key}") for key in ("inactive_days", "decay_rate", "archive_threshold")}
    return DecayPolicy.from_config(decay, setting(settings, "injection.min_confidence"))


def _inputs(rows) -> list[DecayInput]:
    return [
        DecayInput(
            entry_id=r["id"],
            confidence=float(r["confidence"]),
            last_activity=last_activity(r["created_at"], r["reinforced_at"], r["last_used"]),
            decayed_at=last_activity(r["decayed_at"]) if r["decayed_at"] else None,
            pinned=bool(r["pinned"]),
            confirmed_rule=r["type"] == "rule" and bool(r["confirmed"]),
        )
        for r in rows
    ]


def pending_confidences(store, ids, settings=None, now: datetime | None = None) -> dict[str, float]:
    """The confidence decay would already have left each of ``ids`` with, for those it has
    changed (exempt and fresh entries are absent).

    The daily decay pass runs detached, so the first session of a day may start before it;
    injection uses this to leave out stale memories and to show and rank the others at the
    confidence that decides their eligibility, not the stored one.
    """
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    now = now or datetime.now(timezone.utc)
    policy = policy_from(settings)
    out: dict[str, float] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows = store.rows(_SELECT_BY_ID.format(marks=",".join("?" * len(chunk))), chunk)
        for entry in _inputs(rows):
            if exemption(entry):
                continue
            effective = effective_confidence(entry, now, policy)
            if effective != entry.confidence:
                out[entry.entry_id] = effective
    return out


def dormant_ids(store, ids, settings=None, now: datetime | None = None) -> set[str]:
    """Entries that decay would already have pushed below the injection floor."""
    floor = policy_from(settings).injection_floor
    return {i for i, c in pending_confidences(store, ids, settings, now).items() if c < floor}


def run_decay(store, *, settings=None, now: datetime | None = None, dry_run: bool = False) -> dict:
    """Decay every stale entry (or, with ``dry_run``, say what would change)."""
    now = now or datetime.now(timezone.utc)
    policy = policy_from(settings)

    def compute():
        rows = store.rows(_SELECT)
        content = {r["id"]: r["content"] for r in rows}
        return plan_decay(_inputs(rows), now, policy), content

    if dry_run:
        plan, content = compute()
    else:
        with store.transaction():  # read and write under one write lock: no lost reinforcement
            plan, content = compute()
            for c in plan.changes:
                result = (
                    "archived"
                    if c.archive
                    else ("inactive" if c.confidence_after < policy.injection_floor else "decayed")
                )
                entries.set_decayed(store, c.entry_id, c.confidence_after, iso(c.decayed_at), archive=c.archive)
                audit.record(store, "decay", entry_id=c.entry_id, result=result, details=c.audit_details())
            kvstate.put(
                store,
                LAST_RUN_KEY,
                {
                    "at": now_iso(),
                    "decayed": plan.decayed,
                    "archived": plan.archived,
                },
            )
    changes = []
    for c in plan.changes:
        changes.append(
            {
                "id": c.entry_id,
                "content": content.get(c.entry_id, ""),
                "confidence_before": c.confidence_before,
                "confidence_after": c.confidence_after,
                "idle_days": c.idle_days,
                "archived": c.archive,
                "inactive": c.confidence_after < policy.injection_floor,
                "became_inactive": c.became_inactive,
            }
        )
    return {
        "dry_run": dry_run,
        "considered": plan.considered,
        "decayed": plan.decayed,
        "archived": plan.archived,
        "became_inactive": sum(1 for c in plan.changes if c.became_inactive),
        "exempt_pinned": plan.exempt_pinned,
        "exempt_confirmed_rules": plan.exempt_confirmed,
        "policy": {
            "grace_days": policy.grace_days,
            "rate_per_week": policy.rate_per_week,
            "archive_threshold": policy.archive_threshold,
            "injection_floor": policy.injection_floor,
        },
        "changes": changes,
    }
