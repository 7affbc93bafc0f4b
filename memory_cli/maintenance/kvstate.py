"""Small maintenance state in the store's ``kv`` table (last decay run, where pins are written).

Kept in the database rather than in files so that a backup or restore carries it along with the
entries it describes.
"""

from __future__ import annotations

import json

from memory_cli.util import now_iso


def get(store, key: str, default=None):
    raw = store.value("SELECT value FROM kv WHERE key = ?", (key,))
    if raw is None:
        return default
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def put(store, key: str, value) -> None:
    store.execute(
        "INSERT INTO kv(key, value, updated_at) VALUES (?,?,?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        (key, json.dumps(value, ensure_ascii=False), now_iso()),
    )


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """A value a hook set while another process held the write lock (see memory_cli.spool)."""
    put(store, str(args.get("key")), args.get("value"))


def delete(store, key: str) -> None:
    store.execute("DELETE FROM kv WHERE key = ?", (key,))


def with_prefix(store, prefix: str) -> dict:
    out = {}
    for r in store.rows("SELECT key, value FROM kv WHERE key >= ? AND key < ?", (prefix, prefix + "\uffff")):
        try:
            out[r["key"][len(prefix) :]] = json.loads(r["value"])
        except (TypeError, ValueError):
            out[r["key"][len(prefix) :]] = r["value"]
    return out
