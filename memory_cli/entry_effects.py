"""What follows a write to an entry outside the row itself: the vector index, CLAUDE.md pins and
the native rule copies.

Every edge that writes entries (CLI, web server) calls these after the domain write, so an
entry edited in the browser is searchable by meaning and its pinned block rewritten exactly as
when it is edited in the terminal. Both are best effort: the write is already committed, the
index is backfilled later and ``memory-cli pins --sync`` repairs pins.
"""

from __future__ import annotations

EDGE_EMBED_TIMEOUT_MS = 1000  # a person can wait a second for a busy daemon; a hook cannot


def index_now(store, *ids, timeout_ms: float = EDGE_EMBED_TIMEOUT_MS) -> None:
    """Embed at once when the daemon is warm; otherwise the queue is backfilled later.

    A cold or absent daemon answers at once either way; the longer limit only helps when the
    daemon is busy embedding something else."""
    try:
        from .embeddings import vectors
    except ImportError:
        return
    try:
        vectors.index_entries(store, list(ids), timeout_ms=timeout_ms)
    except Exception:  # the entry is stored and queued either way
        pass


def resync_pins(store, *entries_touched) -> list[str]:
    """A pinned entry changed: rewrite its CLAUDE.md block now, not at the next PreCompact.

    Returns one warning line per pinned file that could not be rewritten. A lesson with a Stop
    check among them: the judges in the settings follow too (:func:`resync_checks`)."""
    checks = resync_checks(store, *entries_touched)
    if not any(e and e.get("pinned") for e in entries_touched):
        return checks
    try:
        from .maintenance import pins
    except ImportError:
        return checks
    out = checks
    for report in pins.sync(store) or []:
        if isinstance(report, dict) and report.get("action") == "conflict":
            out.append(f"{report.get('path')}: {report.get('reason')}; see `memory-cli pins --sync`")
    return out


def resync_native(store) -> list[str]:
    """A rule changed: rewrite the native rule copies memory-cli wrote for each agent
    (:mod:`memory_cli.native`), and keep the rules as they now stand as the confirmed ones (when
    every change came through memory-cli). Returns one warning line per copy not rewritten."""
    try:
        from .rules import confirmed

        confirmed.refresh(store)
    except Exception:  # the rule set's next rebuild records them too
        pass
    try:
        from .native import sync
    except ImportError:
        return []
    try:
        return sync.follow(store)
    except Exception as err:  # the rule change is stored; `memory-cli doctor` reports drift
        return [f"native rule copies not updated: {err}"]


def resync_checks(store, *entries_touched) -> list[str]:
    """An approved lesson was edited, re-scoped, archived or deleted: the Stop checks' judges in
    the settings quote it, so they are rewritten (:mod:`memory_cli.checks.claude_settings`).
    Returns one warning line when they could not be."""
    ids = [e.get("id") for e in entries_touched if e and e.get("id")]
    if not ids:
        return []
    try:
        from .checks import claude_settings
        from .store import kvstate

        marks = ",".join("?" * len(ids))
        lesson = store.value(f"SELECT 1 FROM lesson_forms WHERE entry_id IN ({marks})", ids)
        if not lesson and not kvstate.exists(store, claude_settings.STATE_KEY):
            return []  # (a deleted lesson's row went with it: the judges written say whether to look)

        claude_settings.sync(store)
    except Exception as err:  # the entry change is stored; `memory-cli checks sync` retries
        return [f"Stop checks not rewritten: {err}"]
    return []
