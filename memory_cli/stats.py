"""Counts a person looks at to trust the store: what is in it, how old, what happened lately.

A read model: the one place outside its owners that reads many tables (entries, rules,
corrections, the audit log) at once, for `memory-cli stats` and the dashboard's overview. It
only reads; every write to those tables stays with the module that owns the table.

Areas with much to say keep their own section in their own module (maintenance: pins, decay,
hook latency), so this one does not grow with every feature.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from .store.db import Store
from .util import iso

AGE_BUCKETS = [("< 1 day", 1), ("1-7 days", 7), ("7-30 days", 30), ("30-90 days", 90)]


def _counts(store: Store, column: str, where: str = "status = 'active'") -> dict:
    return {
        r["k"]: r["n"]
        for r in store.rows(
            f"SELECT {column} AS k, count(*) AS n FROM memory_entries WHERE {where} GROUP BY {column} ORDER BY n DESC"
        )
    }


def collect(store: Store, now: datetime | None = None) -> dict:
    now = now or datetime.now(timezone.utc)
    out: dict = {
        "total": store.value("SELECT count(*) FROM memory_entries"),
        "active": store.value("SELECT count(*) FROM memory_entries WHERE status='active'"),
        "by_status": _counts(store, "status", "1=1"),
        "by_type": _counts(store, "type"),
        "by_scope": _counts(store, "scope"),
        "by_source": _counts(store, "source"),
    }
    ages = {}
    prev = None
    for label, days in AGE_BUCKETS:
        lo = iso(now - timedelta(days=days))
        sql = "SELECT count(*) FROM memory_entries WHERE status='active' AND created_at >= ?"
        params = [lo]
        if prev is not None:
            sql += " AND created_at < ?"
            params.append(prev)
        ages[label] = store.value(sql, params)
        prev = lo
    ages["> 90 days"] = store.value(
        "SELECT count(*) FROM memory_entries WHERE status='active' AND created_at < ?", (prev,)
    )
    out["by_age"] = ages
    out["rules"] = {
        "total": store.value("SELECT count(*) FROM enforcement_rules"),
        "enabled": store.value("SELECT count(*) FROM enforcement_rules WHERE active=1"),
        "by_action": {
            r["action"]: r["n"]
            for r in store.rows("SELECT action, count(*) AS n FROM enforcement_rules WHERE active=1 GROUP BY action")
        },
        "unconfirmed": store.value("SELECT count(*) FROM enforcement_rules WHERE confirmed=0"),
    }
    from .rules import proof

    out["rules"]["proof"] = proof.totals(store)
    out["corrections"] = {
        "pending": store.value("SELECT count(*) FROM corrections WHERE status='pending'"),
        "total": store.value("SELECT count(*) FROM corrections"),
    }
    week_ago = iso(now - timedelta(days=7))
    out["audit_last_7_days"] = {
        r["action"]: r["n"]
        for r in store.rows(
            "SELECT action, count(*) AS n FROM memory_audit_log WHERE timestamp >= ? AND action != 'dry_run'"
            " GROUP BY action ORDER BY n DESC",
            (week_ago,),
        )
    }
    # Which coding agent (claude, codex, gemini) the hooks served, and what the gate did for each.
    by_agent: dict = {}
    for r in store.rows(
        "SELECT agent, action, count(*) AS n FROM memory_audit_log WHERE timestamp >= ? AND agent IS NOT NULL"
        " AND action IN ('hook', 'hook_error', 'enforce_block', 'enforce_warn', 'enforce_ask') GROUP BY agent, action",
        (week_ago,),
    ):
        counts = by_agent.setdefault(r["agent"], {"hook_calls": 0, "blocks": 0, "warns": 0, "errors": 0})
        key = {"hook": "hook_calls", "hook_error": "errors", "enforce_block": "blocks"}.get(r["action"], "warns")
        counts[key] += r["n"]
    out["by_agent_last_7_days"] = by_agent
    out["agent_stores"] = {
        "incidents_open": store.value("SELECT count(*) FROM incidents WHERE status = 'open'"),
        "incidents_resolved": store.value("SELECT count(*) FROM incidents WHERE status = 'resolved'"),
        "reports": store.value("SELECT count(*) FROM session_reports"),
        "metrics": store.value("SELECT count(DISTINCT name) FROM metric_samples"),
        "metric_samples": store.value("SELECT count(*) FROM metric_samples"),
    }
    out["llm_tokens"] = _llm_tokens(store)
    from .maintenance import stats as maintenance_stats

    out.update(maintenance_stats.collect(store))
    return out


# The audit log's action names as a person reads them (``stats``); a name not listed is shown
# with its underscores as spaces. Dry runs (``enforce``, ``rules test``) are not activity.
ACTION_WORDS = {
    "add": "added",
    "update": "updated",
    "delete": "deleted",
    "archive": "archived",
    "hook": "hook calls",
    "hook_error": "hook failures (let through)",
    "enforce_block": "blocked",
    "enforce_warn": "warned",
    "enforce_ask": "asked",
    "enforce_suggest": "suggested",
    "enforce_overrun": "calls with rules left unchecked",
    "verify_fail": "rule violations",
    "inject": "context injections",
    "supersede": "superseded",
    "pin": "pinned",
    "unpin": "unpinned",
    "share": "shared",
    "unshare": "unshared",
    "decay": "decay runs",
    "backup": "backups",
    "maintenance": "maintenance runs",
    "llm_call": "model calls",
    "summarize": "summaries",
    "import": "imports",
    "baseline_abnormal": "abnormal run times",
    "repo_load": "repository rules loaded",
}


def _llm_tokens(store: Store, days: int = 30) -> dict:
    """Tokens the session-memory model spent, per day and per session (:mod:`.llm.spend`)."""
    from .llm import spend
    from .settings import load

    return spend.summary(store, load(), days=days)


def overview(store: Store, days: int = 30) -> dict:
    """The dashboard's overview page: entry counts, gate activity per day, hook latency and the
    correction funnel over the last ``days`` days."""
    from .maintenance.stats import hook_latency

    return {
        "counts": {
            "total": int(store.value("SELECT count(*) FROM memory_entries") or 0),
            "by_type": _counts(store, "type"),
            "by_scope": _counts(store, "scope"),
            "by_status": _counts(store, "status", "1=1"),
        },
        "enforcement": enforcement_per_day(store, days),
        "hook_latency_ms": hook_latency(store, days=days),
        "funnel": correction_funnel(store),
        "llm_tokens": _llm_tokens(store, days),
        "days": days,
    }


def action_words(action: str) -> str:
    return ACTION_WORDS.get(action) or action.replace("_", " ")


# What the gate did, per day: a block denied a call, a warn let it through with a note, a
# violation is a call that went through and broke a rule (counted after the fact).
ENFORCEMENT_SERIES = {
    "blocks": ("enforce_block",),
    "warns": ("enforce_warn", "enforce_ask"),
    "violations": ("verify_fail",),
}


def enforcement_per_day(store: Store, days: int = 30, now: datetime | None = None) -> dict:
    """``{"days": [YYYY-MM-DD ...], "blocks": [...], "warns": [...], "violations": [...]}``,
    oldest day first, ``days`` days ending today (UTC), zeros included."""
    now = now or datetime.now(timezone.utc)
    first = (now - timedelta(days=days - 1)).date()
    labels = [(first + timedelta(days=i)).isoformat() for i in range(days)]
    index = {d: i for i, d in enumerate(labels)}
    out: dict = {"days": labels}
    actions = [a for names in ENFORCEMENT_SERIES.values() for a in names]
    marks = ",".join("?" * len(actions))
    counts = {
        (r["d"], r["action"]): r["n"]
        for r in store.rows(
            f"SELECT substr(timestamp, 1, 10) AS d, action, count(*) AS n FROM memory_audit_log"
            f" WHERE action IN ({marks}) AND timestamp >= ? GROUP BY d, action",
            [*actions, labels[0]],
        )
    }
    for series, names in ENFORCEMENT_SERIES.items():
        values = [0] * days
        for (d, action), n in counts.items():
            if action in names and d in index:
                values[index[d]] += n
        out[series] = values
    return out


def correction_funnel(store: Store) -> dict:
    """Captured corrections, how many became proposed rules, how many a person approved."""
    return {
        "captured": store.value("SELECT count(*) FROM corrections") or 0,
        "proposed": store.value(
            "SELECT count(*) FROM corrections WHERE status IN ('promoted', 'approved') OR promoted_to IS NOT NULL"
        )
        or 0,
        "approved": store.value("SELECT count(*) FROM corrections WHERE status = 'approved'") or 0,
        "rejected": store.value("SELECT count(*) FROM corrections WHERE status = 'rejected'") or 0,
    }


def rule_last_fired(store: Store) -> dict:
    """``{rule id: timestamp}`` of the last time each rule matched a tool call."""
    return {
        r["entry_id"]: r["t"]
        for r in store.rows(
            "SELECT entry_id, max(timestamp) AS t FROM memory_audit_log WHERE entry_id IS NOT NULL"
            " AND (action LIKE 'enforce\\_%' ESCAPE '\\' OR action = 'verify_fail') GROUP BY entry_id"
        )
    }
