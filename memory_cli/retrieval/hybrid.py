"""Hybrid retrieval on the real store: keyword (FTS5) and vector (sqlite-vec via the daemon)
evidence fused on the fixed 0-1 scale of :mod:`.fusion`, then filtered by scope and type.

Why each step (measured on LoCoMo, scripts/locomo_experiments/RESULTS.md):
- Both sides return a deep candidate list (300): neighbour context and the boosts below can lift
  a memory that neither side ranked near the top on its own.
- Neighbours are the memories recorded just before and after in the same session (same
  ``session_id``, insertion order). A memory often answers or continues the one before it ("use
  uv" right after "pip is slow in CI"), so the previous memory's keyword match counts for it, and
  relevant neighbours raise it a little.
- A query that names a memory's ``subject``, or a date on which the memory was recorded, is
  strong evidence that BM25 cannot see (names in many memories have almost no IDF).
- "What did we decide not to do" questions raise decisions that record a rejected alternative.
- Confidence and recency scale the result (relevance x recency x confidence).

When the daemon is cold or slow (``timeout_ms``) or vectors are missing, the keyword signal
alone is used on the same scale, so thresholds keep their meaning. Hooks call this: standard
library + apsw at module level; the daemon client is imported only when vectors are wanted.
"""

from __future__ import annotations

import time

from . import concepts, fts, fusion

CANDIDATES = 300
MODES = ("hybrid", "keyword", "vector")

# Migration 5: the ranking index, the store's one FTS index (migration 8 dropped the foundation's
# memory_fts it replaced): content, tags, subject (rowid = memory_entries.rowid) plus ``context``: for an entry recorded in a
# session, the content of the entry recorded just before it in that session (the question an
# answer answers, the problem a fix fixes). One table rather than a second one beside memory_fts:
# BM25 over both columns together scored clearly better on LoCoMo (R@5 .706-.713 vs .69-.70),
# because a memory whose context is long is length-normalised as one document. Triggers keep it in
# step with inserts, edits and deletions (a deleted memory's text must not linger as context).
# The session index serves neighbour lookups, which would otherwise scan the table.
_PREV = (
    "(SELECT p.{col} FROM memory_entries p WHERE p.session_id = {e}.session_id AND p.rowid < {e}.rowid "
    "ORDER BY p.rowid DESC LIMIT 1)"
)
_NEXT = (
    "(SELECT n.rowid FROM memory_entries n WHERE n.session_id = {e}.session_id AND n.rowid > {e}.rowid "
    "ORDER BY n.rowid LIMIT 1)"
)
RANK_TABLE = "memory_rank_fts"
M006 = [
    "CREATE INDEX IF NOT EXISTS idx_entries_session ON memory_entries(session_id)",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {RANK_TABLE} USING fts5("
    "content, tags, subject, context, tokenize = 'porter unicode61 remove_diacritics 2')",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_rank_insert AFTER INSERT ON memory_entries BEGIN
        INSERT INTO {RANK_TABLE}(rowid, content, tags, subject, context)
        VALUES (new.rowid, new.content, new.tags, coalesce(new.subject, ''),
                CASE WHEN new.session_id IS NULL THEN '' ELSE coalesce({_PREV.format(col="content", e="new")}, '') END);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_rank_update AFTER UPDATE OF content, tags, subject ON memory_entries BEGIN
        UPDATE {RANK_TABLE} SET content = new.content, tags = new.tags, subject = coalesce(new.subject, '')
        WHERE rowid = new.rowid;
        UPDATE {RANK_TABLE} SET context = new.content
        WHERE new.session_id IS NOT NULL AND old.content IS NOT new.content AND rowid = {_NEXT.format(e="new")};
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS memory_entries_rank_delete AFTER DELETE ON memory_entries BEGIN
        DELETE FROM {RANK_TABLE} WHERE rowid = old.rowid;
        UPDATE {RANK_TABLE} SET context = coalesce({_PREV.format(col="content", e="old")}, '')
        WHERE old.session_id IS NOT NULL AND rowid = {_NEXT.format(e="old")};
    END""",
]


def _backfill_sql() -> str:
    return (
        f"INSERT INTO {RANK_TABLE}(rowid, content, tags, subject, context) "
        f"SELECT e.rowid, e.content, e.tags, coalesce(e.subject, ''), "
        f"CASE WHEN e.session_id IS NULL THEN '' ELSE coalesce({_PREV.format(col='content', e='e')}, '') END "
        f"FROM memory_entries e"
    )


def apply_schema(store) -> None:
    for statement in M006:
        store.execute(statement)
    store.execute(f"DELETE FROM {RANK_TABLE}")
    store.execute(_backfill_sql())


def rebuild_index(store) -> int:
    """Rebuild the ranking index from the entries (after a restore, or if ``doctor`` finds drift)."""
    with store.transaction():
        if not store.table_exists(RANK_TABLE):
            apply_schema(store)
        else:
            store.execute(f"DELETE FROM {RANK_TABLE}")
            store.execute(_backfill_sql())
        return int(store.value(f"SELECT count(*) FROM {RANK_TABLE}") or 0)


# ----------------------------------------------------------------------------- settings


def weights_from(settings) -> fusion.Weights:
    """Ranking weights with the ``retrieval`` section of the config applied (missing = default)."""
    from ..settings import value as setting

    w = fusion.DEFAULT
    changes = {}
    for key, field in (
        ("keyword_weight", "keyword"),
        ("confidence_weight", "confidence"),
        ("recency_weight", "recency"),
    ):
        value = setting(settings, f"retrieval.{key}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            weight = min(1.0, max(0.0, float(value)))
            if weight != getattr(w, field):
                changes[field] = weight
    return w.replace(**changes) if changes else w


def _timeout(settings, timeout_ms):
    if timeout_ms is not None:
        return float(timeout_ms)
    from ..settings import value as setting

    try:
        return float(setting(settings, "daemon.request_timeout_ms"))
    except (AttributeError, TypeError, ValueError):
        return float(setting(None, "daemon.request_timeout_ms"))


# ----------------------------------------------------------------------------- filters


def _filters(*, scope, type, project, include_inactive, root=None) -> tuple[str, list]:
    from .filters import entry_filters

    return entry_filters(scope=scope, type=type, project=project, include_inactive=include_inactive, root=root)


# ----------------------------------------------------------------------------- the two sides


def query_vector(text: str, timeout_ms: float, model: str | None = None) -> bytes | None:
    """The query's vector from the warm daemon, or None (cold, slow, not installed, or a daemon
    running another model than the stored vectors')."""
    try:
        from ..daemon import client

        vecs = client.embed([text], timeout_ms, model=model)
    except Exception:  # the daemon is optional: any failure means keyword search
        return None
    return vecs[0] if vecs else None


class _PendingVector:
    """The query's vector, asked of the daemon in a thread while the keyword side reads the
    store: the round trip (~14 ms) is a wait on a socket, and the keyword side takes about as
    long, so doing both at once takes one of them off every search. The thread only talks to
    the daemon, never to the store. :meth:`result` is ``None`` when the store's vector table
    cannot be read (nothing is asked) or the daemon does not answer in time.

    ``_thread`` rather than ``threading``: the hooks search too, and ``threading`` costs 3 ms
    to import. A ``_thread`` thread does not hold up the process's exit, and the request has
    its own timeout."""

    __slots__ = ("model", "_done", "_vector")

    def __init__(self, store, text: str, timeout_ms: float):
        self.model = None
        self._done = None
        self._vector = None
        try:
            from ..embeddings import vectors

            self.model = vectors.table_model(store)
        except Exception:
            return
        import _thread

        done = _thread.allocate_lock()
        done.acquire()

        def ask():
            try:
                self._vector = query_vector(text, timeout_ms, self.model)
            finally:
                done.release()

        self._done = done
        _thread.start_new_thread(ask, ())

    def result(self, timeout_ms: float) -> bytes | None:
        if self._done is None:
            return None
        if self._done.acquire(timeout=timeout_ms / 1000.0 + 0.05):
            self._done.release()
        return self._vector


def vector_cosines(
    store, text: str, *, timeout_ms: float, k: int = CANDIDATES, pending: _PendingVector | None = None
) -> dict[str, float] | None:
    """``{entry id: cosine}`` of the nearest active entries, or None when vectors are unavailable.

    ``pending``: the query's vector already asked for (see :class:`_PendingVector`)."""
    if pending is None:
        pending = _PendingVector(store, text, timeout_ms)
    qv = pending.result(timeout_ms)
    if qv is None:
        return None
    try:
        from ..embeddings import vectors

        hits = vectors.search(store, qv, k)
    except Exception:
        return None
    return dict(hits) if hits else None


def neighbours(store, ids) -> dict[str, tuple[str | None, str | None]]:
    """``{id: (previous id, next id)}`` within each entry's session (active entries only)."""
    ids = list(ids)
    out: dict[str, tuple[str | None, str | None]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows = store.rows(
            "SELECT e.id AS id,"
            " (SELECT p.id FROM memory_entries p WHERE p.session_id = e.session_id AND p.rowid < e.rowid"
            "  AND p.status = 'active' ORDER BY p.rowid DESC LIMIT 1) AS prev,"
            " (SELECT n.id FROM memory_entries n WHERE n.session_id = e.session_id AND n.rowid > e.rowid"
            "  AND n.status = 'active' ORDER BY n.rowid LIMIT 1) AS next"
            f" FROM memory_entries e WHERE e.session_id IS NOT NULL AND e.id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for r in rows:
            out[r["id"]] = (r["prev"], r["next"])
    return out


# ----------------------------------------------------------------------------- ranking


def _age_days(entry: dict, now: float) -> float | None:
    ts = entry.get("reinforced_at") or entry.get("created_at")
    if not ts:
        return None
    try:
        from ..util import parse_iso

        stamp = parse_iso(ts).timestamp()
        return max(0.0, (now - stamp) / 86400.0)
    except (ValueError, TypeError):
        return None


def search(
    store,
    text: str,
    *,
    scope: str | None = None,
    type: str | None = None,
    limit: int = 10,
    project: str | None = None,
    files=(),
    min_score: float | None = None,
    timeout_ms: float | None = None,
    mode: str = "hybrid",
    settings=None,
    weights: fusion.Weights | None = None,
    include_inactive: bool = False,
    candidates: int | None = None,
    root: str | None = None,
) -> list[dict]:
    """Entries relevant to ``text``, best first, each with ``score`` on the 0-1 scale.

    ``mode``: ``hybrid`` (vectors when the daemon answers within ``timeout_ms``, else keywords),
    ``keyword`` or ``vector`` (only that signal, same pipeline; [] when vectors are unavailable).
    ``project``/``files`` restrict to memories that apply there (global, the project's, the
    files'); ``scope`` restricts to that scope plus global. The result dicts are the public entry
    shape plus ``score``.
    """
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}")
    if not text or not text.strip() or limit <= 0:
        return []
    if settings is None:
        from .. import settings as settings_mod

        settings = settings_mod.load()
    w = weights or weights_from(settings)
    depth = max(int(candidates or CANDIDATES), limit * 3)
    cands = gather(
        store,
        text,
        scope=scope,
        type=type,
        project=project,
        files=files,
        mode=mode,
        settings=settings,
        timeout_ms=timeout_ms,
        include_inactive=include_inactive,
        depth=depth,
        root=root,
    )
    if cands is None:
        return []
    scored = rank(cands, w, min_score=min_score)
    top = scored[:limit]
    full = {e["id"]: e for e in _rows(store, [i for i, _s in top], "", [])}
    out = []
    for i, score in top:
        e = full[i]
        e["score"] = round(score, 4)
        out.append(e)
    return out


class Candidates:
    """Everything the ranking needs about one query, read from the store once.

    Split from :func:`rank` so that a benchmark can score many weightings of the same evidence
    without re-reading the store (the ranking itself is pure Python over these fields).
    """

    __slots__ = (
        "text",
        "mode",
        "keyword",
        "cosines",
        "around",
        "previous",
        "rows",
        "dates",
        "asks_rejected",
        "asks_when",
        "instances",
        "now",
        "_terms",
        "_cues",
    )

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def gather(
    store,
    text: str,
    *,
    scope=None,
    type=None,
    project=None,
    files=(),
    mode="hybrid",
    settings=None,
    timeout_ms=None,
    include_inactive=False,
    depth=CANDIDATES,
    root=None,
) -> Candidates | None:
    """Read the candidates of ``text`` from the store: keyword and vector evidence, session
    neighbours and the scoring columns (None when nothing can be found, e.g. vector mode cold)."""
    where, params = _filters(scope=scope, type=type, project=project, include_inactive=include_inactive, root=root)
    keyword: dict[str, float] = {}
    instances = concepts.instances(text)
    pending = _PendingVector(store, text, _timeout(settings, timeout_ms)) if mode != "keyword" else None
    if mode != "vector":
        keyword = fts.keyword_scores(store, text, limit=depth, where=where, params=params)
        if instances:  # memories naming a tool of the concept asked about are candidates too
            for k in fts.search(store, instances, limit=depth, where=where, params=params):
                keyword.setdefault(k, 0.0)
    # While the daemon computes the query's vector, read what the keyword side found.
    around = neighbours(store, list(keyword))
    got = {r["id"]: r for r in _rows(store, _with_next(keyword, around), where, params, columns=_SCORING_COLUMNS)}
    cosines = None
    if mode != "keyword":
        cosines = vector_cosines(store, text, timeout_ms=_timeout(settings, timeout_ms), k=depth, pending=pending)
        if cosines is None and mode == "vector":
            return None
        around.update(neighbours(store, [k for k in cosines or () if k not in around]))
    previous = {k: p for k, (p, _n) in around.items()}
    for k, (_p, n) in around.items():  # an entry found only through its matching predecessor
        if n and k in keyword and n not in previous:
            previous[n] = k
    ids = list(dict.fromkeys([*keyword, *(cosines or {}), *previous]))
    missing = [i for i in ids if i not in got]
    if missing:
        got.update((r["id"], r) for r in _rows(store, missing, where, params, columns=_SCORING_COLUMNS))
    rows = [got[i] for i in ids if i in got]
    if files or project is not None or root:
        from .. import scope as scopes

        proj = scopes.normalize_project(project) if project else None
        rows = [
            r
            for r in rows
            if not r["scope"].startswith(("file:", "repo:")) or scopes.applies(r["scope"], proj, list(files), root)
        ]
    return Candidates(
        text=text,
        mode=mode,
        keyword=keyword,
        cosines=cosines,
        around=around,
        previous=previous,
        rows=[dict(r) for r in rows],
        dates=fusion.query_dates(text),
        asks_rejected=fusion.asks_for_rejected(text),
        asks_when=fusion.asks_when(text),
        instances=instances,
        now=time.time(),
    )


def _with_next(keyword, around) -> list[str]:
    """The keyword hits plus the entry after each (found through its matching predecessor)."""
    out = dict.fromkeys(keyword)
    for k in keyword:
        n = (around.get(k) or (None, None))[1]
        if n:
            out.setdefault(n)
    return list(out)


def _cues_of(c: Candidates) -> dict:
    """Per candidate, the query-dependent cues that no weight changes (computed once). Subjects
    and days repeat across hundreds of candidates (a session's memories share both), so each
    distinct one is tested once."""
    if c._cues is None:
        named: dict = {}
        dated: dict = {}

        def names(subject):
            got = named.get(subject)
            if got is None:
                got = named[subject] = bool(subject) and fusion.names_subject(c.text, subject)
            return got

        def on_day(created):
            day = (created or "")[:10]
            got = dated.get(day)
            if got is None:
                got = dated[day] = fusion.date_matches(created, c.dates)
            return got

        c._cues = {
            e["id"]: (
                names(e["subject"]),
                bool(c.dates) and on_day(e["created_at"]),
                c.asks_rejected
                and e["type"] == "decision"
                and fusion.records_rejection(e["content"], _tags(e["tags"])),
                c.asks_when and fusion.mentions_time(e["content"]),
                bool(c.instances) and concepts.names_instance(e["content"], c.instances),
            )
            for e in c.rows
        }
    return c._cues


def _terms_of(c: Candidates):
    """A candidate's words (the query tokenizer's), computed on first use and kept."""
    if c._terms is None:
        c._terms = {}
    contents = None

    def terms(k: str) -> list[str]:
        nonlocal contents
        got = c._terms.get(k)
        if got is None:
            if contents is None:
                contents = {e["id"]: e["content"] for e in c.rows}
            got = c._terms[k] = fts.query_terms(contents.get(k) or "")
        return got

    return terms


def rank(c: Candidates, w: fusion.Weights, *, min_score: float | None = None) -> list[tuple[str, float]]:
    """``[(entry id, score)]`` best first: the fused 0-1 relevance of every candidate."""
    vec01 = fusion.vector_scores(c.cosines, w) if c.cosines is not None else None
    keyword = c.keyword
    if keyword:
        keyword = fusion.with_context(keyword, c.previous, w.keyword_context)
    if c.mode == "vector":
        base = fusion.fuse({}, vec01, 0.0)
    else:
        base = fusion.fuse(keyword, vec01, w.keyword)
    cues = _cues_of(c)
    # a memory naming a tool of the concept asked about counts even without a shared word
    base = {k: s for k, s in base.items() if s > 0.0 or (c.instances and w.concept > 0 and k in cues and cues[k][4])}
    if not base:
        return []
    rel = fusion.neighbour_bonus(base, c.around, w.neighbours)
    cued = {}
    for e in c.rows:
        r = rel.get(e["id"])
        if r is None:
            continue
        subject, date, rejected, timed, concept = cues[e["id"]]
        if subject:
            r = fusion.close_gap(r, w.subject)
        if date:
            r = fusion.close_gap(r, w.date)
        if rejected:
            r = fusion.close_gap(r, w.rejected)
        if timed:
            r = fusion.close_gap(r, w.temporal)
        if concept:
            r = fusion.close_gap(r, w.concept)
        cued[e["id"]] = r
    if w.feedback > 0:
        cued = fusion.feedback_bonus(cued, _terms_of(c), fts.query_terms(c.text), w.feedback)
    scored = []
    # Confidence and age repeat across candidates (a session's memories share both): each
    # distinct pair's factor is computed once. Same values as fusion.final_score.
    factors: dict = {}
    for e in c.rows:
        r = cued.get(e["id"])
        if r is None:
            continue
        ts = (e.get("reinforced_at") or e.get("created_at")) if w.recency > 0 else None
        key = (e["confidence"], ts)
        f = factors.get(key)
        if f is None:
            age = _age_days(e, c.now) if ts else None
            f = factors[key] = fusion.final_score(1.0, confidence=e["confidence"], age_days=age, weights=w)
        score = fusion.calibrate(r) * f
        if min_score is not None and score < min_score:
            continue
        scored.append((-score, -(e["confidence"] or 0.0), e["id"]))
    scored.sort()
    return [(i, -s) for s, _c, i in scored]


_SCORING_COLUMNS = (
    "e.id, e.scope, e.type, e.subject, e.created_at, e.reinforced_at, e.confidence, e.content, e.tags, e.session_id"
)


def _tags(raw) -> list:
    from ..fastjson import loads

    try:
        value = loads(raw or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _rows(store, ids: list[str], where: str, params: list, columns: str | None = None) -> list[dict]:
    """Entries by id passing ``where``: public dicts, or just ``columns`` when scoring."""
    from ..entries import decode

    out = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        sql = f"SELECT {columns or 'e.*'} FROM memory_entries e WHERE e.id IN ({','.join('?' * len(chunk))})"
        if where:
            sql += " AND " + where
        rows = store.rows(sql, [*chunk, *params])
        out.extend(rows if columns else (decode(r) for r in rows))
    return out
