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

    Returns one warning line per pinned file that could not be rewritten."""
    if not any(e and e.get("pinned") for e in entries_touched):
        return []
    try:
        from .maintenance import pins
    except ImportError:
        return []
    out = []
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
