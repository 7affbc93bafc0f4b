"""PreToolUse enforcement and PostToolUse verification (issue 3; seed 002 phases 2 and 5).

PreToolUse: a ``block`` rule denies the call with a reason Claude sees (the rule and what to
do instead); ``ask`` hands the decision to the person; ``warn`` lets the call through and tells
both Claude (``additionalContext``) and the person (``systemMessage``); ``suggest`` adds the
alternative as context. PostToolUse: what actually happened (the command run, the content
written, output when a rule names it) is checked again; each ``block``/``warn`` rule it
violates gets its violation counted (severity rises after repeated violations), is audited,
and is fed back beside the tool result and shown to the person.

Budgets (``enforcement.max_latency_ms``, ``verification.max_latency_ms``) run from the start
of the hook; what is not decided in time is allowed and audited as ``enforce_overrun``.
Also: ``stop`` and ``user_prompt_submit`` evaluate rules imported from hookify files with
``event: stop`` / ``event: prompt``.
"""

from __future__ import annotations

from .ruleset import ALT, PATTERN, PTYPE, SEVERITY

_MARGIN_S = 0.004  # left for rendering the answer and writing the audit row


def _deadline(ctx, section: str, default_ms: int) -> tuple[float, int]:
    budget = int((ctx.settings.section(section) or {}).get("max_latency_ms") or default_ms)
    return ctx.started + budget / 1000.0 - _MARGIN_S, budget


def _evaluate(ctx, event: str, deadline: float):
    from . import engine, ruleset

    rs = ruleset.load(ctx.store)
    if not len(rs):
        return rs, None
    enf = ctx.settings.section("enforcement") or {}
    daemon = ctx.settings.section("daemon") or {}
    verdict = engine.evaluate(
        rs, event=event, tool_name=ctx.tool_name, tool_input=ctx.tool_input,
        payload=ctx.payload, applies=ctx.scope_applies, deadline=deadline,
        intent_threshold=float(enf.get("intent_threshold", 0.6)),
        intent_timeout_ms=float(daemon.get("request_timeout_ms", 150)))
    return rs, verdict


def _redacted(text: str | None, limit: int = 300) -> str | None:
    if not text:
        return text
    from ..redact import redact

    return redact(text[:limit])[0]


def describe(m) -> str:
    """One line about a matched rule, phrased as facts (it reaches Claude)."""
    alt = m.rule[ALT]
    text = f"{m.message.rstrip('.')} [memory-cli rule {m.id[:8]}, {m.rule[SEVERITY]}]"
    if m.field == "intent":
        text += f" (an intent rule: this call looks related, {m.snippet})"
    if alt:
        text += f"; alternative: {alt.rstrip('.')}"
    return text + "."


def _audit_overrun(ctx, verdict, budget: int, what: str) -> None:
    elapsed = ctx.elapsed_ms()
    if verdict.unchecked or verdict.timed_out or elapsed > budget:
        ctx.audit("enforce_overrun", context=ctx.tool_name or ctx.event, result="allowed",
                  details={"budget_ms": budget, "elapsed_ms": round(elapsed, 1), "phase": what,
                           "unchecked_rules": verdict.unchecked[:50],
                           "forked": verdict.forked}, elapsed_ms=elapsed)
    if verdict.intent_skipped:
        ctx.audit("enforce_overrun", context=ctx.tool_name or ctx.event, result="intent_skipped",
                  details={"rules": verdict.intent_skipped[:50], "reason": verdict.intent_reason,
                           "phase": what})


def _audit_matches(ctx, verdict, subject: str | None) -> None:
    for m in verdict.matches:
        ctx.audit(f"enforce_{m.action}", entry_id=m.id, context=ctx.tool_name or ctx.event,
                  result={"block": "denied", "ask": "asked", "warn": "warned",
                          "suggest": "suggested"}.get(m.action, m.action),
                  details={"pattern": m.rule[PATTERN], "pattern_type": m.rule[PTYPE],
                           "field": m.field,
                           "matched": _redacted(m.snippet), "subject": _redacted(subject),
                           "decision": verdict.decision},
                  elapsed_ms=ctx.elapsed_ms())


def _subject(ctx) -> str | None:
    ti = ctx.tool_input
    return ti.get("command") or ti.get("file_path") or ctx.payload.get("prompt")


def pre_tool_use(ctx, resp) -> None:
    if not (ctx.settings.section("enforcement") or {}).get("enabled", True):
        return
    deadline, budget = _deadline(ctx, "enforcement", 100)
    _rs, verdict = _evaluate(ctx, "PreToolUse", deadline)
    if verdict is None:
        return
    _audit_overrun(ctx, verdict, budget, "enforce")
    if not verdict.matches:
        return
    _audit_matches(ctx, verdict, _subject(ctx))
    blocks = verdict.by_action("block")
    asks = verdict.by_action("ask")
    warns = verdict.by_action("warn")
    suggests = verdict.by_action("suggest")
    if blocks:
        lines = [describe(m) for m in blocks]
        resp.decide("deny", "Blocked by memory-cli: " + " ".join(lines))
        resp.notify("memory-cli blocked " + (ctx.tool_name or "the call") + ": "
                    + "; ".join(m.message for m in blocks))
    elif asks:
        resp.decide("ask", "memory-cli asks first: " + " ".join(describe(m) for m in asks))
    if warns:
        resp.add_context("memory-cli warning (the call was allowed): "
                         + " ".join(describe(m) for m in warns))
        resp.notify("memory-cli warned: " + "; ".join(m.message for m in warns))
    if suggests:
        resp.add_context("memory-cli suggestion: " + " ".join(describe(m) for m in suggests))


def post_tool_use(ctx, resp) -> None:
    if not (ctx.settings.section("verification") or {}).get("enabled", True):
        return
    deadline, budget = _deadline(ctx, "verification", 200)
    _rs, verdict = _evaluate(ctx, "PostToolUse", deadline)
    if verdict is None:
        return
    _audit_overrun(ctx, verdict, budget, "verify")
    violations = [m for m in verdict.matches if m.action in ("block", "warn")]
    if not violations:
        return
    from .api import record_violation

    escalate_after = int((ctx.settings.section("verification") or {}).get("escalate_after", 3))
    lines, notes = [], []
    for m in violations:
        counted = record_violation(ctx.store, m.id, escalate_after=escalate_after)
        ctx.audit("verify_fail", entry_id=m.id, context=ctx.tool_name, result="violation",
                  details={"pattern": m.rule[PATTERN], "field": m.field,
                           "matched": _redacted(m.snippet),
                           "subject": _redacted(_subject(ctx)),
                           "violation_count": counted["violation_count"],
                           "severity": counted["severity"], "escalated": counted["escalated"]},
                  elapsed_ms=ctx.elapsed_ms())
        lines.append(describe(m))
        note = f"{m.message} (violation {counted['violation_count']})"
        if counted["escalated"]:
            note += f"; severity raised to {counted['severity']}"
        notes.append(note)
    resp.block("memory-cli verification: this call went against a rule. " + " ".join(lines))
    resp.notify("memory-cli: rule violated: " + "; ".join(notes))


def _non_tool_event(ctx, resp, event: str) -> None:
    if not (ctx.settings.section("enforcement") or {}).get("enabled", True):
        return
    deadline, budget = _deadline(ctx, "enforcement", 100)
    _rs, verdict = _evaluate(ctx, event, deadline)
    if verdict is None:
        return
    _audit_overrun(ctx, verdict, budget, event)
    if not verdict.matches:
        return
    _audit_matches(ctx, verdict, _subject(ctx))
    blocks = verdict.by_action("block")
    others = [m for m in verdict.matches if m.action != "block"]
    if blocks and event == "Stop" and not ctx.payload.get("stop_hook_active"):
        resp.block(" ".join(describe(m) for m in blocks))
    elif blocks:
        resp.add_context("memory-cli rule: " + " ".join(describe(m) for m in blocks))
    if others:
        resp.add_context("memory-cli rule: " + " ".join(describe(m) for m in others))
    resp.notify("memory-cli: " + "; ".join(m.message for m in verdict.matches))


def stop(ctx, resp) -> None:
    """Imported hookify ``event: stop`` rules (a block keeps the turn going, once)."""
    _non_tool_event(ctx, resp, "Stop")


def user_prompt_submit(ctx, resp) -> None:
    """Imported hookify ``event: prompt`` rules."""
    _non_tool_event(ctx, resp, "UserPromptSubmit")

