"""Hook handlers that put memories in front of the agent.

SessionStart: the session block (plus the marker instructions) as ``additionalContext``.
UserPromptSubmit: the few memories most relevant to the prompt, beside it.
PostToolUse (a Bash call that failed) and PostToolUseFailure: past solutions to similar errors.

The choosing lives in :mod:`.session_start`, :mod:`.per_prompt` and :mod:`.per_failure`; these
functions only read the payload, call it, and hand the text to the response. The runner catches anything raised here
and fails open, so a broken injection costs context, never a blocked call.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def _session_context(ctx) -> dict:
    return {"project": ctx.project or "", "project_root": ctx.project_root, "cwd": ctx.cwd, "files": list(ctx.files)}


def session_start(ctx: HookContext, resp: Response):
    from .session_start import inject

    source = ctx.payload.get("source") or "startup"
    sc = _session_context(ctx)
    if not sc["project"]:
        sc.pop("project")
    result = inject(ctx.store, sc, ctx.settings, session_id=ctx.session_id or None, source=source, hook_event=ctx.event)
    _add(resp, result["text"])
    if result.get("notice"):
        resp.notify(result["notice"])


PROMPT_CHARS = 8000


def user_prompt_submit(ctx: HookContext, resp: Response):
    from .per_prompt import for_prompt

    prompt = ctx.payload.get("prompt")
    if not isinstance(prompt, str):
        return
    # Retrieval reads the start of a prompt (a long paste adds no better query): bound the
    # work to it, whatever the prompt's size.
    result = for_prompt(
        ctx.store,
        prompt[:PROMPT_CHARS],
        ctx.settings,
        project=ctx.project,
        project_root=ctx.project_root,
        session_id=ctx.session_id or None,
        hook_event=ctx.event,
    )
    _add(resp, result["text"])


def _add(resp, text: str) -> None:
    """Tag what memory-cli injects so that Claude echoing it back (marker examples included)
    is never parsed as a new [MEMORY:...] marker at Stop."""
    if text and text.strip():
        from ..capture.markers import wrap_injected

        resp.add_context(wrap_injected(text.strip()))


def _offer_solutions(ctx, resp, error: str) -> None:
    from .per_failure import for_failure

    command = ctx.tool_input.get("command") if isinstance(ctx.tool_input.get("command"), str) else None
    result = for_failure(
        ctx.store,
        error,
        ctx.settings,
        tool_name=ctx.tool_name,
        command=command,
        project=ctx.project,
        project_root=ctx.project_root,
        files=ctx.files,
        session_id=ctx.session_id or None,
        hook_event=ctx.event,
    )
    _add(resp, result["text"])


def _may_have_failed(tool_response) -> bool:
    """False when :func:`.per_failure.bash_failed` is sure to say "succeeded" (no error code, nothing
    on stderr): most Bash calls, settled without importing the retrieval code."""
    if not isinstance(tool_response, dict) or tool_response.get("interrupted"):
        return False
    stderr = tool_response.get("stderr")
    if isinstance(stderr, str) and stderr.strip():
        return True
    return any(
        isinstance(tool_response.get(k), int) and tool_response.get(k) != 0
        for k in ("exit_code", "exitCode", "returncode", "returnCode", "return_code")
    )


def post_tool_use(ctx: HookContext, resp: Response):
    if ctx.tool_name != "Bash" or not _may_have_failed(ctx.payload.get("tool_response")):
        return
    from .per_failure import bash_failed

    error = bash_failed(ctx.payload.get("tool_response"))
    if error:
        _offer_solutions(ctx, resp, error)


def post_tool_use_failure(ctx: HookContext, resp: Response):
    if ctx.payload.get("is_interrupt"):
        return  # the person stopped it; nothing went wrong that memory could help with
    from .per_failure import error_text

    error = error_text(ctx.payload.get("error"))
    if not error.strip():
        return
    _offer_solutions(ctx, resp, error)
