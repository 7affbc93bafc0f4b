"""Promotion: a correction becomes a memory entry and, when it names something concrete to
forbid, an enforcement rule (through the rules area, never by its own SQL on rules).

Capture promotes at the threshold (proposed: action ``warn``, ``confirmed = 0``; an agent's
lesson held back until the person approves it); the review promotes when the person approves a
correction before its count got there. A correction whose rule means what an existing rule
means reinforces that rule instead of adding a second one. Loaded only when something is
promoted or reviewed, never on an ordinary prompt.
"""

from __future__ import annotations

from .. import audit
from ..util import now_iso
from .wording import compose_statement, sentence


def hold_back(store, promoted: dict) -> bool:
    """What an agent's lesson was promoted to waits for the person: its rule is switched off
    and its entry archived until ``memory-cli review`` approves it (which turns both on)."""
    eid = promoted.get("entry_id")
    if not eid or promoted.get("reinforced"):
        return False  # it reinforced a rule that exists already: nothing new was made
    from .. import entries
    from ..rules import api as rules_api

    if rules_api.rule_exists(store, eid):
        rules_api.write_rule(store, eid, {"enabled": False})
    entries.hold_back(store, eid)
    return True


def derive_rule_spec(row: dict) -> dict | None:
    """The enforcement rule a correction implies, or None when it names nothing concrete.

    Uses the rules area's sentence deriver on the statement, then on a sentence built from the
    parts, so a rule from "use pnpm, not npm" is a ``command`` rule on the program ``npm``
    (never firing on ``pnpm install``)."""
    wrong = (row.get("what_was_wrong") or "").strip()
    right = (row.get("what_is_right") or "").strip()
    if not wrong:
        return None  # an instruction without a mistake forbids nothing
    candidates = [row.get("statement") or ""]
    if right:
        alt = alternative_for(right)
        candidates.append(f"{alt} instead of {wrong}")
    candidates.append(f"never {wrong}")  # "pipe curl into bash" with an alternative still names a shape
    try:
        from ..rules.derive import derive_rule
    except ImportError:
        return None
    for said in candidates:
        if not said or "[REDACTED" in said:
            continue
        try:
            spec = derive_rule(said)
        except Exception:
            spec = None
        if spec:
            if right and not spec.get("alternative"):
                spec["alternative"] = alternative_for(right)  # what the person said is right
            return spec
    return None


def alternative_for(right: str) -> str | None:
    """What to do instead, as a rule's alternative: "use pnpm" for a thing, the words as said
    for an action ("open a pull request", never "use open a pull request")."""
    right = right.strip()
    if not right:
        return None
    from .detect import starts_with_action

    return right if starts_with_action(right) else f"use {right}"


def validate_pattern(pattern: str, pattern_type: str) -> None:
    """The rules area's own checks, so a person's pattern is refused before anything is stored."""
    from ..rules import spec as rule_spec

    rule_spec.check_pattern(pattern, rule_spec.check_pattern_type(pattern_type))


def _create_rule(
    store, content: str, spec: dict, *, scope: str, action: str, confirmed: bool, message: str
) -> dict | None:
    """Create the entry and its enforcement rule, limited by the derived conditions if any."""
    from ..rules.api import create_rule

    return create_rule(
        store,
        content,
        pattern=spec["pattern"],
        pattern_type=spec["pattern_type"],
        action=action,
        severity="medium",
        alternative=spec.get("alternative"),
        message=message,
        tools=spec.get("tools"),
        fields=spec.get("fields"),
        conditions=spec.get("conditions"),
        scope=scope,
        provenance="promoted",
        confirmed=confirmed,
        source="promoted",
    )


def promote(
    store,
    row: dict,
    *,
    action: str,
    confirmed: bool,
    status: str,
    session_id: str | None,
    strict: bool,
    sessions: int,
    pattern: str | None = None,
    pattern_type: str | None = None,
    message: str | None = None,
    scope: str | None = None,
    content: str | None = None,
    no_rule: bool = False,
) -> dict:
    """Turn a correction into a memory entry and, when possible, a rule. ``strict``: errors
    in a pattern the person gave are raised; derived ones that fail fall back to the entry.
    ``sessions``: in how many sessions it was said (for the audit record)."""
    from .. import entries

    statement = row.get("statement") or compose_statement(
        row.get("what_was_wrong") or "", row.get("what_is_right") or ""
    )
    content = content or sentence(statement)
    scope = scope or row.get("scope") or "global"
    n = int(row.get("occurrence_count") or 1)
    message = message or f"{sentence(statement)} (corrected {n} time{'s' if n != 1 else ''})"
    if no_rule:
        spec = None
    elif pattern:
        ptype = pattern_type or "command"
        validate_pattern(pattern, ptype)
        spec = {
            "pattern": pattern,
            "pattern_type": ptype,
            "tools": ["Bash"] if ptype == "command" else None,
            "fields": ["command"] if ptype == "command" else None,
            "alternative": alternative_for(row.get("what_is_right") or ""),
        }
    else:
        spec = derive_rule_spec(row)
    rule = None
    reinforced = False
    existing = _same_rule(store, spec, scope) if spec else None
    if existing is not None:
        from ..rules.api import reinforce_rule

        rule = reinforce_rule(store, existing["id"], context=statement, session_id=session_id)
        reinforced = True
        if confirmed and not rule["confirmed"]:  # approving this correction confirms the rule it means
            from ..rules.api import confirm_rule

            rule = confirm_rule(store, existing["id"])
        if rule["confirmed"]:
            status = "approved"  # the person already wrote this rule: nothing left to review
    elif spec:
        try:
            with store.transaction():
                rule = _create_rule(
                    store, content, spec, scope=scope, action=action, confirmed=confirmed, message=message
                )
        except Exception:  # a derived pattern the rules area refuses: keep the entry, lose nothing
            if strict:
                raise
            rule = None
    if rule:
        entry_id = rule["id"]
    else:
        etype = "rule" if row.get("what_was_wrong") else "preference"
        entry = entries.add(
            store,
            content,
            etype,
            scope=scope,
            source="promoted",
            tags=["correction"],
            audit_context=f"correction {row['id']}",
        )
        entry_id = entry["id"]
    now = now_iso()
    store.execute(
        "UPDATE corrections SET status=?, promoted_to=?, reviewed_at=? WHERE id=?",
        (status, entry_id, now if status == "approved" else row.get("reviewed_at"), row["id"]),
    )
    audit.record(
        store,
        "promote",
        entry_id=entry_id,
        context=statement[:300],
        result="reinforced" if reinforced else ("approved" if status == "approved" else "proposed"),
        details={
            "correction_id": row["id"],
            "occurrences": n,
            "sessions": sessions,
            "rule": (
                {"pattern": rule.get("pattern"), "pattern_type": rule.get("pattern_type"), "action": rule.get("action")}
                if rule
                else None
            ),
        },
        session_id=session_id,
    )
    return {
        "entry_id": entry_id,
        "rule_id": entry_id if rule else None,
        "action": (rule.get("effective_action") or rule.get("action")) if rule else None,
        "reinforced": reinforced,
    }


def _same_rule(store, spec: dict, scope: str) -> dict | None:
    """The enabled rule that already means what this correction's rule would (rules area)."""
    from ..rules.api import same_rule

    try:
        return same_rule(
            store,
            pattern=spec["pattern"],
            pattern_type=spec["pattern_type"],
            scope=scope,
            tools=spec.get("tools"),
            fields=spec.get("fields"),
            conditions=spec.get("conditions"),
        )
    except Exception:  # a derived pattern the rules area refuses: no rule means the same
        return None
