"""Staleness decay, as a pure computation over entries and a clock.

Memory that only grows turns into noise, so an entry nobody used or reinforced for the grace
period (30 days) loses confidence at a fixed rate (0.1 per week past the grace period). Below
the injection floor (0.3) it stops being injected; below the archive threshold (0.1) it is
archived (confidence 0.0), never deleted. Pinned entries and confirmed rules are exempt: the
person said so.

Whole weeks, not fractions
    Decay is a step function: ``rate * floor((idle - grace) / 7 days)``. That is the documented
    arithmetic ("44 days = 14 days past the grace period = 2 weeks = 0.2"), it keeps
    confidences on tidy values (0.4 -> 0.3 -> 0.2, not 0.3857...), and it means a stale entry
    changes (and is audited) at most once a week rather than on every daily run.

Idempotent over time
    Running daily for 60 days gives exactly what one run at day 60 gives. The amount already
    taken is not stored; it is recomputed from ``decayed_at`` (when decay last changed the
    entry): ``already = total_decay(decayed_at - last_activity)`` if ``decayed_at`` is after
    the last activity, else 0 (use or reinforcement since then starts a fresh idle period
    without anyone having to reset a counter). Each run takes ``total_decay(now -
    last_activity) - already``. Confidences are rounded to 6 decimals so that 0.4 - 0.1 - 0.1
    equals 0.4 - 0.2.

Columns this needs on ``memory_entries`` besides ``confidence``: ``last_used`` (injection or
query), a reinforcement time (``reinforced_at``; ``created_at`` and ``updated_at`` count too,
as long as decay itself never bumps ``updated_at``), ``decayed_at`` (TEXT, NULL until decay
first changes the entry), ``archived_at`` (TEXT, NULL = live), ``pinned_at`` (TEXT, NULL =
not pinned) and for rules a confirmation flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

WEEK = timedelta(days=7)
PRECISION = 6


@dataclass(frozen=True)
class DecayPolicy:
    grace_days: float = 30.0
    rate_per_week: float = 0.1
    archive_threshold: float = 0.1  # strictly below: archived
    injection_floor: float = 0.3  # strictly below: no longer injected

    @classmethod
    def from_config(cls, decay: Mapping | None = None, injection_floor: float | None = None) -> DecayPolicy:
        """Read the ``decay`` config section (inactive_days, decay_rate, archive_threshold)."""
        decay = decay or {}
        base = cls()
        return cls(
            grace_days=float(decay.get("inactive_days", base.grace_days)),
            rate_per_week=float(decay.get("decay_rate", base.rate_per_week)),
            archive_threshold=float(decay.get("archive_threshold", base.archive_threshold)),
            injection_floor=float(injection_floor if injection_floor is not None else base.injection_floor),
        )

    @property
    def grace(self) -> timedelta:
        return timedelta(days=self.grace_days)


@dataclass(frozen=True)
class DecayInput:
    """The facts about one entry that decay looks at."""

    entry_id: str
    confidence: float
    last_activity: datetime  # latest of creation, use, reinforcement
    decayed_at: datetime | None = None
    pinned: bool = False
    confirmed_rule: bool = False
    archived: bool = False


@dataclass(frozen=True)
class DecayChange:
    """One entry's before/after, ready for the store and the audit log."""

    entry_id: str
    confidence_before: float
    confidence_after: float
    idle_days: int
    weeks_past_grace: int
    decayed_at: datetime
    archive: bool  # fell below the archive threshold: archive it now
    became_inactive: bool  # crossed below the injection floor in this change

    def audit_details(self) -> dict:
        return {
            "confidence_before": self.confidence_before,
            "confidence_after": self.confidence_after,
            "idle_days": self.idle_days,
            "weeks_past_grace": self.weeks_past_grace,
            "archived": self.archive,
            "became_inactive": self.became_inactive,
        }


@dataclass
class DecayPlan:
    changes: list[DecayChange] = field(default_factory=list)
    exempt_pinned: int = 0
    exempt_confirmed: int = 0
    considered: int = 0

    @property
    def decayed(self) -> int:
        return sum(1 for c in self.changes if not c.archive)

    @property
    def archived(self) -> int:
        return sum(1 for c in self.changes if c.archive)


def _aware(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt


def _parse(value: str | datetime | None) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _aware(value)
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return _aware(datetime.fromisoformat(text))


def last_activity(*moments: str | datetime | None) -> datetime:
    """The latest of the given timestamps (ISO text or datetimes; None ignored)."""
    parsed = [p for p in (_parse(m) for m in moments) if p is not None]
    if not parsed:
        raise ValueError("an entry needs at least one timestamp (created_at)")
    return max(parsed)


def weeks_past_grace(idle: timedelta, policy: DecayPolicy) -> int:
    past = idle - policy.grace
    if past <= timedelta(0):
        return 0
    return past // WEEK


def total_decay(idle: timedelta, policy: DecayPolicy) -> float:
    """Confidence an entry idle for ``idle`` has lost in all, since its last activity."""
    return round(policy.rate_per_week * weeks_past_grace(idle, policy), PRECISION)


def exemption(entry: DecayInput) -> str | None:
    if entry.pinned:
        return "pinned"
    if entry.confirmed_rule:
        return "confirmed rule"
    return None


def decay_entry(entry: DecayInput, now: datetime, policy: DecayPolicy = DecayPolicy()) -> DecayChange | None:
    """The change decay makes to ``entry`` at ``now``, or None when it stays as it is."""
    if entry.archived or exemption(entry):
        return None
    now = _aware(now)
    active_at = _aware(entry.last_activity)
    idle = now - active_at
    total = total_decay(idle, policy)
    decayed_at = _aware(entry.decayed_at) if entry.decayed_at else None
    already = total_decay(decayed_at - active_at, policy) if decayed_at and decayed_at > active_at else 0.0
    step = round(total - already, PRECISION)
    if step <= 0:
        return None
    before = round(entry.confidence, PRECISION)
    after = round(max(0.0, before - step), PRECISION)
    archive = after < policy.archive_threshold
    if archive:
        # An archived entry carries no confidence. Zero (rather than wherever the pass that
        # archived it happened to land) keeps daily runs and one late run identical.
        after = 0.0
    return DecayChange(
        entry_id=entry.entry_id,
        confidence_before=before,
        confidence_after=after,
        idle_days=idle.days,
        weeks_past_grace=weeks_past_grace(idle, policy),
        decayed_at=now,
        archive=archive,
        became_inactive=before >= policy.injection_floor > after,
    )


def effective_confidence(entry: DecayInput, now: datetime, policy: DecayPolicy = DecayPolicy()) -> float:
    """Confidence as decay would leave it at ``now``: lets injection apply the floor before the
    daily pass has run (that pass is detached, so the first session of a day may precede it)."""
    change = decay_entry(entry, now, policy)
    return entry.confidence if change is None else change.confidence_after


def plan_decay(entries: Iterable[DecayInput], now: datetime, policy: DecayPolicy = DecayPolicy()) -> DecayPlan:
    plan = DecayPlan()
    for entry in entries:
        if entry.archived:
            continue
        plan.considered += 1
        why = exemption(entry)
        if why == "pinned":
            plan.exempt_pinned += 1
            continue
        if why:
            plan.exempt_confirmed += 1
            continue
        change = decay_entry(entry, now, policy)
        if change is not None:
            plan.changes.append(change)
    return plan


def after_change(entry: DecayInput, change: DecayChange) -> DecayInput:
    """``entry`` as it is once ``change`` has been stored (what the next run will read)."""
    return DecayInput(
        entry_id=entry.entry_id,
        confidence=change.confidence_after,
        last_activity=entry.last_activity,
        decayed_at=change.decayed_at,
        pinned=entry.pinned,
        confirmed_rule=entry.confirmed_rule,
        archived=entry.archived or change.archive,
    )
