"""The store file's own state, as `doctor` reports it: SQLite's integrity check, the schema
version, the journal mode and the sqlite-vec version. These read pragmas and functions of the
database itself, not a table, so they sit beside the store rather than in any area."""

from __future__ import annotations


def integrity_problems(store) -> list[str]:
    """What ``PRAGMA integrity_check`` reports: ``["ok"]`` for a sound file."""
    return [r["integrity_check"] for r in store.rows("PRAGMA integrity_check")]


def schema_version(store) -> int:
    """The migration the file is at (``PRAGMA user_version``)."""
    return store.value("PRAGMA user_version")


def journal_mode(store) -> str:
    """``wal`` when several sessions may write at once; anything else is a fault to report."""
    return store.value("PRAGMA journal_mode")


def vec_version(store) -> str | None:
    """The loaded sqlite-vec's version, or None when it does not load into ``store``."""
    return store.value("SELECT vec_version()") if store.load_vec() else None
