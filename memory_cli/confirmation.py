"""Which rule-set generation memory-cli itself wrote: a change made by anything else shows.

Every change that can alter what the rules decide bumps ``rules_state.generation`` by a trigger
in the store (see :mod:`memory_cli.rules.schema`), whoever makes it: memory-cli, or a ``sqlite3``
call on the file. Each connection memory-cli opens also carries a TEMP trigger (it exists only
in that connection, so no other program's connection has it) that copies the new generation to
``kv['rules.confirmed-generation']``, as long as the state it changed was itself confirmed.
So the two numbers agree exactly while every change came through memory-cli; a change made
outside it leaves the generation ahead of the confirmed one, and later changes through
memory-cli do not paper over it: only the person's ``memory-cli rules accept-changes`` (or a
restore) confirms the state again. ``rules_state.changed_at`` says when the last change was made.

This detects, it does not prevent: a process that knows this bookkeeping can rewrite the
confirmed number too. Keeping the store out of the agent's reach is the sandbox's job
(``install --harden``); this makes what gets through visible. Store layer, ``apsw`` only.
"""

from __future__ import annotations

KEY = "rules.confirmed-generation"

_TRIGGER = (
    "CREATE TEMP TRIGGER IF NOT EXISTS memory_cli_confirms AFTER UPDATE OF generation ON main.rules_state"
    f" WHEN (SELECT value FROM main.kv WHERE key = '{KEY}') IS NULL"
    f" OR CAST((SELECT value FROM main.kv WHERE key = '{KEY}') AS INTEGER) = old.generation"
    f" BEGIN INSERT INTO main.kv(key, value, updated_at) VALUES ('{KEY}', new.generation,"
    " strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
    " ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at; END"
)


def watch(conn) -> bool:
    """Give this connection the confirming trigger; False when the store has no rule state yet
    (a new file before its migrations: called again after them)."""
    try:
        conn.execute(_TRIGGER)
        return True
    except Exception:
        return False


def state(store) -> tuple[int, int | None, str | None]:
    """(generation, the confirmed generation or None, when the rules last changed or None)."""
    row = store.row("SELECT generation, changed_at FROM rules_state WHERE id = 1")
    confirmed = store.value("SELECT value FROM kv WHERE key = ?", (KEY,))
    return int(row["generation"]), (int(confirmed) if confirmed is not None else None), row.get("changed_at")


def confirm(store) -> None:
    """The current rules are what the person wants (their word, or a fresh store)."""
    from .store import kvstate

    kvstate.put_rule_generation(store, KEY)
