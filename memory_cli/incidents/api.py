"""Record, search and resolve incidents.

Search ranks like memory retrieval, on the same 0-1 scale: the keyword signal is the share of
the query's weight (BM25 IDF) an incident matches, and when the embedding daemon is warm it is
fused with the cosine similarity of the incident's stored vector, exactly as memories are
(memory_cli.retrieval.fusion). Vectors are taken when an incident is recorded or resolved and
the daemon answers; an incident without one is still found by its words.
"""

from __future__ import annotations

from .. import audit, fields
from .. import scope as scopes
from ..errors import InvalidInput, NotFound
from ..settings import value as setting
from ..util import new_id, now_iso

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

SEVERITIES = ("critical", "high", "medium", "low")
#: The words alerting tools and agents use for a severity, mapped onto the four stored ones.
SEVERITY_WORDS = {
    "critical": ("crit", "fatal", "emergency", "emerg", "alert", "blocker", "disaster", "sev0", "sev1", "p0", "p1"),
    "high": ("error", "err", "major", "severe", "urgent", "sev2", "p2"),
    "medium": ("warning", "warn", "moderate", "average", "normal", "sev3", "p3"),
    "low": ("info", "information", "informational", "minor", "notice", "debug", "trivial", "sev4", "sev5", "p4", "p5"),
}
_SEVERITY_OF = {w: sev for sev, words in SEVERITY_WORDS.items() for w in (sev, *words)}


def normalize_severity(value) -> str:
    """One of :data:`SEVERITIES` for a severity as people, agents and alerting tools say it
    (``warning`` is medium, ``info`` low, ``P1`` critical); medium when none is given."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "medium"
    word = "".join(str(value).split()).lower().replace("-", "")
    if word in _SEVERITY_OF:
        return _SEVERITY_OF[word]
    raise InvalidInput(
        f"unknown severity {value!r}: use critical, high, medium or low (or a common word for one: "
        "fatal or P1, error or major, warning, info or minor)"
    )


STATUSES = ("open", "resolved")
PUBLIC = (
    "id",
    "title",
    "symptoms",
    "service",
    "severity",
    "cause",
    "resolution",
    "status",
    "scope",
    "session_id",
    "created_at",
    "updated_at",
    "resolved_at",
)
EMBED_TIMEOUT_MS = float(setting(None, "daemon.request_timeout_ms"))  # the hook's budget for the daemon
VECTOR_CANDIDATES = 500  # most recent incidents compared by meaning; older ones by words only


def _public(row: dict | None) -> dict | None:
    return None if row is None else {k: row.get(k) for k in PUBLIC}


def _text_of(row: dict) -> str:
    parts = [row.get("title"), row.get("symptoms"), row.get("service"), row.get("cause"), row.get("resolution")]
    return "\n".join(p for p in parts if p)


def _embed(texts: list[str], timeout_ms: float) -> list[bytes] | None:
    from ..daemon import client

    try:
        return client.embed(texts, timeout_ms)
    except Exception:  # noqa: BLE001 - no vector is fine: words still find it
        return None


def _set_vector(store, incident_id: str, timeout_ms: float = EMBED_TIMEOUT_MS) -> None:
    row = store.row("SELECT * FROM incidents WHERE id = ?", (incident_id,))
    vecs = _embed([_text_of(row)], timeout_ms)
    if vecs:
        store.execute("UPDATE incidents SET embedding = ? WHERE id = ?", (vecs[0], incident_id))


def record(
    store: Store,
    title,
    symptoms,
    *,
    service=None,
    severity=None,
    cause=None,
    resolution=None,
    scope=None,
    session_id=None,
    embed_timeout_ms: float = EMBED_TIMEOUT_MS,
) -> dict:
    """Store a new incident (resolved at once when a resolution is given)."""
    title = fields.text(store, title, "title", required=True, max_len=300)
    symptoms = fields.text(store, symptoms, "symptoms", required=True)
    service = fields.text(store, service, "service", max_len=200)
    cause = fields.text(store, cause, "cause")
    resolution = fields.text(store, resolution, "resolution")
    sev = normalize_severity(severity)
    sc = scopes.parse(scope)
    now = now_iso()
    iid = new_id()
    status = "resolved" if resolution else "open"
    with store.transaction():
        store.execute(
            "INSERT INTO incidents(id, title, symptoms, service, severity, cause, resolution, status, scope,"
            " session_id, created_at, updated_at, resolved_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                iid,
                title,
                symptoms,
                service,
                sev,
                cause,
                resolution,
                status,
                sc,
                fields.text(store, session_id, "session_id", max_len=200),
                now,
                now,
                now if resolution else None,
            ),
        )
        audit.record(
            store,
            "incident_record",
            context=title,
            result=status,
            details={"incident": iid, "severity": sev, "service": service},
            session_id=session_id,
        )
    if embed_timeout_ms > 0:
        _set_vector(store, iid, embed_timeout_ms)
    return get(store, iid)


def get(store: Store, ref: str) -> dict:
    ref = (ref or "").strip()
    if len(ref) < 4:
        raise NotFound(f"no incident {ref!r} (give at least 4 characters of its id)")
    from ..ids import like_prefix

    rows = store.rows("SELECT * FROM incidents WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 2", (ref, like_prefix(ref)))
    exact = [r for r in rows if r["id"] == ref]
    if exact:
        return _public(exact[0])
    if len(rows) != 1:
        raise NotFound(f"no incident {ref!r}" if not rows else f"incident id {ref!r} is ambiguous")
    return _public(rows[0])


def resolve(store: Store, ref: str, resolution, *, cause=None, session_id=None) -> dict:
    """Mark an incident resolved with what fixed it (a second resolution replaces the first,
    which stays in the audit log)."""
    inc = get(store, ref)
    text = fields.text(store, resolution, "resolution", required=True)
    cause_text = fields.text(store, cause, "cause")
    now = now_iso()
    with store.transaction():
        store.execute(
            "UPDATE incidents SET resolution = ?, cause = coalesce(?, cause), status = 'resolved',"
            " resolved_at = ?, updated_at = ? WHERE id = ?",
            (text, cause_text, now, now, inc["id"]),
        )
        audit.record(
            store,
            "incident_resolve",
            context=inc["title"],
            result="resolved",
            details={"incident": inc["id"], "previous_resolution": inc["resolution"]},
            session_id=session_id,
        )
    _set_vector(store, inc["id"])
    return get(store, inc["id"])


def list_incidents(store: Store, *, status=None, limit=50) -> list[dict]:
    where, params = "", []
    if status:
        where = "WHERE status = ?"
        params.append(fields.choice(status, "status", STATUSES))
    rows = store.rows(
        f"SELECT * FROM incidents {where} ORDER BY created_at DESC LIMIT ?", [*params, fields.limit(limit, 50, 10_000)]
    )
    return [_public(r) for r in rows]


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def search(
    store: Store,
    query,
    *,
    status=None,
    limit=5,
    scope=None,
    service=None,
    alert=None,
    timeout_ms: float = EMBED_TIMEOUT_MS,
    min_score: float = 0.15,
) -> list[dict]:
    """Incidents like ``query`` ("has this happened before?"), best first, each with ``score``.

    ``service`` keeps incidents of that service (any case); ``alert`` those whose title or
    symptoms name that alert (any case), since agents record an alert by its name. With a
    filter the query may be empty: the filtered incidents come newest first, with no score.
    """
    from ..embeddings.vectors import cosine
    from ..retrieval import fts, fusion

    svc = fields.text(None, service, "service", max_len=200)
    alert_name = fields.text(None, alert, "alert", max_len=300)
    text = fields.text(None, query, "query", required=not (svc or alert_name), max_len=2000)
    n = fields.limit(limit, 5, 100)
    where, params = [], []
    if status:
        where.append("i.status = ?")
        params.append(fields.choice(status, "status", STATUSES))
    if scope:
        where.append("(i.scope = 'global' OR i.scope = ?)")
        params.append(scopes.parse(scope))
    if svc:
        where.append("lower(trim(i.service)) = lower(?)")
        params.append(svc.strip())
    if alert_name:
        where.append("(i.title LIKE ? ESCAPE '\\' OR i.symptoms LIKE ? ESCAPE '\\')")
        params += [_like(alert_name.strip())] * 2
    cond = (" AND " + " AND ".join(where)) if where else ""
    if not text:
        rows = store.rows(
            "SELECT * FROM incidents i WHERE " + " AND ".join(where) + " ORDER BY i.created_at DESC LIMIT ?",
            [*params, n],
        )
        return [dict(_public(r), score=None) for r in rows]

    terms = fts.query_terms(text)
    keyword: dict[str, float] = {}
    expr = fts.match_expression(terms)
    if expr:
        rows = store.rows(
            "SELECT i.id AS id, -bm25(incidents_fts, 2.0, 1.0, 1.0, 0.5, 0.5) AS s FROM incidents_fts"
            " JOIN incidents i ON i.rowid = incidents_fts.rowid WHERE incidents_fts MATCH ?"
            + cond
            + " ORDER BY s DESC LIMIT 200",
            [expr, *params],
        )
        total = int(store.value("SELECT count(*) FROM incidents") or 0)
        idf = sum(
            fusion.query_term_idf(
                total,
                int(
                    store.value(
                        "SELECT count(*) FROM incidents_fts WHERE incidents_fts MATCH ?", (fts.match_expression([t]),)
                    )
                    or 0
                ),
            )
            for t in terms
        )
        # bm25 weights up to 2.0 on the title: halve so a full title match is ~1, like memories
        keyword = fusion.keyword_scores({r["id"]: float(r["s"]) / 2.0 for r in rows}, idf)

    vector = None
    qv = _embed([text], timeout_ms) if timeout_ms > 0 else None
    if qv:
        vector = {}
        rows = store.rows(
            "SELECT i.id AS id, i.embedding AS embedding FROM incidents i WHERE i.embedding IS NOT NULL"
            + cond
            + " ORDER BY i.created_at DESC LIMIT ?",
            [*params, VECTOR_CANDIDATES],
        )
        vector = fusion.vector_scores({r["id"]: cosine(qv[0], r["embedding"]) for r in rows})
    scores = fusion.fuse(keyword, vector)
    best = sorted(((s, i) for i, s in scores.items() if s >= min_score), reverse=True)[:n]
    out = []
    for s, iid in best:
        item = get(store, iid)
        item["score"] = round(s, 3)
        out.append(item)
    return out
