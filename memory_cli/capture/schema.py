"""Migration 3 (capture): what correction counting and marker parsing need beyond the foundation's schema.

- ``corrections.statement``: the one-line form shown to Claude and the person ("use pnpm, not
  npm"); the foundation's columns keep only the parts.
- ``corrections.embedding``: the statement's vector when the embedding daemon was warm at
  capture time, so the next phrasing can be compared by meaning without re-embedding every
  stored correction inside a hook.
- ``corrections.repeats`` (migration 19): the person's words, session and time of each later
  prompt counted on a correction (a repeat matched by its parts, or a prompt the agent said is
  that lesson again with ``same_as``), the last ``MAX_REPEATS`` of them, redacted: review lists
  every time an instruction was said, not only the first.
- ``capture_marker_seen``: markers already processed in a session. A Stop hook that blocks
  (or a transcript re-read) shows the same turn twice; without this the agent's one
  observation would reinforce itself.
"""

from __future__ import annotations


def _columns(store, table: str) -> set[str]:
    return {r["name"] for r in store.rows(f"PRAGMA table_info({table})")}


def apply_schema(store) -> None:
    cols = _columns(store, "corrections")
    if "statement" not in cols:
        store.execute("ALTER TABLE corrections ADD COLUMN statement TEXT")
    if "embedding" not in cols:
        store.execute("ALTER TABLE corrections ADD COLUMN embedding BLOB")
    store.execute(
        "CREATE TABLE IF NOT EXISTS capture_marker_seen ("
        " session_id TEXT NOT NULL, fingerprint TEXT NOT NULL, seen_at TEXT NOT NULL,"
        " PRIMARY KEY (session_id, fingerprint))"
    )
    store.execute("CREATE INDEX IF NOT EXISTS idx_corrections_seen ON corrections(status, last_seen_at)")


def apply_repeats_schema(store) -> None:
    if "repeats" not in _columns(store, "corrections"):
        store.execute("ALTER TABLE corrections ADD COLUMN repeats TEXT")
