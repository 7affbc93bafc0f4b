"""The review: everything that waits for the person's word, behind one set of calls.

Three kinds of item wait in ``memory-cli review``, on the dashboard's review page and in
``/api/corrections``: corrections (detected in prompts, or lessons the agent recorded,
:mod:`.capture.lessons`) with the rules proposed from them (:mod:`.capture.corrections`,
recurring instructions from :mod:`.capture.recurring`), each with the replay of its rule on the
person's recorded sessions (:mod:`.replay.proposals`); and memories an agent or a model wrote
that ask to apply beyond their project (scope requests, :mod:`.scope_requests`).

The CLI, the dashboard and the MCP server call these functions and nothing under them, so what
a review item is, how it is approved and what approving it creates is decided here once.
Skipping an item stores nothing: it is the absence of a call.
"""

from __future__ import annotations

from typing import NamedTuple

from . import audit
from .capture import corrections
from .capture.corrections import redact_text
from .capture.lessons import LessonRefused  # the answer to a lesson whose quote is not the person's
from .capture.promotion import alternative_for, derive_rule_spec, promote
from .capture.wording import compose_statement, sentence
from .errors import InvalidInput, NotFound
from .rules import api as rules_api
from .util import now_iso

__all__ = ["LessonRefused", "compose_statement"]

RULE_ACTIONS = ("warn", "block", "suggest", "ask")

# --------------------------------------------------------------------------- listing


def pending(store, *, every_correction: bool = False) -> list[dict]:
    """What waits for the person, in the order it is shown (``every_correction``: every
    correction whatever its status instead, newest first). Each item has ``item`` = "proposal" |
    "recurring" | "correction" (not set on the full list)."""
    if every_correction:
        return corrections.list_corrections(store, status="all", limit=1000)
    return queue(store).items


class Queue(NamedTuple):
    """The review queue as the person reads it: its items, how many of the hook's readings are
    kept as evidence instead of items, and the one-line summary that starts it."""

    items: list[dict]
    kept_as_evidence: int
    summary: str


def corrections_by_status(store, *, status: str | None = None, limit: int = 100) -> list[dict]:
    """Corrections of one status (or "all"), newest first."""
    return corrections.list_corrections(store, status=status, limit=limit)


def with_replay(items: list[dict], store=None) -> list[dict]:
    """Each item that has a rule gets its ``replay``: where that rule would have fired in the
    person's recorded sessions, and what to offer (a gate, a narrower pattern, a reminder);
    ``store``: where the calls the permission check refused are recorded."""
    from .replay.proposals import attach

    return attach(items, store=store)


def scope_requests(store) -> list[dict]:
    """Memories an agent or a model wrote that ask for a wider scope than their home, oldest first."""
    from . import scope_requests as requests

    return requests.pending(store)


def written_by(origin: str) -> str:
    """Who wrote a memory, in words ("the agent", "a session summary")."""
    from . import provenance

    return provenance.describe(origin)


def scope_item(row: dict) -> dict:
    """A scope request as a review item (``item`` = "scope")."""
    return {
        "item": "scope",
        "id": row["id"],
        "content": row["content"],
        "type": row["type"],
        "origin": row["origin"],
        "written_by": written_by(row["origin"]),
        "scope": row["scope"],
        "status": row["status"],
        "requested_scope": row["requested_scope"],
    }


# --------------------------------------------------------------------------- one item


def is_scope_request(store, ref: str) -> bool:
    """Is ``ref`` a memory waiting for a wider scope (and not a correction)?"""
    from . import scope_requests as requests

    try:
        corrections.resolve(store, ref)
        return False
    except NotFound:
        pass
    try:
        requests.pending_row(store, ref)
    except NotFound:
        return False
    return True


def suggested_rule(row: dict) -> dict | None:
    """The rule approving a pending correction would create (pattern, type, tools,
    alternative), or None when it names nothing concrete to enforce."""
    spec = derive_rule_spec(row)
    return {k: spec.get(k) for k in ("pattern", "pattern_type", "tools", "alternative")} if spec else None


def show(store, ref: str, *, suggest: bool = False) -> dict:
    """One correction or proposal by id (or unique prefix). ``suggest``: a pending correction
    without a rule also gets the rule approving it would create (``suggested_rule``)."""
    row = corrections.resolve(store, ref)
    item = corrections.view(store, row)
    if suggest and row["status"] in ("pending", "promoted") and not item.get("rule"):
        item["suggested_rule"] = suggested_rule(row)
    return item


def proposed_pattern(store, ref: str) -> str | None:
    """The pattern of the rule a correction proposes now (its stored rule or the derived one)."""
    from .replay.proposals import rule_of

    rule = rule_of(show(store, ref, suggest=True))
    return rule["pattern"] if rule else None


def replay_offer(store, ref: str) -> dict | None:
    """The replay of the rule a pending correction or proposal would approve (None without one)."""

    try:
        item = show(store, ref, suggest=True)
    except NotFound:
        return None
    if item["status"] not in ("pending", "promoted"):
        return None
    with_replay([item], store)
    return item.get("replay")


def replay_pattern(item: dict, pattern: str, pattern_type: str | None = None) -> dict:
    """The replay of a pattern the person typed for ``item`` before approving it. A pattern
    the rules area refuses raises, saying why."""
    from .replay.proposals import History, evidence, instances_of, rule_of, said_in

    base = rule_of(item) or {}
    rule = dict(base, pattern=pattern, pattern_type=pattern_type or base.get("pattern_type") or "command")
    return evidence(rule, instances_of(item), History(), said_in(item))


def rule_message(statement: str) -> str:
    """What Claude is told by a rule approved from ``statement``, unless the person says otherwise."""
    return sentence(statement)


# --------------------------------------------------------------------------- the queue and the decisions


def queue(store) -> Queue:
    """The queue, its evidence count and its summary line, built once (``review --list``, the
    dashboard's review page and :func:`pending`): what waits for the person, one item per
    instruction, most taught first
    (:mod:`.capture.queue`; the learned model's guesses are evidence on an item where the agent
    records lessons): proposed rules, recurring instructions (item
    "recurring": the same thing said in several sessions, :mod:`.capture.recurring`, with every
    instance), then corrections that have content, most repeated first, then inferred ones that have none yet (a prompt the learned model took
    for a correction: only the person can say what it meant, or reject it). Each item has
    ``item`` = "proposal" | "correction" and, for pending corrections, the rule approval would
    create (``suggested_rule``)."""
    from .capture.recurring import grouped_ids, held_by_several

    items = []
    several = held_by_several(store)[0]  # proposed on its own count, and held by an instruction of several
    for r in store.rows("SELECT * FROM corrections WHERE status = 'promoted' ORDER BY last_seen_at DESC"):
        if r["id"] in several:
            continue
        v = corrections.view(store, r)
        v["item"] = "proposal"
        items.append(v)

    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND detection_type = 'repeated'"
        " ORDER BY occurrence_count DESC, last_seen_at DESC"
    ):
        v = corrections.view(store, r)
        held = {i["id"] for i in v.get("instances") or []}
        if len(held) == 1 and store.value("SELECT status FROM corrections WHERE id = ?", (held.pop(),)) != "pending":
            continue  # one correction, since proposed (or reviewed) on its own count: shown there
        v["item"] = "recurring"
        v["suggested_rule"] = None
        items.append(v)
    grouped = grouped_ids(store)  # shown under their recurring proposal instead
    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND key IS NOT NULL AND key != ''"
        " ORDER BY occurrence_count DESC, last_seen_at DESC"
    ):
        if r["id"] in grouped:
            continue
        v = corrections.view(store, r)
        v["item"] = "correction"
        v["suggested_rule"] = suggested_rule(r)
        items.append(v)
    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND coalesce(key, '') = ''"
        " AND detection_type = 'inferred' ORDER BY last_seen_at DESC"
    ):
        if r["id"] in grouped:
            continue
        v = corrections.view(store, r)
        v["item"] = "correction"
        v["suggested_rule"] = None
        items.append(v)
    from .capture.queue import fold_guesses, most_taught_first, summary

    items, kept = fold_guesses(store, items)
    items = most_taught_first(items)
    # "14 instructions, 3 proposed, 2 waiting since last week (5 readings ... kept as evidence)"
    return Queue(items, kept, summary(items, folded=kept))


def check_form(form: str | None) -> str | None:
    """A lesson's form of enforcement as given (rule, reminder, ask, stop-check, advice), or raises."""
    from .checks.lesson_review import check_form as check

    return check(form)


def proposed_form(statement: str, has_rule: bool) -> str:
    """The form of enforcement approval proposes for a lesson (see :mod:`.checks.compile`)."""
    from .checks.compile import propose

    return propose(statement or "", has_rule)


def check_action(action: str | None) -> str | None:
    if action is None:
        return None
    a = action.strip().lower()
    if a not in RULE_ACTIONS:
        raise InvalidInput(f"unknown action {action!r}: use one of {', '.join(RULE_ACTIONS)}")
    return a


def approve(
    store,
    ref: str,
    *,
    action: str | None = None,
    pattern: str | None = None,
    pattern_type: str | None = None,
    message: str | None = None,
    scope: str | None = None,
    content: str | None = None,
    no_rule: bool = False,
    form: str | None = None,
) -> dict:
    """Confirm a proposal (or promote a pending correction now), optionally changing the
    rule's action, pattern, message and the entry's scope and text. ``no_rule``: keep it as
    a remembered entry only (an existing proposed rule is switched off). ``form``: how the
    lesson is enforced (rule, reminder, ask, stop-check, advice; None: the proposed one), see
    :mod:`.checks.forms`."""
    from . import entries
    from . import scope as scopes
    from .checks import lesson_review

    action = check_action(action)
    form = lesson_review.check_form(form)
    scope = scopes.parse(scope) if scope else None
    if content is not None:
        content = redact_text(content)[0].strip()
        if not content:
            raise InvalidInput("content is empty")
    if message is not None:
        message = redact_text(message)[0].strip() or None
    with store.transaction():
        row = corrections.resolve(store, ref)
        if (
            row["status"] in ("promoted", "approved")
            and row["promoted_to"]
            and store.value("SELECT 1 FROM memory_entries WHERE id = ?", (row["promoted_to"],))
        ):
            eid = row["promoted_to"]
            has_rule = rules_api.rule_exists(store, eid)
            if no_rule:
                if has_rule:
                    rules_api.write_rule(store, eid, {"enabled": False})
            elif not has_rule and pattern:
                ptype = pattern_type or "command"
                entries.update(store, eid, type="rule")
                rules_api.write_rule(
                    store,
                    eid,
                    {
                        "pattern": pattern,
                        "pattern_type": ptype,
                        "action": action or "warn",
                        "alternative": alternative_for(row["what_is_right"] or ""),
                        "message": message or sentence(row.get("statement") or ""),
                        "tools": ["Bash"] if ptype == "command" else [],
                        "fields": ["command"] if ptype == "command" else [],
                        "provenance": "promoted",
                        "confirmed": True,
                    },
                    create=True,
                )
            elif has_rule:
                rules_api.write_rule(
                    store,
                    eid,
                    {
                        "confirmed": True,
                        "enabled": True,
                        "action": action,
                        "pattern": pattern,
                        "pattern_type": pattern_type if pattern else None,
                        "message": message,
                    },
                )
            if content or scope:
                entries.update(store, eid, content=content, scope=scope)
            if store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,)) != "active":
                entries.update(store, eid, status="active")
            store.execute("UPDATE corrections SET status='approved', reviewed_at=? WHERE id=?", (now_iso(), row["id"]))
            audit.record(
                store,
                "promote",
                entry_id=eid,
                context=(row.get("statement") or "")[:300],
                result="approved",
                details={"correction_id": row["id"], "action": action, "pattern": pattern},
            )
        else:
            promote(
                store,
                row,
                action=action or "warn",
                confirmed=True,
                status="approved",
                session_id=None,
                strict=True,
                sessions=len(corrections.session_ids(row)),
                pattern=pattern,
                pattern_type=pattern_type,
                message=message,
                scope=scope,
                content=content,
                no_rule=no_rule,
            )
        if row["detection_type"] == "repeated":
            _settle_held(store, row["id"], "approved")
        approved = corrections.view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))
        approved["form"] = lesson_review.settle(store, approved, form)
    if store._depth == 0:
        rules_api.sync_native(store)  # what the person approved reaches the agents' own rule copies
    return lesson_review.synced(store, approved)


def _retire(store, eid: str, reason: str) -> None:
    """Switch off an entry's rule and archive it (a rejected correction's, or one an approved
    instruction stands for)."""
    from . import entries

    if not store.value("SELECT 1 FROM memory_entries WHERE id = ?", (eid,)):
        return
    if rules_api.rule_exists(store, eid):
        rules_api.write_rule(store, eid, {"enabled": False})
    if store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,)) == "active":
        entries.archive(store, eid, reason=reason)


def _settle_held(store, proposal_id: str, status: str) -> None:
    """A recurring proposal decided: its waiting instances take the decision, and what they had
    proposed on their own is retired (the proposal's entry stands for them)."""
    from .capture.recurring import settle_instances

    for eid in settle_instances(store, proposal_id, status, now_iso()):
        _retire(store, eid, f"held by the instruction {proposal_id[:8]}, {status} in review")


def reject(store, ref: str, reason: str | None = None) -> dict:
    """Reject a correction or proposal: its rule is switched off and its entry archived, and it
    is never proposed again (repeats still count)."""
    from .checks import lesson_review

    with store.transaction():
        row = corrections.resolve(store, ref)
        eid = row["promoted_to"]
        if eid:
            _retire(store, eid, reason or "correction rejected in review")
        store.execute("UPDATE corrections SET status='rejected', reviewed_at=? WHERE id=?", (now_iso(), row["id"]))
        if row["detection_type"] == "repeated":
            _settle_held(store, row["id"], "rejected")
        audit.record(
            store,
            "reject",
            entry_id=eid,
            context=(row.get("statement") or "")[:300],
            result="rejected",
            details={"correction_id": row["id"], "reason": redact_text(reason)[0] or None},
        )
        view = corrections.view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))
        view["form"] = lesson_review.dropped(store, eid)
    return lesson_review.synced(store, view)


def edit(
    store,
    ref: str,
    *,
    what_was_wrong: str | None = None,
    what_is_right: str | None = None,
    statement: str | None = None,
) -> dict:
    """Correct what was detected. The key is recomputed so later repeats still match."""
    from .capture.similar import correction_key

    with store.transaction():
        row = corrections.resolve(store, ref)
        wrong = redact_text(what_was_wrong)[0].strip() if what_was_wrong is not None else row["what_was_wrong"]
        right = redact_text(what_is_right)[0].strip() if what_is_right is not None else row["what_is_right"]
        if statement is not None:
            stmt = redact_text(statement)[0].strip()
        elif what_was_wrong is not None or what_is_right is not None:
            stmt = compose_statement(wrong, right)
        else:
            stmt = row.get("statement")
        if not (wrong or right or stmt):
            raise InvalidInput("a correction needs what was wrong, what is right, or a statement")
        key = correction_key(wrong, right) if (wrong or right) else None
        store.execute(
            "UPDATE corrections SET what_was_wrong=?, what_is_right=?, statement=?, key=?, embedding=NULL WHERE id=?",
            (wrong, right, stmt, key, row["id"]),
        )
        audit.record(
            store,
            "update",
            entry_id=row["promoted_to"],
            context=(stmt or "")[:300],
            result="correction",
            details={"correction_id": row["id"], "what_was_wrong": wrong, "what_is_right": right},
        )
        return corrections.view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))


# --------------------------------------------------------------------------- scope requests


def approve_scope(store, ref: str) -> dict:
    """Let an agent's or a model's memory apply where it asked to."""
    from . import scope_requests as requests

    return requests.approve(store, ref)


def reject_scope(store, ref: str) -> dict:
    """Keep an agent's or a model's memory where it was written."""
    from . import scope_requests as requests

    return requests.reject(store, ref)


# --------------------------------------------------------------------------- the agent's lessons


def record_lesson(store, **kwargs) -> dict:
    """Record a lesson the agent was taught (see :func:`.capture.lessons.record_lesson`); it
    waits here for the person. Raises :class:`LessonRefused` when its quote is not the person's."""
    from .capture.lessons import record_lesson as record

    return record(store, **kwargs)
