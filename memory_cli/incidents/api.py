"""Incidents: record, resolve, list and search ("has this happened before?").

Search ranks incidents with the same machinery as memories (memory_cli.retrieval): FTS5 BM25
normalised by the query words' IDF, the query's vector from the warm embedding daemon compared
with the incident's stored vector, fused and calibrated onto the same 0-1 scale by
``retrieval.fusion``. When the daemon is cold, keywords alone on the same scale, as for memories.
Every text field passes the redaction gate. Nothing here deletes: resolving keeps the incident.
"""

from __future__ import annotations

import array
import time

from .. import audit
from .. import scope as scopes
from ..db import Store
from ..errors import InvalidInput, NotFound
from ..journal import fields
from ..retrieval import fts, fusion
from ..util import new_id, now_iso, parse_iso

SEVERITIES = ("critical", "high", "medium", "low")
STATUSES = ("open", "resolved")
SOURCES = ("manual", "agent", "hook", "imported")
PUBLIC = ("id", "title", "symptoms", "service", "severity", "cause", "resolution", "status", "scope",
          "source", "session_id", "created_at", "updated_at", "resolved_at")
_COLUMNS = ", ".join(PUBLIC)
VECTOR_CANDIDATES = 2000


def _public(row: dict | None) -> dict | None:
    return None if row is None else {k: row.get(k) for k in PUBLIC}


def check_severity(value) -> str:
    s = (value or "medium").strip().lower() if isinstance(value, str) or value is None else None
    if s not in SEVERITIES:
        raise InvalidInput(f"unknown severity {value!r}: use one of {', '.join(SEVERITIES)}")
    return s


def check_status(value) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    s = value.strip().lower() if isinstance(value, str) else None
    if s not in STATUSES + ("all",):
        raise InvalidInput(f"unknown incident status {value!r}: use open, resolved or all")
    return None if s == "all" else s


def _embed_text(inc: dict) -> str:
    return " ".join(x for x in (inc.get("title"), inc.get("symptoms"), inc.get("cause"),
                                inc.get("resolution")) if x)


def _vector(text: str, timeout_ms: float) -> bytes | None:
    from ..retrieval.hybrid import query_vector

    return query_vector(text, timeout_ms) if timeout_ms > 0 else None


def record_incident(store: Store, title, symptoms, *, service=None, severity=None, cause=None,
                    resolution=None, scope="global", source: str = "manual",
                    session_id: str | None = None, embed_timeout_ms: float = 0) -> dict:
    """Store an incident (resolved at once when a resolution is given) and return it."""
    t = fields.text(title, "title", required=True, max_len=300)
    sy = fields.text(symptoms, "symptoms", required=True)
    sv = fields.text(service, "service", max_len=200)
    sev = check_severity(severity)
    ca = fields.text(cause, "cause")
    res = fields.text(resolution, "resolution")
    sc = scopes.parse(scope)
    src = (source or "").strip().lower()
    if src not in SOURCES:
        raise InvalidInput(f"unknown incident source {source!r}: use one of {', '.join(SOURCES)}")
    iid, now = new_id(), now_iso()
    row = {"title": t, "symptoms": sy, "cause": ca, "resolution": res}
    vec = _vector(_embed_text(row), embed_timeout_ms)
    with store.transaction():
        store.execute(
            "INSERT INTO incidents(id, title, symptoms, service, severity, cause, resolution, status,"
            " scope, source, session_id, created_at, updated_at, resolved_at, embedding)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (iid, t, sy, sv, sev, ca, res, "resolved" if res else "open", sc, src, session_id,
             now, now, now if res else None, vec))
        audit.record(store, "incident_record", entry_id=iid, result=sev,
                     details={"service": sv, "status": "resolved" if res else "open"},
                     session_id=session_id)
    return get_incident(store, iid)


def resolve_incident(store: Store, ref, resolution, *, cause=None, session_id: str | None = None,
                     embed_timeout_ms: float = 0) -> dict:
    """Mark an incident resolved with what fixed it (re-resolving replaces the resolution)."""
    res = fields.text(resolution, "resolution", required=True)
    ca = fields.text(cause, "cause")
    inc = get_incident(store, ref)
    merged = dict(inc, resolution=res, cause=ca or inc["cause"])
    vec = _vector(_embed_text(merged), embed_timeout_ms)
    now = now_iso()
    with store.transaction():
        store.execute(
            "UPDATE incidents SET resolution = ?, cause = ?, status = 'resolved', updated_at = ?,"
            " resolved_at = ?, embedding = coalesce(?, embedding) WHERE id = ?",
            (res, merged["cause"], now, now, vec, inc["id"]))
        audit.record(store, "incident_resolve", entry_id=inc["id"], result="resolved",
                     details={"was": inc["status"]}, session_id=session_id)
    return get_incident(store, inc["id"])


def get_incident(store: Store, ref) -> dict:
    r = ref.strip() if isinstance(ref, str) else ""
    if not r:
        raise InvalidInput("incident id is empty")
    rows = store.rows(f"SELECT {_COLUMNS} FROM incidents WHERE id = ? OR id LIKE ? LIMIT 2", (r, r + "%"))
    exact = [x for x in rows if x["id"] == r]
    if exact:
        return exact[0]
    if not rows:
        raise NotFound(f"no incident {r!r}")
    if len(rows) > 1:
        raise InvalidInput(f"incident id prefix {r!r} is ambiguous")
    return rows[0]


def list_incidents(store: Store, *, status=None, limit=50) -> list[dict]:
    st = check_status(status)
    n = fields.limit(limit, default=50, maximum=10_000)
    if st:
        return store.rows(f"SELECT {_COLUMNS} FROM incidents WHERE status = ? ORDER BY created_at DESC"
                          " LIMIT ?", (st, n))
    return store.rows(f"SELECT {_COLUMNS} FROM incidents ORDER BY created_at DESC LIMIT ?", (n,))


def counts(store: Store) -> dict:
    rows = store.rows("SELECT status, count(*) AS n FROM incidents GROUP BY status")
    out = {"open": 0, "resolved": 0}
    out.update({r["status"]: r["n"] for r in rows})
    return out


# ----------------------------------------------------------------------------- search

def _keyword(store: Store, terms: list[str], where: str, params: list, depth: int) -> dict[str, float]:
    expr = fts.match_expression(terms)
    if not expr:
        return {}
    rows = store.rows(
        "SELECT i.id AS id, -bm25(incident_fts, 1.0, 1.0, 0.7, 0.7, 0.5) AS s FROM incident_fts"
        " JOIN incidents i ON i.rowid = incident_fts.rowid WHERE incident_fts MATCH ?"
        + (f" AND {where}" if where else "") + " ORDER BY bm25(incident_fts, 1.0, 1.0, 0.7, 0.7, 0.5)"
        " LIMIT ?", [expr, *params, depth])
    raw = {r["id"]: float(r["s"]) for r in rows}
    if not raw:
        return {}
    n = int(store.value("SELECT count(*) FROM incidents") or 0)
    idf = 0.0
    for t in terms:
        df = int(store.value("SELECT count(*) FROM incident_fts WHERE incident_fts MATCH ?",
                             (fts._phrase(t),)) or 0)
        idf += fusion.query_term_idf(n, df)
    return fusion.keyword_scores(raw, idf)


def _cosines(store: Store, qv: bytes, where: str, params: list) -> dict[str, float]:
    q = array.array("f")
    q.frombytes(qv)
    out = {}
    for r in store.rows("SELECT i.id AS id, i.embedding AS v FROM incidents i WHERE i.embedding IS NOT NULL"
                        + (f" AND {where}" if where else "") + " ORDER BY i.created_at DESC LIMIT ?",
                        [*params, VECTOR_CANDIDATES]):
        v = array.array("f")
        v.frombytes(r["v"])
        if len(v) == len(q):
            out[r["id"]] = sum(a * b for a, b in zip(q, v))
    return out


def search_incidents(store: Store, query, *, status=None, limit=10, timeout_ms: float = 150,
                     min_score: float = 0.0) -> list[dict]:
    """Incidents relevant to ``query`` best first, each with ``score`` (0-1, as for memories)."""
    text = query.strip() if isinstance(query, str) else None
    if not text:
        raise InvalidInput("query is empty: describe the symptom or error to look for")
    st = check_status(status)
    n = fields.limit(limit, default=10, maximum=100)
    where, params = ("i.status = ?", [st]) if st else ("", [])
    keyword = _keyword(store, fts.query_terms(text), where, params, max(50, n * 5))
    qv = _vector(text, timeout_ms)
    vector = fusion.vector_scores(_cosines(store, qv, where, params)) if qv else None
    base = fusion.fuse(keyword, vector)
    ranked = [(k, s) for k, s in base.items() if s > 0]
    if not ranked:
        return []
    rows = {r["id"]: r for r in store.rows(
        f"SELECT {_COLUMNS} FROM incidents WHERE id IN ({','.join('?' * len(ranked))})",
        [k for k, _ in ranked])}
    now = time.time()
    out = []
    for k, s in ranked:
        r = rows.get(k)
        if r is None:
            continue
        created = parse_iso(r["created_at"])
        age = (now - created.timestamp()) / 86400 if created else None
        score = fusion.final_score(s, confidence=1.0, age_days=age)
        if score >= min_score:
            out.append(dict(r, score=round(score, 4)))
    out.sort(key=lambda d: d["score"], reverse=True)
    return out[:n]
