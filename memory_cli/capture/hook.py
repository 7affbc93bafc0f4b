"""UserPromptSubmit: capture corrections. Stop: apply the agent's memory markers.

Both run on every prompt or turn, so the common case returns after a regex scan: detection
(no I/O) before any transcript read or database write, and a substring check before marker
parsing. Neither handler ever blocks: UserPromptSubmit stores every detection (redacted) and
adds one factual line of context ("Recorded correction: use pnpm, not npm.") only for a
confident one (``corrections.is_confident``), so Claude adapts in this very session without
being told of a correction that was praise or a brief; the rest wait quietly in
``memory-cli review``. It tells
the person (``systemMessage``) when a correction was just proposed as a rule; Stop only tells
the person what it remembered. The runner catches anything that raises (fail open).
"""

from __future__ import annotations


def _enabled(ctx) -> bool:
    try:
        return ctx.settings.section("capture").get("enabled", True) is not False
    except Exception:
        return True


def _embedder(ctx):
    """The daemon when warm (bounded by daemon.request_timeout_ms), else None: lexical only."""
    try:
        timeout = float(ctx.settings.section("daemon").get("request_timeout_ms", 150))
    except Exception:
        timeout = 150.0
    from .semantic import daemon_embedder

    return daemon_embedder(timeout)


def _scope(ctx) -> str:
    """Where the agent's markers are kept: this checkout (see ``scope.checkout``)."""
    from .. import scope as scopes

    return scopes.checkout(ctx.project_root) or "global"


def user_prompt_submit(ctx, resp) -> None:
    prompt = ctx.payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip() or not _enabled(ctx):
        return
    from .detect import detect

    read_turn: list = []

    def turn():
        """The agent's last turn, read from the transcript at most once per prompt."""
        if not read_turn:
            from .agent_turn import read

            read_turn.append(read(ctx.payload.get("transcript_path"), prompt))
        return read_turn[0]

    detection = detect(prompt, turn)
    if detection is None:
        return
    from .corrections import capture, context_line, is_confident, promotion_notice

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
    if not result.get("correction"):
        return
    if is_confident(detection, prompt):
        resp.add_context(context_line(result))
    if result.get("promoted_now"):
        resp.notify(promotion_notice(result))


def stop(ctx, resp) -> None:
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
    if "[memory:" not in text.lower():
        return
    parsed = parse_markers(text)
    if not parsed:
        return
    from ..redact import redact

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
