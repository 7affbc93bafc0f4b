"""The SQL words that write: a statement that changes a database (``insert``, ``drop``,
``vacuum``, ...) or a function that changes something through it (``writefile`` writes a file,
``load_extension`` runs a library's code).

One list for both readers of SQL an agent runs: :mod:`.python_effects` (the text a snippet hands
to ``execute``) and :mod:`.protected_state` (``sqlite3`` on the store, an interpreter's text).
Whole lowercase words; each reader decides how a word counts in its own text.
"""

from __future__ import annotations

SQL_WRITE_WORDS = frozenset(
    {
        "insert",
        "update",
        "delete",
        "drop",
        "alter",
        "create",
        "replace",
        "attach",
        "detach",
        "vacuum",
        "reindex",
        "analyze",
        "load_extension",
        "writefile",
        "fts3_tokenizer",
    }
)
