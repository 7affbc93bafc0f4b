"""PreToolUse enforcement and PostToolUse verification.

PreToolUse: a ``block`` rule denies the call with a reason Claude sees (the rule and what to
do instead); ``ask`` hands the decision to the person; ``warn`` lets the call through and tells
both Claude (``additionalContext``) and the person (``systemMessage``); ``suggest`` adds the
alternative as context. PostToolUse: what actually happened (the command run, the content
written, output when a rule names it) is checked again; each ``block``/``warn`` rule it
violates gets its violation counted (severity rises after repeated violations), is audited,
and is fed back beside the tool result and shown to the person.

Budgets (``enforcement.max_latency_ms``, ``verification.max_latency_ms``) run from the start
of this handler, not of the process (a slow interpreter start on a busy machine must not
spend them), and bound only work whose cost can be large (see :mod:`engine`): risky regexes,
inputs past a size, intent similarity. What they skip is audited, rule by rule, as one
``enforce_overrun`` row naming the rules and why, and allowed, except a block or ask rule whose
text is in the call (see :mod:`engine`), which denies or asks and says its check could not be
finished; cheap checks are always made.
Also: ``stop`` and ``user_prompt_submit`` evaluate rules imported from hookify files with
``event: stop`` / ``event: prompt``.
"""

from __future__ import annotations

import time

from ..settings import value as setting
from .ruleset import ACTION, ALT, PATTERN, PTYPE, SEVERITY

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

_MARGIN_S = 0.002  # left for rendering the answer
# CPU seconds of cheap work after which even cheap checks stop (a safety stop that only
# thousands of candidate rules on large inputs can reach; wall time does not count).
_CEILING_CPU_S = 1.0


class _Clock:
    """The budget's clock starts when the check starts (code imported, rule set loaded), not
    when the process did: a slow start on a busy machine spends wall time the check never
    used, and imports cost the same whatever the rules are."""

    __slots__ = ("started", "budget_ms", "deadline", "ceiling")

    def __init__(self, ctx, section: str):
        self.budget_ms = int(setting(ctx.settings, f"{section}.max_latency_ms"))
        self.start()

    def start(self) -> None:
        self.started = time.perf_counter()
        self.deadline = self.started + self.budget_ms / 1000.0 - _MARGIN_S
        self.ceiling = time.process_time() + _CEILING_CPU_S

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


def _evaluate(ctx, event: str, clock: _Clock):
    from . import engine, ruleset

    rs = ruleset.load(ctx.store)
    if not len(rs):
        return rs, None
    clock.start()
    verdict = engine.evaluate(
        rs,
        event=event,
        tool_name=ctx.tool_name,
        tool_input=ctx.tool_input,
        payload=ctx.payload,
        applies=ctx.scope_applies,
        deadline=clock.deadline,
        ceiling=clock.ceiling,
        intent_threshold=float(setting(ctx.settings, "enforcement.intent_threshold")),
        intent_timeout_ms=float(setting(ctx.settings, "daemon.request_timeout_ms")),
    )
    return rs, verdict


def _redacted(text, limit: int = 300) -> str | None:
    if not isinstance(text, str) or not text:
        return None
    from ..privacy.redact import redact

    return redact(text[:limit])[0]


def describe(m) -> str:
    """One line about a matched rule, phrased as facts (it reaches Claude)."""
    alt = m.rule[ALT]
    text = f"{m.message.rstrip('.')} [memory-cli rule {m.id[:8]}, {m.rule[SEVERITY]}]"
    if m.field == "intent":
        text += f" (an intent rule: this call looks related, {m.snippet})"
    elif m.field == "dynamic":
        text += (
            f": the call builds its words at run time ({m.snippet}); memory-cli cannot see which"
            f" program runs, and this rule forbids `{m.rule[PATTERN]}`, so it needs the person's go-ahead;"
            " written out in full, the command can be checked"
        )
    elif m.field == "operation":
        text += f": `{m.snippet}` does what `{m.rule[PATTERN]}` does, by another spelling"
        if m.action == "ask" and m.rule[ACTION] == "block":
            text += " (a force push with a lease: asked, not denied)"
    elif m.field == "run_time_path":
        text += f": {m.snippet}, so it needs the person's go-ahead; written out in full, it can be checked"
    elif m.field == "unchecked":
        text += (
            f": the call holds what this rule looks for, but the check could not be finished"
            f" ({m.snippet}), so it is not let through unchecked; a shorter command or input,"
            " or a script file, can be checked"
        )
    if alt:
        text += f"; alternative: {alt.rstrip('.')}"
    return text + "."


def _notice(m) -> str:
    """A matched rule in the person's one-line notice."""
    if m.field == "dynamic":
        return m.message + " (the call builds its words at run time)"
    return m.message + (" (its check could not be finished)" if m.field == "unchecked" else "")


_RESULT = {"block": "denied", "ask": "asked", "warn": "allowed", "suggest": "allowed", "allow": "allowed"}


def _audit_overrun(ctx, verdict, clock: _Clock, what: str, result: str | None = None) -> None:
    """One row per call that left rules undecided, naming each (id, name, kind, why); none
    when every rule was decided, however long the call took. ``result`` is what actually
    happened to the call (a call denied by another rule is "denied", never "allowed")."""
    if not verdict.skipped:
        return
    elapsed = clock.elapsed_ms()
    ctx.audit(
        "enforce_overrun",
        context=ctx.tool_name or ctx.event,
        result=result or _RESULT.get(verdict.decision, "allowed"),
        details={
            "phase": what,
            "budget_ms": clock.budget_ms,
            "elapsed_ms": round(elapsed, 1),
            "skipped": verdict.skipped[:50],
            "skipped_count": len(verdict.skipped),
            "unchecked_rules": verdict.unchecked[:50],
            "intent_skipped": verdict.intent_skipped[:50],
            "forked": verdict.forked,
        },
        elapsed_ms=elapsed,
    )


def _audit_matches(ctx, verdict, subject: str | None) -> None:
    for m in verdict.matches:
        ctx.audit(
            f"enforce_{m.action}",
            entry_id=m.id,
            context=ctx.tool_name or ctx.event,
            result={"block": "denied", "ask": "asked", "warn": "warned", "suggest": "suggested"}.get(
                m.action, m.action
            ),
            details={
                "pattern": m.rule[PATTERN],
                "pattern_type": m.rule[PTYPE],
                "field": m.field,
                "matched": _redacted(m.snippet),
                "subject": _redacted(subject),
                "decision": verdict.decision,
            },
            elapsed_ms=ctx.elapsed_ms(),
        )


def _subject(ctx) -> str | None:
    ti = ctx.tool_input
    for v in (ti.get("command"), ti.get("file_path"), ctx.payload.get("prompt")):
        if isinstance(v, str) and v:
            return v[:1000]
    return None


def _rewritten(ctx, matched, clock) -> dict | None:
    """The tool input rewritten to the one rule's named replacement, when that is plain and
    nothing stops the rewritten call (``enforcement.rewrite_to_alternative``, Claude Code only)."""
    if len(matched) != 1 or ctx.client not in (None, "claude") or ctx.tool_name != "Bash":
        return None
    if not setting(ctx.settings, "enforcement.rewrite_to_alternative"):
        return None
    m = matched[0]
    if m.rule[PTYPE] != "command":
        return None
    from . import engine, ruleset
    from .rewrite import rewrite

    command = ctx.tool_input.get("command")
    new = rewrite(command, m.rule[PATTERN], m.rule[ALT])
    if new is None:
        return None
    tool_input = dict(ctx.tool_input, command=new)
    again = engine.evaluate(
        ruleset.load(ctx.store),
        event="PreToolUse",
        tool_name=ctx.tool_name,
        tool_input=tool_input,
        payload=dict(ctx.payload, tool_input=tool_input),
        applies=ctx.scope_applies,
        deadline=clock.deadline,
        ceiling=clock.ceiling,
        use_intent=False,  # intent rules never block or ask
    )
    if again is None or again.by_action("block") or again.by_action("ask") or again.skipped:
        return None
    return tool_input


def _ask_or_defer(ctx) -> str:
    """``defer`` instead of ``ask`` when nobody is there to answer (Claude Code sets
    ``CLAUDE_CODE_SESSION_ATTENDED=0`` for ``claude -p``) and ``enforcement.headless_ask`` is
    ``defer``: the run stops with the call pending (``stop_reason: tool_deferred``) for the
    person or the host to decide and resume, instead of a refusal the model works around."""
    import os

    if ctx.client not in (None, "claude") or os.environ.get("CLAUDE_CODE_SESSION_ATTENDED") != "0":
        return "ask"
    return "defer" if setting(ctx.settings, "enforcement.headless_ask") == "defer" else "ask"


def _change_course(blocks) -> str:
    """Said to the model beside a deny (``additionalContext``): the deny reason reads like a
    tool error, which a model tends to retry in another spelling; this says why it will not pass
    and what to do instead."""
    alts = [m.rule[ALT].rstrip(".") for m in blocks if m.rule[ALT]]
    instead = f"do this instead: {'; '.join(alts)}" if alts else "ask the person how to proceed"
    rules = ", ".join(m.id[:8] for m in blocks)
    return (
        f"memory-cli denied the last call under the person's standing rule ({rules}). It is not a "
        f"transient error: the same action in another spelling is denied too. Change course and {instead}."
    )


def pre_tool_use(ctx: HookContext, resp: Response) -> None:
    if not setting(ctx.settings, "enforcement.enabled"):
        return
    clock = _Clock(ctx, "enforcement")
    _rs, verdict = _evaluate(ctx, "PreToolUse", clock)
    if verdict is None:
        return
    if ctx.tool_name == "Bash" and not isinstance(ctx.tool_input.get("command"), str):
        from ..hooks.shapes import unreadable

        what = unreadable(ctx.tool_name, ctx.tool_input)
        if what:  # a shell call in a shape no rule can read: said, not allowed in silence
            resp.notify(f"memory-cli could not check this shell call: {what}; no command rule was applied")
    _audit_overrun(ctx, verdict, clock, "enforce")
    if not verdict.matches:
        return
    _audit_matches(ctx, verdict, _subject(ctx))
    blocks = verdict.by_action("block")
    asks = verdict.by_action("ask")
    warns = verdict.by_action("warn")
    suggests = verdict.by_action("suggest")
    rewritten = _rewritten(ctx, blocks + asks, clock) if (blocks or asks) else None
    if rewritten is not None:
        m = (blocks + asks)[0]
        resp.decide(
            "ask",
            f"memory-cli rewrote the call to what its rule says to use instead: `{rewritten['command']}`. "
            + describe(m),
        )
        resp.updated_input = rewritten
        resp.notify(f"memory-cli rewrote the call to `{rewritten['command']}` ({m.message}); confirm to run it")
    elif blocks:
        lines = [describe(m) for m in blocks]
        resp.decide("deny", "Blocked by memory-cli: " + " ".join(lines))
        if ctx.client in (None, "claude"):  # Gemini ignores BeforeTool context; Codex: unproven
            resp.add_context(_change_course(blocks))
        resp.notify("memory-cli blocked " + (ctx.tool_name or "the call") + ": " + "; ".join(map(_notice, blocks)))
    elif asks:
        resp.decide(_ask_or_defer(ctx), "memory-cli asks first: " + " ".join(describe(m) for m in asks))
        if any(m.field in ("dynamic", "operation", "run_time_path") and m.rule[ACTION] == "block" for m in asks):
            # a block rule's words built at run time, or its operation by a safer spelling
            # (--force-with-lease): never only a warning
            resp.ask_or_deny = True
    if warns:
        resp.add_context("memory-cli warning (the call was allowed): " + " ".join(describe(m) for m in warns))
        resp.notify("memory-cli warned: " + "; ".join(m.message for m in warns))
    if suggests:
        resp.add_context("memory-cli suggestion: " + " ".join(describe(m) for m in suggests))


def post_tool_use(ctx: HookContext, resp: Response) -> None:
    if not setting(ctx.settings, "verification.enabled"):
        return
    clock = _Clock(ctx, "verification")
    _rs, verdict = _evaluate(ctx, "PostToolUse", clock)
    if verdict is None:
        return
    # A call that only looked (`pip list` under a rule on pip) did not do what the rule is about.
    violations = [m for m in verdict.matches if m.action in ("block", "warn") and not m.read_only]
    _audit_overrun(ctx, verdict, clock, "verify", "violation" if violations else "allowed")
    if not violations:
        return
    escalate_after = int(setting(ctx.settings, "verification.escalate_after"))
    lines, notes = [], []
    for m in violations:
        counted = _count_violation(ctx, m.id, escalate_after)
        ctx.audit(
            "verify_fail",
            entry_id=m.id,
            context=ctx.tool_name,
            result="violation",
            details={
                "pattern": m.rule[PATTERN],
                "field": m.field,
                "matched": _redacted(m.snippet),
                "subject": _redacted(_subject(ctx)),
                "violation_count": counted.get("violation_count"),
                "severity": counted.get("severity"),
                "escalated": counted.get("escalated"),
                "count_error": counted.get("error"),
                "count_queued": counted.get("queued"),
            },
            elapsed_ms=ctx.elapsed_ms(),
        )
        lines.append(describe(m))
        note = m.message
        if counted.get("violation_count") is not None:
            note += f" (violation {counted['violation_count']})"
        if counted.get("escalated"):
            note += f"; severity raised to {counted['severity']}"
        notes.append(note)
    # A block rule's violation goes beside the tool result (`decision: block`); a warn rule
    # only warns, as context, as it did before the call.
    blocked = [line for m, line in zip(violations, lines) if m.action == "block"]
    warned = [line for m, line in zip(violations, lines) if m.action != "block"]
    if blocked:
        resp.block("memory-cli verification: this call went against a rule. " + " ".join(blocked))
    if warned:
        resp.add_context(
            "memory-cli verification warning: this call went against a warn-level rule. " + " ".join(warned)
        )
    resp.notify("memory-cli: rule violated: " + "; ".join(notes))


def _count_violation(ctx, rule_id: str, escalate_after: int) -> dict:
    """Count the violation now if the write lock is free at once; otherwise it is spooled and
    counted by the next process that gets the lock (the feedback goes out either way)."""
    from ..store import spool
    from ..store.db import LockBusy
    from .api import record_violation

    try:
        with ctx.store.transaction(wait=False):
            return record_violation(ctx.store, rule_id, escalate_after=escalate_after)
    except LockBusy:
        try:
            spool.put(ctx.store.path, [spool.make("violation", {"rule_id": rule_id, "escalate_after": escalate_after})])
            return {"queued": True}
        except Exception as e:
            return {"error": f"{type(e).__name__}: {e}"[:200]}
    except Exception as e:  # the store is failing: the feedback still goes out
        return {"error": f"{type(e).__name__}: {e}"[:200]}


def _non_tool_event(ctx, resp, event: str) -> None:
    if not setting(ctx.settings, "enforcement.enabled"):
        return
    clock = _Clock(ctx, "enforcement")
    _rs, verdict = _evaluate(ctx, event, clock)
    if verdict is None:
        return
    _audit_overrun(ctx, verdict, clock, event)
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


def stop(ctx: HookContext, resp: Response) -> None:
    """Imported hookify ``event: stop`` rules (a block keeps the turn going, once)."""
    _non_tool_event(ctx, resp, "Stop")


def user_prompt_submit(ctx: HookContext, resp: Response) -> None:
    """Imported hookify ``event: prompt`` rules."""
    _non_tool_event(ctx, resp, "UserPromptSubmit")
