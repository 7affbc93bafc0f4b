"""Migration 2: what enforcement rules need beyond the foundation's table.

- ``conditions``: extra field conditions that must all hold (hookify's ``conditions``, or
  "only in src/" for a derived rule), JSON list of {field, operator, pattern}.
- ``name``: a short label (hookify's rule name); ``hook_events``: JSON list limiting a rule to
  some hook events (imported ``stop``/``prompt`` rules), empty = tool calls;
  ``source_ref``: the file a rule was imported from, so re-importing updates instead of
  duplicating; ``analysis``: the pattern's precomputed analysis (JSON), so hooks never re-parse.
- ``rules_state``: one row with a ``generation`` counter bumped by triggers on every change
  that can alter what the rule set decides, and a random ``salt`` that tells two databases
  apart. Hooks compare them with their cached compiled rule set: one primary-key read per call
  instead of re-reading and re-compiling every rule (the failure measured at 150-250 ms per call
  in a popular plugin). It is per-database state, not data: export/import leave it alone.
"""

from __future__ import annotations

import os

from ..util import now_iso

NEW_COLUMNS = [
    ("conditions", "TEXT NOT NULL DEFAULT '[]'"),
    ("name", "TEXT"),
    ("hook_events", "TEXT NOT NULL DEFAULT '[]'"),
    ("source_ref", "TEXT"),
    ("analysis", "TEXT"),
]

_BUMP = "UPDATE rules_state SET generation = generation + 1 WHERE id = 1;"

TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS rules_gen_insert AFTER INSERT ON enforcement_rules BEGIN {_BUMP} END",
    f"CREATE TRIGGER IF NOT EXISTS rules_gen_delete AFTER DELETE ON enforcement_rules BEGIN {_BUMP} END",
    # Not last_violation_at: counting a violation must not invalidate every hook's cache.
    f"CREATE TRIGGER IF NOT EXISTS rules_gen_update AFTER UPDATE OF pattern, pattern_type, "
    f"action, severity, alternative, active, message, tools, fields, case_sensitive, "
    f"provenance, confirmed, conditions, name, hook_events, analysis ON enforcement_rules "
    f"BEGIN {_BUMP} END",
    f"CREATE TRIGGER IF NOT EXISTS rules_gen_entry_update AFTER UPDATE OF content, scope, "
    f"status, type ON memory_entries WHEN old.type = 'rule' OR new.type = 'rule' "
    f"BEGIN {_BUMP} END",
    f"CREATE TRIGGER IF NOT EXISTS rules_gen_entry_delete AFTER DELETE ON memory_entries "
    f"WHEN old.type = 'rule' BEGIN {_BUMP} END",
]


def apply_schema(store) -> None:
    cols = {r["name"] for r in store.rows("PRAGMA table_info(enforcement_rules)")}
    for name, ddl in NEW_COLUMNS:
        if name not in cols:
            store.execute(f"ALTER TABLE enforcement_rules ADD COLUMN {name} {ddl}")
    store.execute(
        "CREATE INDEX IF NOT EXISTS idx_rules_source_ref ON enforcement_rules(source_ref) WHERE source_ref IS NOT NULL"
    )
    store.execute(
        "CREATE TABLE IF NOT EXISTS rules_state (id INTEGER PRIMARY KEY CHECK (id = 1),"
        " generation INTEGER NOT NULL DEFAULT 0, salt TEXT NOT NULL, created_at TEXT NOT NULL)"
    )
    store.execute(
        "INSERT OR IGNORE INTO rules_state(id, generation, salt, created_at) VALUES (1, 0, ?, ?)",
        (os.urandom(8).hex(), now_iso()),
    )
    for ddl in TRIGGERS:
        store.execute(ddl)


def apply_change_time_schema(store) -> None:
    """Migration: ``rules_state.changed_at``, set by the same triggers that bump the generation
    (so a change made outside memory-cli carries its time too), and the current rules confirmed
    as they stand (see :mod:`memory_cli.confirmation`)."""
    from .. import confirmation

    cols = {r["name"] for r in store.rows("PRAGMA table_info(rules_state)")}
    if "changed_at" not in cols:
        store.execute("ALTER TABLE rules_state ADD COLUMN changed_at TEXT")
    stamped = _BUMP.replace(
        "generation = generation + 1", "generation = generation + 1, changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    )
    for ddl in TRIGGERS:
        name = ddl.split("EXISTS ", 1)[1].split(" ", 1)[0]
        store.execute(f"DROP TRIGGER IF EXISTS {name}")
        store.execute(ddl.replace(_BUMP, stamped))
    confirmation.confirm(store)
    from .confirmed import record
    from .rows import ROWS_SQL as _ROWS_SQL

    record(store, int(store.value("SELECT generation FROM rules_state WHERE id = 1")), store.rows(_ROWS_SQL))
