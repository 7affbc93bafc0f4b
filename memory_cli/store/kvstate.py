"""Small state in the store's ``kv`` table, the one module that reads or writes that table.

Last decay run, where pins are written, team sync marks, cache seals, the LLM call count and
the like: kept in the database rather than in files so that a backup or restore carries it along
with the entries it describes. Values are JSON (:func:`get`, :func:`put`), or text written as
given (:func:`raw`, :func:`put_raw`: digests and numbers that other code reads back as text).

Cheap to import (``fastjson``, no :mod:`json` package): the hook path reads seals and flags here.
"""

from __future__ import annotations

from memory_cli.fastjson import dumps, loads
from memory_cli.util import now_iso

_SELECT = "SELECT value FROM kv WHERE key = ?"
_UPSERT = (
    "INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)"
    " ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
)


def get(store, key: str, default=None):
    raw_value = store.value(_SELECT, (key,))
    if raw_value is None:
        return default
    try:
        return loads(raw_value)
    except ValueError:
        return raw_value


def put(store, key: str, value) -> None:
    store.execute(_UPSERT, (key, dumps(value, ensure_ascii=False), now_iso()))


def raw(store, key: str) -> str | None:
    """The stored text of ``key`` as written, undecoded (None: absent)."""
    return store.value(_SELECT, (key,))


def exists(store, key: str) -> bool:
    """Whether ``key`` is set: one primary-key read, nothing decoded."""
    return store.value("SELECT 1 FROM kv WHERE key = ?", (key,)) is not None


def put_raw(store, key: str, text: str | None, *, gate: bool = True) -> None:
    """Store ``text`` as given. ``gate=False`` writes past the redaction gate, on the store's
    connection: only for values that cannot hold a secret (digests), where the gate's import
    would cost a hook its time."""
    if gate:
        store.execute(_UPSERT, (key, text, now_iso()))
    else:
        store.conn.execute(_UPSERT, (key, text, now_iso()))


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """A value a hook set while another process held the write lock (see memory_cli.store.spool)."""
    put(store, str(args.get("key")), args.get("value"))


def delete(store, key: str) -> None:
    store.execute("DELETE FROM kv WHERE key = ?", (key,))


def delete_prefix(store, prefix: str, keep: str | None = None) -> None:
    """Delete every key starting with ``prefix``, except ``keep``."""
    store.execute("DELETE FROM kv WHERE key >= ? AND key < ? AND key IS NOT ?", (prefix, prefix + "\uffff", keep))


def with_prefix(store, prefix: str) -> dict:
    """``{key without the prefix: value}`` for every key starting with ``prefix``."""
    out = {}
    for r in store.rows("SELECT key, value FROM kv WHERE key >= ? AND key < ?", (prefix, prefix + "\uffff")):
        try:
            out[r["key"][len(prefix) :]] = loads(r["value"])
        except (TypeError, ValueError):
            out[r["key"][len(prefix) :]] = r["value"]
    return out


def put_rule_generation(store, key: str) -> None:
    """``key`` set to the rule set's current generation, read and written in one statement on
    the connection itself: memory-cli's confirmation of the rules (:mod:`memory_cli.confirmation`)
    runs inside rule changes, where the store's own write helpers would nest a transaction."""
    store.conn.execute(
        "INSERT INTO kv(key, value, updated_at) SELECT ?, generation, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        " FROM rules_state WHERE id = 1"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        (key,),
    )
