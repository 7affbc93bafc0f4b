"""Staleness decay: seed 000's scenarios, archive threshold, exemptions, idempotence over time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory_cli.maintenance.decay import (
    DecayInput,
    DecayPolicy,
    after_change,
    decay_entry,
    effective_confidence,
    last_activity,
    plan_decay,
)

T0 = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)
POLICY = DecayPolicy()


def entry(confidence: float, **kw) -> DecayInput:
    return DecayInput(entry_id=kw.pop("entry_id", "e1"), confidence=confidence, last_activity=T0, **kw)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def test_seed_fresh_memory_not_decayed():
    assert decay_entry(entry(0.7), day(15)) is None


def test_seed_stale_memory_loses_two_weeks_of_confidence():
    change = decay_entry(entry(0.7), day(44))
    assert change.confidence_after == 0.5
    assert change.weeks_past_grace == 2 and change.idle_days == 44


def test_seed_decay_deactivates_memory():
    change = decay_entry(entry(0.4), day(44))
    assert change.confidence_before == 0.4 and change.confidence_after == 0.2
    assert change.confidence_after < POLICY.injection_floor
    assert change.became_inactive
    assert not change.archive  # inactive is not archived: 0.2 is above 0.1


@pytest.mark.parametrize(
    "days, expected",
    [(30, None), (36.99, None), (37, 0.6), (43.9, 0.6), (44, 0.5), (51, 0.4)],
)
def test_decay_counts_whole_weeks_past_the_grace_period(days, expected):
    change = decay_entry(entry(0.7), day(days))
    assert (change.confidence_after if change else None) == expected


@pytest.mark.parametrize("start, archive_day", [(0.4, 58), (0.15, 37), (0.1, 37), (1.0, 30 + 7 * 10)])
def test_entries_below_the_archive_threshold_are_archived(start, archive_day):
    before = decay_entry(entry(start), day(archive_day - 1))
    assert before is None or not before.archive
    change = decay_entry(entry(start), day(archive_day))
    assert change.archive and change.confidence_after == 0.0
    assert change.confidence_before == start or before is not None


def test_exactly_at_the_archive_threshold_is_kept():
    change = decay_entry(entry(0.4), day(51))  # 0.4 - 0.3
    assert change.confidence_after == 0.1 and not change.archive


def test_pinned_entries_and_confirmed_rules_are_exempt():
    plan = plan_decay(
        [
            entry(0.4, entry_id="pinned", pinned=True),
            entry(0.4, entry_id="rule", confirmed_rule=True),
            entry(0.4, entry_id="plain"),
            entry(0.4, entry_id="gone", archived=True),
        ],
        day(90),
    )
    assert [c.entry_id for c in plan.changes] == ["plain"]
    assert (plan.exempt_pinned, plan.exempt_confirmed, plan.considered) == (1, 1, 3)
    assert plan.archived == 1 and plan.decayed == 0


def _run(start: float, days: list[float]) -> tuple[DecayInput, list]:
    state, changes = entry(start), []
    for d in days:
        if state.archived:
            break
        change = decay_entry(state, day(d))
        if change:
            changes.append(change)
            state = after_change(state, change)
    return state, changes


@pytest.mark.parametrize("start", [1.0, 0.7, 0.4, 0.35, 0.15])
@pytest.mark.parametrize("horizon", [44, 60, 120])
def test_daily_runs_equal_one_run_at_the_end(start, horizon):
    daily, daily_changes = _run(start, [float(d) for d in range(1, horizon + 1)])
    once, _ = _run(start, [float(horizon)])
    irregular, _ = _run(start, sorted(d for d in [3.5, 31.2, 39.9, 44.0, 44.0, 52.7, horizon] if d <= horizon))
    assert daily.confidence == once.confidence == irregular.confidence
    assert daily.archived == once.archived == irregular.archived
    # A stale entry changes at most once a week, so the audit log is not flooded.
    assert len(daily_changes) <= max(0, (horizon - 30) // 7)


def test_each_change_is_an_audit_record_with_before_and_after():
    _, changes = _run(0.4, [float(d) for d in range(1, 61)])
    assert [(c.confidence_before, c.confidence_after) for c in changes] == [
        (0.4, 0.3),
        (0.3, 0.2),
        (0.2, 0.1),
        (0.1, 0.0),
    ]
    assert changes[-1].archive and changes[1].became_inactive
    details = changes[0].audit_details()
    assert details["confidence_before"] == 0.4 and details["confidence_after"] == 0.3


def test_use_after_decay_starts_a_new_grace_period():
    state = after_change(entry(0.7), decay_entry(entry(0.7), day(44)))  # 0.5
    used = DecayInput("e1", state.confidence, last_activity=day(45), decayed_at=state.decayed_at)
    assert decay_entry(used, day(45 + 36)) is None
    assert decay_entry(used, day(45 + 37)).confidence_after == 0.4


def test_last_activity_is_the_latest_of_creation_use_and_reinforcement():
    assert last_activity("2025-01-01T00:00:00.000000Z", None, "2025-02-03T10:00:00Z", day(-100)) == datetime(
        2025, 2, 3, 10, tzinfo=timezone.utc
    )
    with pytest.raises(ValueError):
        last_activity(None, "")


def test_effective_confidence_applies_decay_not_yet_stored():
    assert effective_confidence(entry(0.4), day(44)) == 0.2
    assert effective_confidence(entry(0.4), day(10)) == 0.4


def test_policy_reads_seed_config_section():
    p = DecayPolicy.from_config({"inactive_days": 14, "decay_rate": 0.05, "archive_threshold": 0.2})
    assert (p.grace_days, p.rate_per_week, p.archive_threshold) == (14, 0.05, 0.2)
    change = decay_entry(entry(0.5), day(28), p)  # 14 days past a 14-day grace period
    assert change.confidence_after == 0.4
