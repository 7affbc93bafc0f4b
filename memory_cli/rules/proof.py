"""What each rule did after approval, read from the audit log (a read model; its SQL is here).

Per rule: the times it fired in a hook, by action; ``obeyed`` (a block after which the agent's
next call in the session was not the same blocked call again, and the session went on);
``repeated`` (it was: the agent tried the same call again); ``overridden`` (an ask the person
allowed: the session's next tool event after the ask is the PostToolUse of that tool);
``declined`` (an ask after which the call never ran: the person said no, or the session's next
tool event is the PermissionDenied of that tool, auto mode's permission check refusing it for
the person); ``violated`` (``verify_fail``: a call that
went through and broke the rule, seen after the fact); first and last fired; which agents.

Only decisions a hook made count: rows written by the hooks carry ``hook_event``; dry runs
(``enforce``, ``rules test``, ``rules replay``) write none, or rows without it, or rows whose
details say ``dry_run``. Codex turns an ask into a warning (it accepts only deny), so an ask in
Codex is never counted as overridden or declined.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from ..util import iso

FIRE_ACTIONS = ("enforce_block", "enforce_ask", "enforce_warn", "enforce_suggest")
REAL = (
    "hook_event IS NOT NULL AND (context IS NULL OR context NOT LIKE 'cli %')"
    " AND coalesce(json_extract(CASE WHEN json_valid(details) THEN details END, '$.dry_run'), 0) IN (0, 'false')"
)
RETIRE_AFTER_DAYS = 90

_FIRES_SQL = (
    "SELECT entry_id, action, agent, count(*) AS n, min(timestamp) AS first, max(timestamp) AS last"
    " FROM memory_audit_log WHERE action IN ('enforce_block', 'enforce_ask', 'enforce_warn', 'enforce_suggest',"
    " 'verify_fail') AND entry_id IS NOT NULL AND " + REAL + "{only} GROUP BY entry_id, action, agent"
)
# The rows of every session in which a block or ask fired, in the order they were written.
_SESSIONS_SQL = (
    "SELECT rowid AS r, timestamp, action, entry_id, context, details, session_id, hook_event, agent"
    " FROM memory_audit_log WHERE session_id IN (SELECT DISTINCT session_id FROM memory_audit_log"
    " WHERE action IN ('enforce_block', 'enforce_ask') AND session_id IS NOT NULL AND " + REAL + "{only})"
    " AND (action IN ('enforce_block', 'enforce_ask') OR (action IN ('hook', 'hook_error') AND " + REAL + "))"
    " ORDER BY session_id, timestamp, rowid"
)


def empty() -> dict:
    return {
        "fired": 0,
        "by_action": {},
        "obeyed": 0,
        "repeated": 0,
        "overridden": 0,
        "declined": 0,
        "violated": 0,
        "first_fired": None,
        "last_fired": None,
        "agents": [],
    }


def collect(store, rule_ids=None) -> dict[str, dict]:
    """``{rule id: proof}`` for the rules that ever fired (all of them, or ``rule_ids``)."""
    only, params = "", []
    if rule_ids is not None:
        ids = list(rule_ids)
        if not ids:
            return {}
        only = " AND entry_id IN (SELECT value FROM json_each(?))"
        params = [json.dumps(ids)]
    out: dict[str, dict] = {}
    for r in store.rows(_FIRES_SQL.format(only=only), params):
        p = out.setdefault(r["entry_id"], empty())
        if r["action"] == "verify_fail":
            p["violated"] += r["n"]
        else:
            action = r["action"][len("enforce_") :]
            p["by_action"][action] = p["by_action"].get(action, 0) + r["n"]
            p["fired"] += r["n"]
        for key, pick in (("first_fired", min), ("last_fired", max)):
            p[key] = pick(v for v in (p[key], r["first" if key == "first_fired" else "last"]) if v)
        if r["agent"] and r["agent"] not in p["agents"]:
            p["agents"].append(r["agent"])
    _outcomes(store, out, only, params)
    for p in out.values():
        p["agents"].sort()
    return out


def _outcomes(store, out: dict, only: str, params: list) -> None:
    """What followed each block and ask in its session (see the module's docstring)."""
    rows = store.rows(_SESSIONS_SQL.format(only=only), params)
    by_session: dict[str, list] = {}
    for r in rows:
        by_session.setdefault(r["session_id"], []).append(r)
    for session_rows in by_session.values():
        for i, r in enumerate(session_rows):
            if r["action"] not in ("enforce_block", "enforce_ask") or r["entry_id"] not in out:
                continue
            outcome = _after(session_rows, i)
            if outcome is None:
                continue
            if r["action"] == "enforce_ask":
                if r["agent"] == "codex":
                    continue
                key = "overridden" if outcome == "ran" else "declined"
            else:
                key = "repeated" if outcome == "repeated" else "obeyed"
            out[r["entry_id"]][key] += 1


def _subject(row) -> str | None:
    try:
        return (json.loads(row["details"] or "{}") or {}).get("subject")
    except (ValueError, AttributeError):
        return None


def _after(rows: list, i: int) -> str | None:
    """``ran`` (the tool's PostToolUse came next), ``denied`` (its PermissionDenied did), ``repeated`` (the next call fired the same
    rule on the same text), ``moved_on``, or None (nothing happened after it in the session)."""
    fired = rows[i]
    j = i + 1
    # the hook row closing the call that fired (written after its enforce rows)
    while j < len(rows) and not (rows[j]["action"] in ("hook", "hook_error") and rows[j]["hook_event"] == "PreToolUse"):
        j += 1
    later = rows[j + 1 :]
    if not later:
        return None
    first_tool_event = next((r for r in later if r["action"] in ("hook", "hook_error")), None)
    if first_tool_event is not None and first_tool_event["context"] == fired["context"]:
        if first_tool_event["hook_event"] == "PostToolUse":
            return "ran"
        if first_tool_event["hook_event"] == "PermissionDenied":
            return "denied"
    subject = _subject(fired)
    for r in later:
        if r["action"] == fired["action"] and r["entry_id"] == fired["entry_id"] and _subject(r) == subject:
            return "repeated"
        if r["action"] in ("hook", "hook_error") and r["hook_event"] == "PreToolUse":
            break
    return "moved_on"


def retire_candidates(store, now: datetime | None = None, days: int = RETIRE_AFTER_DAYS) -> list[dict]:
    """Enabled rules older than ``days`` days that no hook fired in the last ``days`` days."""
    now = now or datetime.now(timezone.utc)
    cutoff = iso(now - timedelta(days=days))
    return store.rows(
        "SELECT r.id, r.pattern, r.pattern_type, r.action, e.content, r.created_at,"
        " (SELECT max(a.timestamp) FROM memory_audit_log a WHERE a.entry_id = r.id AND a.action IN"
        " ('enforce_block', 'enforce_ask', 'enforce_warn', 'enforce_suggest', 'verify_fail') AND "
        + REAL.replace("hook_event", "a.hook_event").replace("context", "a.context").replace("details", "a.details")
        + ") AS last_fired"
        " FROM enforcement_rules r JOIN memory_entries e ON e.id = r.id"
        " WHERE r.active = 1 AND e.status = 'active' AND r.created_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM memory_audit_log a WHERE a.entry_id = r.id AND a.timestamp >= ? AND"
        " a.action IN ('enforce_block', 'enforce_ask', 'enforce_warn', 'enforce_suggest', 'verify_fail') AND "
        + REAL.replace("hook_event", "a.hook_event").replace("context", "a.context").replace("details", "a.details")
        + ") ORDER BY r.created_at",
        (cutoff, cutoff),
    )


def line(p: dict | None) -> str:
    """One rule's proof in words: ``fired 3 (block 3): obeyed 2, repeated 1; last 2026-11-20 (claude)``."""
    if not p or not (p["fired"] or p["violated"]):
        return "never fired"
    parts = [f"fired {p['fired']}"]
    if p["by_action"]:
        parts[0] += " (" + ", ".join(f"{a} {n}" for a, n in sorted(p["by_action"].items())) + ")"
    outcome = [f"{k} {p[k]}" for k in ("obeyed", "repeated", "overridden", "declined", "violated") if p[k]]
    text = parts[0] + (": " + ", ".join(outcome) if outcome else "")
    if p.get("last_fired"):  # totals over all rules carry no single date
        text += f"; last {p['last_fired'][:10]}"
    if p["agents"]:
        text += f" ({', '.join(p['agents'])})"
    return text


def totals(store) -> dict:
    """Every rule's proof summed, each rule's own (``by_rule``), and the retire candidates."""
    per_rule = collect(store)
    out = empty()
    out.pop("first_fired")
    out.pop("last_fired")
    for p in per_rule.values():
        for k in ("fired", "obeyed", "repeated", "overridden", "declined", "violated"):
            out[k] += p[k]
        for a, n in p["by_action"].items():
            out["by_action"][a] = out["by_action"].get(a, 0) + n
        out["agents"] = sorted(set(out["agents"]) | set(p["agents"]))
    out["by_rule"] = per_rule
    out["never_fired_90_days"] = [r["id"] for r in retire_candidates(store)]
    return out
