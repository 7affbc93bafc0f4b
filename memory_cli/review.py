"""The review: everything that waits for the person's word, behind one set of calls.

Three kinds of item wait in ``memory-cli review``, on the dashboard's review page and in
``/api/corrections``: corrections (detected in prompts, or lessons the agent recorded,
:mod:`.capture.lessons`) with the rules proposed from them (:mod:`.capture.corrections`,
recurring instructions from :mod:`.capture.recurring`), each with the replay of its rule on the
person's recorded sessions (:mod:`.replay.proposals`); and memories an agent or a model wrote
that ask to apply beyond their project (scope requests, :mod:`.provenance`).

The CLI, the dashboard and the MCP server call these functions and nothing under them, so what
a review item is, how it is approved and what approving it creates is decided here once.
Skipping an item stores nothing: it is the absence of a call.
"""

from __future__ import annotations

from .capture.lessons import LessonRefused  # the answer to a lesson whose quote is not the person's

__all__ = ["LessonRefused"]

# --------------------------------------------------------------------------- listing


def pending(store, *, every_correction: bool = False) -> list[dict]:
    """What waits for the person, in the order it is shown (``every_correction``: every
    correction whatever its status instead, newest first). Each item has ``item`` = "proposal" |
    "recurring" | "correction" (not set on the full list)."""
    from .capture import corrections

    if every_correction:
        return corrections.list_corrections(store, status="all", limit=1000)
    return corrections.review_queue(store)


def corrections_by_status(store, *, status: str | None = None, limit: int = 100) -> list[dict]:
    """Corrections of one status (or "all"), newest first."""
    from .capture import corrections

    return corrections.list_corrections(store, status=status, limit=limit)


def with_replay(items: list[dict]) -> list[dict]:
    """Each item that has a rule gets its ``replay``: where that rule would have fired in the
    person's recorded sessions, and what to offer (a gate, a narrower pattern, a reminder)."""
    from .replay.proposals import attach

    return attach(items)


def scope_requests(store) -> list[dict]:
    """Memories an agent or a model wrote that ask for a wider scope than their home, oldest first."""
    from . import provenance

    return provenance.pending(store)


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
    from . import provenance
    from .capture import corrections
    from .errors import NotFound

    try:
        corrections.resolve(store, ref)
        return False
    except NotFound:
        pass
    try:
        provenance.pending_request(store, ref)
    except NotFound:
        return False
    return True


def suggested_rule(row: dict) -> dict | None:
    """The rule approving a pending correction would create (pattern, type, tools,
    alternative), or None when it names nothing concrete to enforce."""
    from .capture import corrections

    spec = corrections.derive_rule_spec(row)
    return {k: spec.get(k) for k in ("pattern", "pattern_type", "tools", "alternative")} if spec else None


def show(store, ref: str, *, suggest: bool = False) -> dict:
    """One correction or proposal by id (or unique prefix). ``suggest``: a pending correction
    without a rule also gets the rule approving it would create (``suggested_rule``)."""
    from .capture import corrections

    row = corrections.resolve(store, ref)
    item = corrections.view(store, row)
    if suggest and row["status"] == "pending" and not item.get("rule"):
        item["suggested_rule"] = suggested_rule(row)
    return item


def proposed_pattern(store, ref: str) -> str | None:
    """The pattern of the rule a correction proposes now (its stored rule or the derived one)."""
    from .replay.proposals import rule_of

    rule = rule_of(show(store, ref, suggest=True))
    return rule["pattern"] if rule else None


def replay_offer(store, ref: str) -> dict | None:
    """The replay of the rule a pending correction or proposal would approve (None without one)."""
    from .errors import NotFound

    try:
        item = show(store, ref, suggest=True)
    except NotFound:
        return None
    if item["status"] not in ("pending", "promoted"):
        return None
    with_replay([item])
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
    from .capture.corrections import _sentence

    return _sentence(statement)


def compose_statement(wrong: str, right: str) -> str:
    """A statement from what was wrong and what is right, for a correction edited by hand."""
    from .capture.corrections import compose_statement as compose

    return compose(wrong, right)


# --------------------------------------------------------------------------- decisions


def check_action(action: str | None) -> str | None:
    """The rule action, checked (warn | block | suggest | ask), before anything is stored."""
    from .capture.corrections import _check_action

    return _check_action(action)


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
) -> dict:
    """Confirm a proposal (or promote a pending correction now), optionally changing the rule's
    action, pattern and message and the memory's scope and text. ``no_rule``: keep it as a
    remembered memory only (a proposed rule is switched off)."""
    from .capture import corrections

    return corrections.approve(
        store,
        ref,
        action=action,
        pattern=pattern,
        pattern_type=pattern_type,
        message=message,
        scope=scope,
        content=content,
        no_rule=no_rule,
    )


def reject(store, ref: str, reason: str | None = None) -> dict:
    """Reject a correction or proposal: never proposed again (repeats still count)."""
    from .capture import corrections

    return corrections.reject(store, ref, reason)


def edit(
    store,
    ref: str,
    *,
    what_was_wrong: str | None = None,
    what_is_right: str | None = None,
    statement: str | None = None,
) -> dict:
    """Correct what was detected; later repeats still match it."""
    from .capture import corrections

    return corrections.edit(store, ref, what_was_wrong=what_was_wrong, what_is_right=what_is_right, statement=statement)


def approve_scope(store, ref: str) -> dict:
    """Let an agent's or a model's memory apply where it asked to."""
    from . import provenance

    return provenance.approve(store, ref)


def reject_scope(store, ref: str) -> dict:
    """Keep an agent's or a model's memory where it was written."""
    from . import provenance

    return provenance.reject(store, ref)


# --------------------------------------------------------------------------- the agent's lessons


def record_lesson(store, **kwargs) -> dict:
    """Record a lesson the agent was taught (see :func:`.capture.lessons.record_lesson`); it
    waits here for the person. Raises :class:`LessonRefused` when its quote is not the person's."""
    from .capture.lessons import record_lesson as record

    return record(store, **kwargs)
