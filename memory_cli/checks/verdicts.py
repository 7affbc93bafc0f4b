"""Every Stop check's verdict, audited (``stop_check`` rows), and the figures per lesson.

Results: ``kept`` (the turn ended with the lesson kept), ``sent_back`` (the agent was sent back
with the reason), ``kept_after_send_back`` (the turn a check sent back ended with the lesson
kept), ``ended_unkept`` (sent back once, and it still ended without keeping it: one send-back
per turn), ``judged`` (a model judged the turn; a send-back is counted at the next Stop), and
``judge_failed`` (the judge gave no usable answer: the turn ended).
"""

from __future__ import annotations

ACTION = "stop_check"
RESULTS = ("kept", "sent_back", "kept_after_send_back", "ended_unkept", "judged", "judge_failed")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store.db import Store


def last_result(store: Store, session_id: str | None, entry_id: str) -> str | None:
    """This lesson's latest verdict in this session (was it just sent back?)."""
    if not session_id:
        return None
    return store.value(
        "SELECT result FROM memory_audit_log WHERE action = ? AND session_id = ? AND entry_id = ?"
        " ORDER BY timestamp DESC LIMIT 1",
        (ACTION, session_id, entry_id),
    )


def failure_counted(store: Store, failure_id: str) -> bool:
    """Was this judge failure (Claude Code's id of the failed prompt hook run) counted already?"""
    return bool(
        store.value(
            "SELECT 1 FROM memory_audit_log WHERE action = ? AND result = 'judge_failed' AND details LIKE ?",
            (ACTION, f"%{failure_id}%"),
        )
    )


def figures(store: Store, entry_ids: list[str] | None = None, since: str | None = None) -> dict[str, dict]:
    """Per lesson: how many turns each result, and ``kept_turns`` (turns that ended with it kept,
    judged turns not sent back included)."""
    sql = "SELECT entry_id, result, count(*) AS n FROM memory_audit_log WHERE action = ?"
    params: list = [ACTION]
    if since:
        sql += " AND timestamp >= ?"
        params.append(since)
    sql += " GROUP BY entry_id, result"
    out: dict[str, dict] = {}
    for r in store.rows(sql, params):
        if entry_ids is not None and r["entry_id"] not in entry_ids:
            continue
        f = out.setdefault(r["entry_id"], {k: 0 for k in RESULTS})
        if r["result"] in f:
            f[r["result"]] = r["n"]
    for f in out.values():
        judged_kept = max(0, f["judged"] - f["sent_back"]) if f["judged"] else 0
        f["kept_turns"] = f["kept"] + f["kept_after_send_back"] + judged_kept
    return out


def lessons(store: Store) -> list[dict]:
    """Each approved lesson in force with its form, scope, check and figures (``verdicts``): what
    ``memory-cli lessons``, ``GET /api/lessons`` and the dashboard show."""
    from . import forms

    rows = forms.in_force(store)
    figs = figures(store, [r["id"] for r in rows])
    for r in rows:
        r["verdicts"] = figs.get(r["id"]) or {k: 0 for k in (*RESULTS, "kept_turns")}
        if r["form"] == "stop-check":
            r["check"] = "model judge" if r["check_kind"] == "judge" else r["check_kind"]
            if r["check_kind"] == "judge" and r["scope"] != "global" and not forms.root_of(r):
                r["check"] = "advice: no checkout known for this project's settings"
    return rows
