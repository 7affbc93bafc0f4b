"""Entry vectors in the memory database: a sqlite-vec ``vec0`` table fed by a queue.

Why a queue: the model lives in the daemon and is often cold or absent (no semantic extra, a
fresh boot), and adding a memory must never wait for PyTorch. So triggers on ``memory_entries``
(migration 4) put every new entry, every content or status change and every deletion into
``memory_vec_queue``, whatever code path wrote it. :func:`index_entry` embeds at once when the
daemon is warm; otherwise the entry stays queued and the daemon (when its model is ready) or
``memory-cli reindex`` drains the queue later. Nothing is ever lost, only delayed.

Why triggers do not touch the vector table: ``vec0`` exists only in connections that loaded the
extension, and a trigger naming it would make every write fail in a connection that had not.
The queue is a plain table, so writes work everywhere.

``memory_vec`` holds vectors of *active* entries only (archived, superseded and deleted ones
are removed when the queue is drained); :func:`search` also filters by status so that a change
not yet drained never leaks an inactive entry. Vectors are float32 little endian, normalised;
the table uses cosine distance and :func:`search` reports cosine similarity clamped to 0-1.
The model name and dimension the vectors were made with are kept in ``kv`` so that a changed
``embedding.model`` is noticed (``doctor``) and fixed by ``reindex`` instead of silently mixing
two vector spaces.

Standard library only at module level (plus what :mod:`memory_cli.store.db` already imports): the
hook path imports this to search.
"""

from __future__ import annotations

import math
import struct
import time

VEC_TABLE = "memory_vec"
QUEUE_TABLE = "memory_vec_queue"
KV_MODEL = "vectors.model"
KV_DIM = "vectors.dim"
MAX_K = 4096  # sqlite-vec's limit for k in one KNN query
MAX_ATTEMPTS = 5  # an entry the model keeps failing on stops blocking the queue

_NOW_SQL = "strftime('%Y-%m-%dT%H:%M:%fZ','now')"
_ENQUEUE = (
    f"INSERT INTO {QUEUE_TABLE}(entry_id, queued_at) VALUES (@ID, {_NOW_SQL}) "
    "ON CONFLICT(entry_id) DO UPDATE SET gen = gen + 1, queued_at = excluded.queued_at, "
    "attempts = 0, last_error = NULL"
)

M004_VECTORS = [
    f"""CREATE TABLE IF NOT EXISTS {QUEUE_TABLE} (
        entry_id   TEXT PRIMARY KEY,
        gen        INTEGER NOT NULL DEFAULT 1,
        queued_at  TEXT NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        last_error TEXT
    )""",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_vec_insert AFTER INSERT ON memory_entries BEGIN
        {_ENQUEUE.replace("@ID", "new.id")};
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_vec_update
        AFTER UPDATE OF content, status ON memory_entries
        WHEN old.content IS NOT new.content OR old.status IS NOT new.status BEGIN
        {_ENQUEUE.replace("@ID", "new.id")};
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_vec_delete AFTER DELETE ON memory_entries BEGIN
        {_ENQUEUE.replace("@ID", "old.id")};
    END""",
    f"""INSERT OR IGNORE INTO {QUEUE_TABLE}(entry_id, queued_at)
        SELECT id, {_NOW_SQL} FROM memory_entries WHERE status = 'active'""",
]


class VectorsUnavailable(RuntimeError):
    """sqlite-vec cannot be loaded into this connection (vectors are then simply not used)."""


class VectorsStale(RuntimeError):
    """Stored vectors come from another model or size: ``memory-cli reindex`` rebuilds them."""


def apply_schema(store) -> None:
    """Migration 4: the queue table and the triggers that feed it (no extension needed)."""
    for statement in M004_VECTORS:
        store.execute(statement)


# --------------------------------------------------------------------------- small helpers


def cosine(a: bytes, b: bytes) -> float:
    """Cosine similarity of two float32 little-endian vectors (stdlib only; 0.0 if unusable)."""
    n = len(a) // 4
    if n == 0 or len(a) != len(b) or len(a) % 4:
        return 0.0
    fa = struct.unpack(f"<{n}f", a)
    fb = struct.unpack(f"<{n}f", b)
    dot = math.fsum(x * y for x, y in zip(fa, fb))
    na = math.sqrt(math.fsum(x * x for x in fa))
    nb = math.sqrt(math.fsum(y * y for y in fb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)


def _kv_get(store, key: str):
    from ..store import kvstate

    try:
        return kvstate.raw(store, key)
    except Exception:
        return None


def _kv_set(store, key: str, value) -> None:
    from ..store import kvstate

    kvstate.put_raw(store, key, None if value is None else str(value))


def has_queue(store) -> bool:
    return store.table_exists(QUEUE_TABLE)


def vec_ready(store) -> bool:
    """sqlite-vec loaded into this connection and the vector table created."""
    return store.load_vec() and store.table_exists(VEC_TABLE)


def table_dim(store) -> int | None:
    value = _kv_get(store, KV_DIM)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def table_model(store) -> str | None:
    return _kv_get(store, KV_MODEL)


def ensure_table(store, dim: int, model: str | None) -> None:
    """Create the vector table for ``dim``-sized vectors of ``model`` if it does not exist.

    Raises :class:`VectorsStale` when the table holds vectors of another size or model.
    """
    if not store.load_vec():
        raise VectorsUnavailable("sqlite-vec could not be loaded")
    if store.table_exists(VEC_TABLE):
        have_dim, have_model = table_dim(store), table_model(store)
        if have_dim == dim and (model is None or have_model in (None, model)):
            if model and have_model is None:
                _kv_set(store, KV_MODEL, model)
            return
        if store.value(f"SELECT count(*) FROM {VEC_TABLE}") == 0:
            store.execute(f"DROP TABLE {VEC_TABLE}")
        else:
            raise VectorsStale(
                f"stored vectors were made by {have_model or 'another model'} ({have_dim} "
                f"dimensions), not {model} ({dim}); run `memory-cli reindex`"
            )
    store.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VEC_TABLE} USING vec0("
        f"entry_id TEXT PRIMARY KEY, embedding float[{int(dim)}] distance_metric=cosine)"
    )
    _kv_set(store, KV_DIM, int(dim))
    _kv_set(store, KV_MODEL, model)


def pending_count(store) -> int:
    if not has_queue(store):
        return 0
    return int(store.value(f"SELECT count(*) FROM {QUEUE_TABLE} WHERE attempts < ?", (MAX_ATTEMPTS,)) or 0)


# --------------------------------------------------------------------------- writing


def _write(store, done: list[tuple[str, int, bytes]], removed: list[tuple[str, int]], model: str | None) -> None:
    """Store vectors and removals, and dequeue them unless they were re-queued meanwhile."""
    with store.transaction():
        if done:
            ensure_table(store, len(done[0][2]) // 4, model)
        have_table = store.table_exists(VEC_TABLE) and store.load_vec()
        for eid, gen, vec in done:
            store.execute(f"DELETE FROM {VEC_TABLE} WHERE entry_id = ?", (eid,))
            store.execute(f"INSERT INTO {VEC_TABLE}(entry_id, embedding) VALUES (?, ?)", (eid, vec))
            store.execute(f"DELETE FROM {QUEUE_TABLE} WHERE entry_id = ? AND gen = ?", (eid, gen))
        for eid, gen in removed:
            if have_table:
                store.execute(f"DELETE FROM {VEC_TABLE} WHERE entry_id = ?", (eid,))
            store.execute(f"DELETE FROM {QUEUE_TABLE} WHERE entry_id = ? AND gen = ?", (eid, gen))


def _queued(store, limit: int, ids=None) -> list[dict]:
    sql = (
        f"SELECT q.entry_id, q.gen, e.content, e.status FROM {QUEUE_TABLE} q "
        "LEFT JOIN memory_entries e ON e.id = q.entry_id WHERE q.attempts < ?"
    )
    params: list = [MAX_ATTEMPTS]
    if ids is not None:
        sql += f" AND q.entry_id IN ({','.join('?' * len(ids))})"
        params += list(ids)
    sql += " ORDER BY q.queued_at, q.entry_id LIMIT ?"
    params.append(int(limit))
    return store.rows(sql, params)


def _process(store, rows: list[dict], embed, model: str | None) -> dict:
    """Embed one batch of queue rows with ``embed``; None from ``embed`` leaves them queued."""
    removed = [(r["entry_id"], r["gen"]) for r in rows if r["content"] is None or r["status"] != "active"]
    todo = [r for r in rows if r["content"] is not None and r["status"] == "active"]
    vectors: list[bytes] | None = []
    if todo:
        try:
            vectors = embed([r["content"] for r in todo])
        except Exception as e:  # the model choked on something: count it against these rows
            with store.transaction():
                store.executemany(
                    f"UPDATE {QUEUE_TABLE} SET attempts = attempts + 1, last_error = ? WHERE entry_id = ?",
                    [(f"{type(e).__name__}: {e}"[:500], r["entry_id"]) for r in todo],
                )
            raise
        if vectors is None or len(vectors) != len(todo):
            vectors, todo = None, []
    done = [(r["entry_id"], r["gen"], v) for r, v in zip(todo, vectors or [])]
    if done or removed:
        _write(store, done, removed, model)
    return {"embedded": len(done), "removed": len(removed), "cold": vectors is None}


def index_entries(store, entry_ids, *, timeout_ms: float | None = None) -> int:
    """Embed these entries now if the daemon is warm; otherwise they stay queued for backfill.

    Returns how many vectors were written. Never raises for a missing daemon or extension.
    """
    ids = [i for i in entry_ids if i]
    if not ids or not has_queue(store):
        return 0
    from ..daemon import client

    rows = _queued(store, len(ids), ids)
    if not rows:
        return 0
    if not store.load_vec():
        return 0
    wait = client.DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    try:
        model = table_model(store)
        res = _process(store, rows, lambda texts: client.embed(texts, wait, model=model), model)
    except (VectorsStale, VectorsUnavailable):
        return 0
    return res["embedded"]


def index_entry(store, entry_id: str, *, timeout_ms: float | None = None) -> bool:
    """Embed one entry now if the daemon is warm, else leave it queued. True if embedded."""
    return index_entries(store, [entry_id], timeout_ms=timeout_ms) > 0


def remove(store, entry_id: str) -> None:
    """Drop an entry's vector now (it is also dropped when the queue is next drained)."""
    with store.transaction():
        if store.table_exists(VEC_TABLE) and store.load_vec():
            store.execute(f"DELETE FROM {VEC_TABLE} WHERE entry_id = ?", (entry_id,))
        if has_queue(store) and store.value("SELECT 1 FROM memory_entries WHERE id = ?", (entry_id,)) is None:
            store.execute(f"DELETE FROM {QUEUE_TABLE} WHERE entry_id = ?", (entry_id,))


def request_backfill(store, db: str, timeout_ms: float) -> bool:
    """Ask a running daemon to drain ``db``'s queue now, if anything waits (one cheap query).

    The daemon also polls the databases it knows, but only every minute; whoever just queued
    entries (an import, a restore, a session start) calls this so they are searchable by meaning
    within seconds. Returns True when a daemon took the request; a daemon that is down is fine.
    """
    if not has_queue(store) or pending_count(store) == 0:
        return False
    from ..daemon import client, protocol

    return client.request(protocol.request("index", db=str(db)), timeout_ms) is not None


def drain(
    store, embed, *, model: str | None = None, batch: int = 32, max_batches: int | None = None, progress=None
) -> dict:
    """Embed queued entries with ``embed(texts) -> list[bytes] | None`` until the queue is empty.

    Used by the daemon (small batches, so hooks' requests interleave) and by ``reindex``.
    Stops early when ``embed`` returns None (daemon went cold). Raises VectorsStale when the
    stored vectors come from another model than ``model``.
    """
    if not has_queue(store):
        return {"embedded": 0, "removed": 0, "remaining": 0}
    if not store.load_vec():
        raise VectorsUnavailable("sqlite-vec could not be loaded")
    have = table_model(store)
    if (
        model
        and have
        and have != model
        and store.table_exists(VEC_TABLE)
        and store.value(f"SELECT count(*) FROM {VEC_TABLE}")
    ):
        raise VectorsStale(f"stored vectors were made by {have}, not {model}; run `memory-cli reindex`")
    total = {"embedded": 0, "removed": 0}
    batches = 0
    while max_batches is None or batches < max_batches:
        rows = _queued(store, batch)
        if not rows:
            break
        res = _process(store, rows, embed, model)
        batches += 1
        total["embedded"] += res["embedded"]
        total["removed"] += res["removed"]
        if progress is not None:
            progress(total["embedded"] + total["removed"])
        if res["cold"]:
            break
    total["remaining"] = pending_count(store)
    return total


def reindex(store, embed, *, model: str | None, full: bool = True, batch: int = 32, progress=None) -> dict:
    """Rebuild vectors: every active entry when ``full``, else only what is queued.

    A different model or vector size replaces the table; otherwise vectors are overwritten in
    place, so semantic search keeps working while a reindex runs.
    """
    if not store.load_vec():
        raise VectorsUnavailable("sqlite-vec could not be loaded (is the sqlite-vec package installed?)")
    t0 = time.monotonic()
    with store.transaction():
        if not has_queue(store):
            apply_schema(store)
        if store.table_exists(VEC_TABLE) and model and table_model(store) not in (None, model):
            store.execute(f"DROP TABLE {VEC_TABLE}")
            from ..store import kvstate

            for key in (KV_DIM, KV_MODEL):
                kvstate.delete(store, key)
            full = True
        if full:
            store.execute(
                f"INSERT INTO {QUEUE_TABLE}(entry_id, queued_at) SELECT id, {_NOW_SQL} FROM memory_entries "
                "WHERE status = 'active' ORDER BY created_at ON CONFLICT(entry_id) DO UPDATE SET gen = gen + 1, "
                "queued_at = excluded.queued_at, attempts = 0, last_error = NULL"
            )
            if store.table_exists(VEC_TABLE):  # vectors whose entry is gone or inactive
                store.execute(
                    f"DELETE FROM {VEC_TABLE} WHERE entry_id NOT IN "
                    "(SELECT id FROM memory_entries WHERE status = 'active')"
                )
        else:
            store.execute(f"UPDATE {QUEUE_TABLE} SET attempts = 0")
    queued = pending_count(store)
    try:
        res = drain(store, embed, model=model, batch=batch, progress=progress)
    except VectorsStale:
        # Only reached with full=False on a table of another model: rebuild everything.
        return reindex(store, embed, model=model, full=True, batch=batch, progress=progress)
    res.update(
        queued=queued,
        vectors=count(store),
        model=table_model(store),
        dim=table_dim(store),
        seconds=round(time.monotonic() - t0, 2),
    )
    return res


# --------------------------------------------------------------------------- reading


def count(store) -> int:
    if not vec_ready(store):
        return 0
    return int(store.value(f"SELECT count(*) FROM {VEC_TABLE}") or 0)


def search(store, query_vector: bytes, k: int) -> list[tuple[str, float]]:
    """Active entries nearest to ``query_vector``: ``[(entry_id, cosine 0-1), ...]`` best first.

    ``[]`` when sqlite-vec or the vectors are unavailable or the query has another size: the
    caller then ranks by keywords alone. Exact KNN (sqlite-vec scans; 11-13 ms at 11k vectors on 2
    cores).
    """
    if not query_vector or k <= 0:
        return []
    try:
        if not vec_ready(store):
            return []
        dim = table_dim(store)
        if dim is None or len(query_vector) != 4 * dim:
            return []
        # Vectors of entries archived or deleted since the queue was last drained still sit in
        # the table; ask for that many more so that filtering them out cannot shorten the list.
        stale = (
            store.value(
                f"SELECT count(*) FROM {QUEUE_TABLE} q LEFT JOIN memory_entries e ON e.id = q.entry_id "
                "WHERE e.id IS NULL OR e.status != 'active'"
            )
            if has_queue(store)
            else 0
        )
        kk = min(MAX_K, int(k) + int(stale or 0))
        rows = store.conn.execute(
            f"WITH knn AS (SELECT entry_id, distance FROM {VEC_TABLE} "
            "WHERE embedding MATCH ? AND k = ?) "
            "SELECT knn.entry_id, knn.distance FROM knn JOIN memory_entries e ON e.id = knn.entry_id "
            "WHERE e.status = 'active' ORDER BY knn.distance LIMIT ?",
            (query_vector, kk, int(k)),
        ).fetchall()
    except Exception:  # apsw errors, a damaged table: semantic search is optional
        return []
    # A zero vector has no direction: sqlite-vec gives NULL distance, which means no similarity.
    return [(eid, 0.0 if dist is None else max(0.0, min(1.0, 1.0 - float(dist)))) for eid, dist in rows]


def stats(store) -> dict:
    """For ``doctor``, ``stats`` and ``daemon status``: what is indexed and what waits."""
    loaded = store.load_vec()
    active = int(store.value("SELECT count(*) FROM memory_entries WHERE status = 'active'") or 0)
    failed = 0
    if has_queue(store):
        failed = int(store.value(f"SELECT count(*) FROM {QUEUE_TABLE} WHERE attempts >= ?", (MAX_ATTEMPTS,)) or 0)
    return {
        "sqlite_vec": loaded,
        "vectors": count(store) if loaded else 0,
        "active_entries": active,
        "queued": pending_count(store),
        "failed": failed,
        "model": table_model(store),
        "dim": table_dim(store),
    }
