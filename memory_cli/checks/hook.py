"""The hook handlers of the checks: the Stop checks memory-cli runs itself, and reminders.

``stop`` runs the deterministic checks over the turn's calls (read from the transcript) for the
lessons in force here, and sends the agent back once per turn (``stop_hook_active``) with the
reason. Judged lessons are Claude Code's own ``prompt`` hook's to judge; this handler only
counts them (``judged``) and, at the Stop after a send-back, reads from the transcript which
lessons the judge named (``sent_back``). In Codex CLI and Gemini CLI, which have no prompt hooks,
it asks the person's session provider (:mod:`.provider_judge`) when one is on.

``pre_tool_use`` puts a reminder lesson beside each call of the tools it names, and asks the
person before each call of the tools an ``ask`` lesson names.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

_FEEDBACK_BYTES = 128 * 1024


def _lessons(ctx, form: str) -> list[dict]:
    from . import forms

    try:
        if forms.paused(ctx.store):
            return []
        rows = forms.in_force(ctx.store, form=form)
    except Exception as e:  # a store without the table yet: no lesson has a form
        if "no such table" in str(e):
            return []
        raise
    return [r for r in rows if ctx.scope_applies(r["scope"])]


def pre_tool_use(ctx: HookContext, resp: Response) -> None:
    tool = ctx.tool_name
    if not tool:
        return
    for r in _lessons(ctx, "reminder"):
        if tool in r["tools"]:
            resp.add_context(f"memory-cli reminder (a lesson you were taught): {r['content']}")
    for r in _lessons(ctx, "ask"):
        if tool in r["tools"]:
            resp.decide("ask", f"memory-cli: a lesson you approved is about this tool: {r['content']}")


def _broken(kind: str, calls) -> str | None:
    """Why the turn broke a deterministic lesson, or None when it kept it."""
    from . import compile as compiler

    last_write = max((i for i, c in enumerate(calls) if c.writes), default=-1)
    if last_write < 0:
        return None  # the turn changed no file: the lesson does not apply
    after = calls[last_write + 1 :]
    if kind == compiler.COMMIT_AFTER_EDIT and not any(c.commits for c in after):
        return f"this turn changed files ({calls[last_write].line(80)}) and ran no `git commit` after; commit now"
    if kind == compiler.TESTS_AFTER_EDIT and not any(c.tests for c in after):
        return f"this turn changed files ({calls[last_write].line(80)}) and ran no tests after; run them now"
    return None


def stop(ctx: HookContext, resp: Response) -> None:
    lessons = _lessons(ctx, "stop-check")
    if not lessons:
        return
    from . import judge, turn, verdicts

    active = bool(ctx.payload.get("stop_hook_active"))
    path = ctx.payload.get("transcript_path")
    deterministic = [r for r in lessons if r["check_kind"] not in (None, "judge")]
    judged = [r for r in lessons if r["check_kind"] == "judge"]
    reasons = []
    if deterministic:
        calls = turn.calls(path, ctx.client) if isinstance(path, str) else None
        for r in deterministic:
            if calls is None:
                continue  # no transcript: nothing to judge the turn by
            why = _broken(r["check_kind"], calls)
            # The Stop right after a send-back is the same turn going on: Claude Code and Codex
            # say so (`stop_hook_active`); Gemini CLI does not, so this lesson's own last verdict
            # in the session says it too. Either way it is never sent back twice.
            again = active or verdicts.last_result(ctx.store, ctx.session_id, r["id"]) == "sent_back"
            if why and not again:
                reasons.append(f"[{judge.tag(r['id'])}] {why} (lesson: {r['content']})")
                result = "sent_back"
            elif again:
                result = "ended_unkept" if why else "kept_after_send_back"
            else:
                result = "ended_unkept" if why else "kept"
            ctx.audit(
                verdicts.ACTION,
                entry_id=r["id"],
                context=r["content"][:200],
                result=result,
                details={"check": r["check_kind"], "calls": len(calls), "reason": why},
            )
    if judged:
        if ctx.client in (None, "claude"):
            _count_platform_judge(ctx, judged, active, path)
        else:
            from . import provider_judge

            reasons += provider_judge.judge(ctx, judged, active)
    if reasons:
        resp.block("memory-cli Stop check: " + "\n".join(reasons))
        resp.notify("memory-cli: sent back by a lesson's Stop check")


def _count_platform_judge(ctx, judged: list[dict], active: bool, path) -> None:
    """Claude Code's prompt hook judges these; count the turn, and at the Stop after a send-back
    the lessons the judge's reason named (read from the transcript)."""
    from . import judge, verdicts

    named: set[str] = set()
    if active and isinstance(path, str):
        named = set(judge.tags_in(_feedback_when_written(path)))
    if isinstance(path, str):
        _count_failures(ctx, judged, path)
    for r in judged:
        if active and judge.tag(r["id"]) not in named:
            continue
        ctx.audit(
            verdicts.ACTION,
            entry_id=r["id"],
            context=r["content"][:200],
            result="sent_back" if active else "judged",
            details={"check": "judge", "by": "claude-code prompt hook"},
        )


# Claude Code may start this hook a moment before it appends the send-back's feedback to the
# transcript: at the Stop after a send-back (only then), wait this long for it to appear.
_FEEDBACK_WAIT_S = 0.6


def _feedback_when_written(path: str) -> str:
    import time

    deadline = time.monotonic() + _FEEDBACK_WAIT_S
    while True:
        text = _last_feedback(path)
        if text or time.monotonic() >= deadline:
            return text
        time.sleep(0.03)


def _last_feedback(path: str) -> str:
    """The text of the latest Stop hook feedback in the transcript ("" when none)."""
    from ..capture.transcript_records import blocks, decode_line, reverse_lines

    for n, raw in enumerate(reverse_lines(path, _FEEDBACK_BYTES)):
        if n > 200:
            break
        if b"Stop hook" not in raw and b"memory-cli Stop check" not in raw:
            continue
        rec = decode_line(raw)
        if not rec:
            continue
        texts = [b.get("text", "") for b in blocks(rec) if isinstance(b.get("text"), str)]
        for key in ("content", "stopReason", "reason"):
            if isinstance(rec.get(key), str):
                texts.append(rec[key])
        text = "\n".join(texts)
        if "Stop hook" in text:
            # "Stop hook feedback:\n[<the hook's prompt or command>]: <reason>": the reason only,
            # since the prompt itself quotes every lesson's tag
            return text.rpartition("$ARGUMENTS]:")[2] if "$ARGUMENTS]:" in text else text
    return ""


def _count_failures(ctx, judged: list[dict], path: str) -> None:
    """The platform's judge failures (no usable verdict: the turn ended), which Claude Code
    records in the transcript as a ``hook_non_blocking_error`` of the prompt hook: each counted
    once (by its id), at the session's next Stop."""
    from ..capture.transcript_records import decode_line, reverse_lines
    from . import judge, verdicts

    by_tag = {judge.tag(r["id"]): r for r in judged}
    for n, raw in enumerate(reverse_lines(path, _FEEDBACK_BYTES)):
        if n > 400:
            break
        if b"hook_non_blocking_error" not in raw or judge.MARKER.encode() not in raw:
            continue
        rec = decode_line(raw)
        att = rec.get("attachment") if rec else None
        if not isinstance(att, dict) or not str(att.get("command", "")).startswith(judge.MARKER):
            continue
        failure = str(att.get("toolUseID") or rec.get("uuid") or "")
        if not failure or verdicts.failure_counted(ctx.store, failure):
            continue
        for tag in judge.tags_in(att["command"].partition("Rules for judging")[0]):
            r = by_tag.get(tag)
            if r is not None:
                ctx.audit(
                    verdicts.ACTION,
                    entry_id=r["id"],
                    context=r["content"][:200],
                    result="judge_failed",
                    details={
                        "check": "judge",
                        "by": "claude-code prompt hook",
                        "failure": failure,
                        "error": str(att.get("stderr") or "")[:200],
                    },
                )
