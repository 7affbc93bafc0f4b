"""Search entry points, the one retrieval vocabulary every surface uses.

:func:`query` is the ranked hybrid retrieval (:mod:`.hybrid`): what ``memory-cli query``,
injection, the dashboard and agent tools call. :func:`keyword_search` is plain BM25 over the same
FTS5 index (``memory_rank_fts``), the retrieval that always works. Words are split by one
tokenizer and one stop-word list (:func:`.fts.query_terms`), quoted and OR-ed, so a person's free
text can never become FTS5 syntax. Scores are positive: higher is better everywhere.
"""

from __future__ import annotations

from ..entries import check_type, decode
from ..store.db import Store
from . import fts, hybrid
from .filters import entry_filters

terms = fts.query_terms
STOP_WORDS = fts.STOP_WORDS

__all__ = ["query", "look_up", "keyword_search", "terms", "entry_filters", "STOP_WORDS"]


def keyword_search(
    store: Store,
    text: str,
    *,
    scope: str | None = None,
    type: str | None = None,
    limit: int = 10,
    include_inactive: bool = False,
    candidates: int | None = None,
) -> list[dict]:
    """Entries matching ``text`` best first, each with ``score`` (positive BM25).

    ``scope`` restricts to what applies in that scope: the scope itself plus global memories
    (for a file scope, also memories of that exact file).
    """
    expr = fts.match_expression(fts.query_terms(text))
    if expr is None:
        return []
    filters, params = entry_filters(scope=scope, type=type, include_inactive=include_inactive)
    table, rank = fts.RANK_TABLE, fts.RANK_BM25
    sql = (
        f"SELECT e.*, -{rank} AS score FROM {table} JOIN memory_entries e ON e.rowid = {table}.rowid "
        f"WHERE {table} MATCH ?" + (" AND " + filters if filters else "") + f" ORDER BY {rank} LIMIT ?"
    )
    out = []
    for r in store.rows(sql, [expr, *params, int(candidates or limit)]):
        d = decode(r)
        d["score"] = round(float(r["score"]), 6)
        out.append(d)
    return out[:limit]


def query(
    store: Store,
    text: str,
    *,
    scope: str | None = None,
    type: str | None = None,
    limit: int = 10,
    project: str | None = None,
    files=(),
    min_score: float | None = None,
    timeout_ms: float | None = None,
    use_vectors: bool = True,
    root: str | None = None,
) -> list[dict]:
    """Hybrid retrieval, best first.

    Every result has ``score`` on the documented 0-1 relevance scale: keyword and vector evidence
    fused on absolute scales, times confidence and recency. Vectors are used when the embedding
    daemon answers within ``timeout_ms`` (config ``daemon.request_timeout_ms`` by default);
    otherwise, or with ``use_vectors=False``, keywords alone on the same scale.
    """
    if type:
        check_type(type)
    return hybrid.search(
        store,
        text,
        scope=scope,
        type=type,
        limit=limit,
        project=project,
        files=files,
        min_score=min_score,
        timeout_ms=timeout_ms,
        mode="hybrid" if use_vectors else "keyword",
        root=root,
    )


def look_up(store: Store, text: str, **kw) -> list[dict]:
    """:func:`query` on behalf of someone who will use what it finds: ``memory-cli query`` and
    the agent's ``query_memory`` tool. Each memory returned counts as used (``use_count``,
    ``last_used``), as an injection does, so a memory the agent keeps looking up neither
    decays as idle nor is evicted from the pins as least recently used. (Duplicate checks
    and the dashboard's browsing search call :func:`query` and count nothing.)"""
    from ..entries import mark_used
    from ..errors import StoreRefused
    from ..store.db import LockBusy

    results = query(store, text, **kw)
    try:
        mark_used(store, [r["id"] for r in results if r.get("id")])
    except (StoreRefused, LockBusy) as e:  # a full disk or a busy writer: the answer still stands
        store.warn(f"these results were not counted as used ({str(e).splitlines()[0][:160]})")
    return results
