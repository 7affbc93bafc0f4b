"""Judged lessons in Codex CLI (``Stop``) and Gemini CLI (``AfterAgent``), which have no
``prompt`` hooks: the judge's request (:mod:`.judge`, the same text Claude Code's evaluator
gets) goes to the session provider the person turned on (``llm.provider``: claude-cli,
anthropic, openai-compatible) through :func:`memory_cli.llm.providers.ask`, with its daily cap,
redaction and audit. With no provider on, the lessons there are advice (``doctor`` says so).
A judge that fails or is too slow lets the turn end (``judge_failed``).
"""

from __future__ import annotations

VERDICT_TOOL = {
    "name": "verdict",
    "description": "Whether the final message keeps the lessons.",
    "input_schema": {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["ok", "reason"],
    },
}
SYSTEM = "You judge a coding agent's final message against lessons its user approved. Answer with the verdict only."


def judge(ctx, judged: list[dict], active: bool) -> list[str]:
    """Send-back reasons for the lessons the provider judged broken ([] when kept, when the turn
    was already sent back once, or when no provider is on)."""
    import json

    from . import judge as j
    from . import verdicts

    if active or any(verdicts.last_result(ctx.store, ctx.session_id, r["id"]) == "sent_back" for r in judged):
        return []  # sent back once this turn already (Gemini CLI does not say so: the audit does)
    try:
        from ..llm import providers

        provider = providers.provider_for(ctx.settings)
    except Exception:  # noqa: BLE001 - an unusable llm section: no judge, advice only
        provider = None
    if provider is None:
        return []
    message = ctx.payload.get("last_assistant_message")
    args = json.dumps(
        {"last_assistant_message": message if isinstance(message, str) else "", "stop_hook_active": active}
    )
    reasons = []
    for chunk in j.chunks([(r["id"], r["content"]) for r in judged]):
        try:
            answer = providers.ask(
                ctx.store,
                ctx.settings,
                provider,
                purpose="stop_check",
                system=SYSTEM,
                prompt=j.prompt(chunk, args),
                tool=VERDICT_TOOL,
                session_id=ctx.session_id,
            )
            verdict = answer.input if isinstance(answer.input.get("ok"), bool) else None
        except Exception as err:  # noqa: BLE001 - a judge that fails lets the turn end
            verdict, failure = None, f"{type(err).__name__}: {err}"[:200]
        else:
            failure = None if verdict else "no ok/reason in the answer"
        named = set(j.tags_in(str((verdict or {}).get("reason") or "")))
        for lesson_id, text in chunk:
            if verdict is None:
                result = "judge_failed"
            elif verdict["ok"] is False and (j.tag(lesson_id) in named or len(chunk) == 1):
                result = "sent_back"
            else:
                result = "kept"
            ctx.audit(
                verdicts.ACTION,
                entry_id=lesson_id,
                context=text[:200],
                result=result,
                details={"check": "judge", "by": getattr(provider, "name", None), "error": failure},
            )
        if verdict is not None and verdict["ok"] is False:
            reasons.append(str(verdict.get("reason") or "a lesson was not kept")[:500])
    return reasons
