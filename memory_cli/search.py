"""Search entry points. :func:`query` is the ranked hybrid retrieval (memory_cli.retrieval.hybrid);
:func:`keyword_search` is plain BM25 over the FTS5 index, the retrieval that always works.

A person's query is free text, not FTS5 syntax: it is split into words, stop words dropped,
each word quoted (so ``-`` or ``:`` in it cannot become an operator) and the words OR-ed, so
that any overlap ranks and BM25 decides the order. Scores are made positive (BM25 is negative
in SQLite) so higher is better everywhere in memory-cli.
"""

from __future__ import annotations

import re

from . import scope as scopes
from .db import Store
from .entries import check_type, decode

_WORD = re.compile(r"[\w][\w.\-]*", re.UNICODE)

STOP_WORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can cannot could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself let me more most my myself no nor not of off on once only or other ought our ours
ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where
which while who whom why with would you your yours yourself yourselves will just did does don
""".split())


def terms(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.strip(".-")
        if w and w not in STOP_WORDS and w not in out:
            out.append(w)
    return out


def fts_query(text: str) -> str | None:
    ts = terms(text)
    if not ts:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in ts)


def entry_filters(*, scope: str | None = None, type: str | None = None, project: str | None = None,
                  include_inactive: bool = False, alias: str = "e") -> tuple[str, list]:
    """SQL over ``alias`` for status, type and scope, shared by every retrieval path.

    ``scope`` means "applies in that scope": the scope itself plus global memories. Without a
    scope, ``project`` keeps global, that project's and file-scoped entries (file scopes are
    matched against the files in play afterwards, in Python).
    """
    where, params = [], []
    if not include_inactive:
        where.append(f"{alias}.status = 'active'")
    if type:
        where.append(f"{alias}.type = ?")
        params.append(check_type(type))
    if scope:
        sc = scopes.parse(scope)
        if sc == scopes.GLOBAL:
            where.append(f"{alias}.scope = 'global'")
        else:
            where.append(f"({alias}.scope = 'global' OR {alias}.scope = ?)")
            params.append(sc)
    elif project is not None:
        sql, p = scopes.applicable_scopes_sql(scopes.normalize_project(project) if project else None, alias)
        where.append(sql)
        params.extend(p)
    return " AND ".join(where), params


def keyword_search(store: Store, text: str, *, scope: str | None = None, type: str | None = None,
                   limit: int = 10, include_inactive: bool = False, candidates: int | None = None) -> list[dict]:
    """Entries matching ``text`` best first, each with ``score`` (positive BM25).

    ``scope`` restricts to what applies in that scope: the scope itself plus global memories
    (for a file scope, also memories of that exact file).
    """
    q = fts_query(text)
    if q is None:
        return []
    filters, params = entry_filters(scope=scope, type=type, include_inactive=include_inactive)
    where = "memory_fts MATCH ?" + (" AND " + filters if filters else "")
    params = [q] + params + [int(candidates or limit)]
    sql = ("SELECT e.*, -bm25(memory_fts, 1.0, 0.5, 0.5) AS score FROM memory_fts "
           "JOIN memory_entries e ON e.rowid = memory_fts.rowid WHERE " + where +
           " ORDER BY bm25(memory_fts, 1.0, 0.5, 0.5) LIMIT ?")
    out = []
    for r in store.rows(sql, params):
        d = decode(r)
        d["score"] = round(float(r["score"]), 6)
        out.append(d)
    return out[:limit]


def query(store: Store, text: str, *, scope: str | None = None, type: str | None = None,
          limit: int = 10, project: str | None = None, files=(), min_score: float | None = None,
          timeout_ms: float | None = None, use_vectors: bool = True) -> list[dict]:
    """What ``memory-cli query`` and injection call: hybrid retrieval, best first.

    Every result has ``score`` on the documented 0-1 relevance scale (README, "Retrieval"): keyword
    and vector evidence fused on absolute scales, times confidence and recency. Vectors are used
    when the embedding daemon answers within ``timeout_ms`` (config ``daemon.request_timeout_ms``
    by default); otherwise, or with ``use_vectors=False``, keywords alone on the same scale.
    """
    from .retrieval import hybrid

    if type:
        check_type(type)
    return hybrid.search(store, text, scope=scope, type=type, limit=limit, project=project,
                         files=files, min_score=min_score, timeout_ms=timeout_ms,
                         mode="hybrid" if use_vectors else "keyword")
