"""Audit-log retention: the log explains recent behaviour; kept forever it only grows.

Rows older than ``audit.retention_days`` are removed in small batches so that a first prune
of a large log never holds the write lock long enough to make a hook wait.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_cli.util import iso

BATCH = 2000


def cutoff(days: int, now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    return iso(now - timedelta(days=days))


def prune_audit_log(store, days: int, *, now: datetime | None = None) -> int:
    """Delete audit rows older than ``days``; returns how many went."""
    before = cutoff(days, now)
    removed = 0
    while True:
        with store.transaction():
            n = store.execute(
                "DELETE FROM memory_audit_log WHERE rowid IN "
                "(SELECT rowid FROM memory_audit_log WHERE timestamp < ? LIMIT ?)",
                (before, BATCH),
            )
        removed += n
        if n < BATCH:
            return removed
