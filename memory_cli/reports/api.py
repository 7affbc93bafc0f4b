"""The report archive. Each report is one row: a short ``summary`` (what SessionStart injects)
and optional ``details``; both pass the redaction gate. Reports are append-only: a newer report
for the same scope supersedes an older one only in :func:`latest_report`, never by deletion.
"""

from __future__ import annotations

from .. import audit
from .. import scope as scopes
from ..db import Store
from ..errors import InvalidInput, NotFound
from ..journal import fields
from ..util import new_id, now_iso

MAX_SUMMARY = 4_000
SOURCES = ("agent", "llm", "manual", "hook", "imported", "session")


def _scope(scope) -> str:
    if scope is None or (isinstance(scope, str) and not scope.strip()):
        raise InvalidInput("scope is required: global or project:<name>")
    return scopes.parse(scope)


def save_report(store: Store, summary, *, details=None, scope, session_id: str | None = None,
                source: str = "agent") -> dict:
    """Store a report and return it as a dict (id, scope, summary, details, session_id, source,
    created_at)."""
    text = fields.text(summary, "summary", required=True, max_len=MAX_SUMMARY)
    more = fields.text(details, "details")
    sc = _scope(scope)
    src = (source or "").strip().lower()
    if src not in SOURCES:
        raise InvalidInput(f"unknown report source {source!r}: use one of {', '.join(SOURCES)}")
    rid = new_id()
    with store.transaction():
        store.execute(
            "INSERT INTO session_reports(id, scope, summary, details, session_id, source, created_at)"
            " VALUES (?,?,?,?,?,?,?)", (rid, sc, text, more, session_id, src, now_iso()))
        audit.record(store, "report_save", entry_id=rid, result=src, details={"scope": sc},
                     session_id=session_id)
    return get_report(store, rid)


def latest_report(store: Store, scope) -> dict | None:
    """The newest report for exactly ``scope`` (no fallback to global), or None."""
    sc = _scope(scope)
    return store.row("SELECT * FROM session_reports WHERE scope = ? ORDER BY created_at DESC, rowid DESC"
                     " LIMIT 1", (sc,))


def list_reports(store: Store, *, scope=None, limit: int = 20) -> list[dict]:
    n = fields.limit(limit, default=20, maximum=1000)
    if scope:
        return store.rows("SELECT * FROM session_reports WHERE scope = ? ORDER BY created_at DESC,"
                          " rowid DESC LIMIT ?", (_scope(scope), n))
    return store.rows("SELECT * FROM session_reports ORDER BY created_at DESC, rowid DESC LIMIT ?", (n,))


def get_report(store: Store, ref: str) -> dict:
    """A report by id or unique id prefix."""
    r = (ref or "").strip()
    if not r:
        raise InvalidInput("report id is empty")
    rows = store.rows("SELECT * FROM session_reports WHERE id = ? OR id LIKE ? LIMIT 2", (r, r + "%"))
    exact = [x for x in rows if x["id"] == r]
    if exact:
        return exact[0]
    if not rows:
        raise NotFound(f"no report {r!r}")
    if len(rows) > 1:
        raise InvalidInput(f"report id prefix {r!r} is ambiguous")
    return rows[0]
