"""Maintenance's section of ``memory-cli stats``: pins, decay, violations, review, backups,
and hook latency, the numbers that say whether memory is being kept or just accumulating."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_cli.util import iso

LATENCY_WINDOW_DAYS = 7


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile: an observed latency, never an interpolated one."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n * q / 100)
    return sorted_values[int(rank) - 1]


def hook_latency(store, *, days: int = LATENCY_WINDOW_DAYS, now: datetime | None = None) -> dict:
    since = iso((now or datetime.now(timezone.utc)) - timedelta(days=days))
    by_event: dict[str, list[float]] = {}
    for r in store.rows(
        "SELECT hook_event, elapsed_ms FROM memory_audit_log WHERE action IN ('hook', 'hook_error')"
        " AND elapsed_ms IS NOT NULL AND hook_event IS NOT NULL AND timestamp >= ?",
        (since,),
    ):
        by_event.setdefault(r["hook_event"], []).append(float(r["elapsed_ms"]))
    out = {}
    for event, values in sorted(by_event.items()):
        values.sort()
        out[event] = {
            "calls": len(values),
            "p50": round(_percentile(values, 50), 1),
            "p95": round(_percentile(values, 95), 1),
            "p99": round(_percentile(values, 99), 1),
            "max": round(values[-1], 1),
        }
    return out


def collect(store, settings=None) -> dict:
    from memory_cli.maintenance import backup, pins
    from memory_cli.maintenance.decay_store import LAST_RUN_KEY, policy_from
    from memory_cli.maintenance.tasks import backups_dir
    from memory_cli.store import kvstate

    if settings is None:
        from memory_cli import settings as settings_mod

        settings = settings_mod.load()
    floor = policy_from(settings).injection_floor
    files = kvstate.with_prefix(store, pins.FILE_KEY)
    backups = backup.list_backups(backups_dir(settings, store.path), "")
    return {
        "pinned": {
            "count": store.value("SELECT count(*) FROM memory_entries WHERE pinned = 1 AND status = 'active'"),
            "max": pins.max_pinned(settings),
            "files": sorted(str(pins.target_path(t, settings)) for t in files),
        },
        "decay": {
            "decayed_active": store.value(
                "SELECT count(*) FROM memory_entries WHERE status = 'active' AND decayed_at IS NOT NULL"
            ),
            "below_injection_floor": store.value(
                "SELECT count(*) FROM memory_entries WHERE status = 'active' AND confidence < ?", (floor,)
            ),
            "archived_by_decay": store.value(
                "SELECT count(*) FROM memory_entries WHERE status = 'archived' AND decayed_at IS NOT NULL"
            ),
            "last_run": (kvstate.get(store, LAST_RUN_KEY) or {}).get("at"),
        },
        "violations_per_rule": [
            {"id": r["id"], "content": r["content"], "violations": r["violation_count"]}
            for r in store.rows(
                "SELECT id, content, violation_count FROM memory_entries WHERE type = 'rule'"
                " AND violation_count > 0 ORDER BY violation_count DESC, id LIMIT 10"
            )
        ],
        "pending_review": {
            "corrections": store.value("SELECT count(*) FROM corrections WHERE status = 'pending'"),
            "unconfirmed_rules": store.value(
                "SELECT count(*) FROM enforcement_rules WHERE confirmed = 0 AND active = 1"
            ),
        },
        "backups": {
            "count": len(backups),
            "newest": iso(backups[-1].taken_at) if backups else None,
            "directory": str(backups_dir(settings, store.path)),
        },
        "hook_latency_ms": hook_latency(store),
    }


def render_lines(data: dict) -> list[str]:
    """Plain lines for the human ``stats`` output (the JSON keeps the structure)."""
    lines = []
    p = data.get("pinned") or {}
    if p:
        lines.append(
            f"pinned: {p['count']} of {p['max']}" + (f" (in {', '.join(p['files'])})" if p.get("files") else "")
        )
    d = data.get("decay") or {}
    if d:
        lines.append(
            f"decay: {d['decayed_active']} decayed, {d['below_injection_floor']} below the injection "
            f"floor, {d['archived_by_decay']} archived by decay; last run {d['last_run'] or 'never'}"
        )
    v = data.get("violations_per_rule") or []
    if v:
        lines.append("violations per rule: " + ", ".join(f"{r['id'][:8]} {r['violations']}" for r in v))
    r = data.get("pending_review") or {}
    if r:
        lines.append(f"pending review: {r['corrections']} corrections, {r['unconfirmed_rules']} unconfirmed rules")
    b = data.get("backups") or {}
    if b:
        lines.append(f"backups: {b['count']} in {b['directory']}" + (f", newest {b['newest']}" if b["newest"] else ""))
    for event, s in (data.get("hook_latency_ms") or {}).items():
        lines.append(
            f"hook latency {event}: p50 {s['p50']} ms, p95 {s['p95']} ms, p99 {s['p99']} ms "
            f"({s['calls']} calls, {LATENCY_WINDOW_DAYS} days)"
        )
    return lines
