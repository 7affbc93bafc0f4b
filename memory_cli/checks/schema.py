"""The ``lesson_forms`` table: the form of enforcement the person chose for each approved lesson."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store.db import Store

FORMS = ("rule", "reminder", "ask", "stop-check", "advice")


def apply_schema(store: Store) -> None:
    """Migration: one row per approved lesson that has a form; the lesson's text and scope stay
    in ``memory_entries`` (its owner), so an edit or a scope change is seen at once."""
    store.execute(
        "CREATE TABLE IF NOT EXISTS lesson_forms ("
        " entry_id TEXT PRIMARY KEY REFERENCES memory_entries(id) ON DELETE CASCADE,"
        " form TEXT NOT NULL CHECK (form IN ('rule','reminder','ask','stop-check','advice')),"
        " check_kind TEXT,"  # stop-check: a deterministic kind (commit_after_edit, ...) or 'judge'
        " tools TEXT NOT NULL DEFAULT '[]',"  # reminder: the tools it goes beside
        " project_root TEXT,"  # a project lesson: the checkout whose settings hold its judge
        " created_at TEXT NOT NULL, updated_at TEXT NOT NULL)"
    )
