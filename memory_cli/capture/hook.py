"""UserPromptSubmit: capture corrections, keep the prompt. Stop: the agent's markers and lessons.

Both run on every prompt or turn, so the common case is cheap: detection (no I/O) before any
transcript read, one small insert of the prompt (what a lesson's quote is checked against,
:mod:`.lessons`), and a substring check before marker parsing. Neither handler ever blocks:
UserPromptSubmit stores every detection (redacted) for ``memory-cli review``. The agent itself
records what it was taught (``record_correction`` or a ``[LESSON: ...]`` line, read here at
Stop), so the detector's reading is told to it only when ``capture.agent_lessons`` is off: then
one factual line ("Recorded correction: use pnpm, not npm.") for a confident detection
(``wording.is_confident``). It tells the person (``systemMessage``) when a correction was
just proposed as a rule; Stop tells the person what it remembered. The runner catches anything
that raises (fail open).
"""

from __future__ import annotations

from ..settings import value as setting

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def _enabled(ctx) -> bool:
    try:
        return setting(ctx.settings, "capture.enabled") is not False
    except Exception:
        return True


def _embedder(ctx):
    """The daemon when warm (bounded by daemon.request_timeout_ms), else None: lexical only."""
    try:
        timeout = float(setting(ctx.settings, "daemon.request_timeout_ms"))
    except Exception:
        timeout = float(setting(None, "daemon.request_timeout_ms"))
    from .semantic import daemon_embedder

    return daemon_embedder(timeout)


def _scope(ctx) -> str:
    """Where the agent's markers are kept: this checkout (see ``scope.checkout``)."""
    from .. import scope as scopes

    return scopes.checkout(ctx.project_root) or "global"


def _agent_lessons(ctx) -> bool:
    """Whether the agent was taught to record lessons itself (``capture.agent_lessons``)."""
    try:
        return setting(ctx.settings, "capture.agent_lessons") is not False
    except Exception:
        return True


def user_prompt_submit(ctx: HookContext, resp: Response) -> None:
    prompt = ctx.payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip() or not _enabled(ctx):
        return
    from .detect import detect

    read_turn: list = []

    def turn():
        """The agent's last turn, read from the transcript at most once per prompt."""
        if not read_turn:
            from .agent_turn import read

            said = read(ctx.payload.get("transcript_path"), prompt)
            if said is not None and said.errors:  # a call auto mode refused answers with an error
                from .denied import mark_turn

                said = mark_turn(ctx.store, ctx.session_id, said)
            read_turn.append(said)
        return read_turn[0]

    detection = detect(prompt, turn)
    result = {}
    if detection is not None:
        from .corrections import capture

        result = capture(
            ctx.store,
            prompt,
            session_id=ctx.session_id or None,
            transcript_path=ctx.payload.get("transcript_path"),
            project=ctx.project,
            agent=ctx.agent,
            settings=ctx.settings,
            embed=_embedder(ctx),
            hook_event=ctx.event,
            detection=detection,
            turn=turn,
        )
    lessons = _agent_lessons(ctx)
    if lessons:
        # What a lesson's quote is checked against (the agent records, the person's words decide).
        from .lessons import remember_prompt

        remember_prompt(
            ctx.store,
            prompt,
            session_id=ctx.session_id or None,
            project=ctx.project,
            correction_id=result.get("id") if not result.get("queued") else None,
        )
    if not result.get("correction"):
        return
    from .wording import context_line, is_confident, promotion_notice

    # The agent records what it was taught, so the detector's reading is not told to it (a
    # wrong "Recorded correction" line tells it it was corrected when it was not).
    if not lessons and is_confident(detection, prompt):
        resp.add_context(context_line(result))
    if result.get("promoted_now"):
        resp.notify(promotion_notice(result))


def stop(ctx: HookContext, resp: Response) -> None:
    if not _enabled(ctx):
        return
    from .markers import assistant_text_since_last_stop, parse_markers

    last = ctx.payload.get("last_assistant_message")
    last = last.strip() if isinstance(last, str) else ""
    path = ctx.payload.get("transcript_path")
    # The transcript holds the whole turn (markers written before a tool call too); the
    # payload's last message covers a transcript that is not flushed yet.
    turn = assistant_text_since_last_stop(path) if isinstance(path, str) and path else ""
    text = turn if (not last or last in turn) else (turn + "\n\n" + last if turn else last)
    low = text.lower()
    if "[lesson:" in low and _agent_lessons(ctx):
        _record_lessons(ctx, resp, text)
    if "[memory:" not in low:
        return
    parsed = parse_markers(text)
    if not parsed:
        return
    from ..privacy.redact import redact

    for bad in parsed.unknown:
        ctx.audit(
            "marker",
            context=redact(bad.raw)[0][:200],
            result="rejected",
            details={"category": bad.category, "subject": bad.subject, "problem": bad.problem},
        )
    results = []
    if parsed.markers:
        from .lifecycle import record_markers

        results = record_markers(
            ctx.store,
            parsed.markers,
            session_id=ctx.session_id or None,
            agent=ctx.agent or "main",
            scope=_scope(ctx),
            embed=_embedder(ctx),
            hook_event=ctx.event,
        )
    from .lifecycle import summary

    line = summary(results, rejected=len(parsed.unknown))
    if line:
        resp.notify(line)


def _record_lessons(ctx, resp, text: str) -> None:
    """``[LESSON: "<quote>" -> <lesson>]`` lines of the turn: the agent's path without MCP tools."""
    from .lessons import LessonRefused, parse_lessons, record_lesson

    recorded = refused = 0
    for quote, lesson in parse_lessons(text):
        try:
            out = record_lesson(
                ctx.store,
                quote=quote,
                lesson=lesson,
                project=ctx.project,
                session_id=ctx.session_id or None,
                agent=ctx.client or ctx.agent,
                via="marker",
                settings=ctx.settings,
                hook_event=ctx.event,
            )
        except LessonRefused:
            refused += 1
            continue
        if not out.get("already"):
            recorded += 1
        if out.get("promoted_now"):
            from .wording import promotion_notice

            resp.notify(promotion_notice(out))
    if recorded or refused:
        parts = [f"{recorded} lesson{'s' if recorded != 1 else ''} recorded for review"] if recorded else []
        if refused:
            parts.append(f"{refused} refused (quote not typed by you)")
        resp.notify("memory-cli: " + ", ".join(parts))
