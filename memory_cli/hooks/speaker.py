"""Who speaks in an event that carries the person's words (UserPromptSubmit).

A prompt is the person's: it captures corrections, promotes them into rules and approves what
waits for their word. An agent can run ``memory-cli hook UserPromptSubmit`` in its own shell
with a payload it wrote, and speak as the person. So before the handlers run, the hook's process
tree is checked (:func:`memory_cli.authority.hook_from_agent`): a hook Claude Code starts is its
direct child (or its hook shell's), while a call typed in the Bash tool sits under the tool's
shell. A forged event runs no handler: nothing is captured, the person is told, and an audit
row (``forged_prompt``) keeps what happened.

Only Claude Code's process tree has been verified; Codex CLI and Gemini CLI events pass.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .context import HookContext
    from .response import Response

PERSON_EVENTS = ("UserPromptSubmit",)


def screened(ctx: HookContext, resp: Response, specs: list) -> list:
    """``specs`` when the event comes from the agent that owns the session, else no handler."""
    if ctx.event not in PERSON_EVENTS or (ctx.client or "claude") != "claude":
        return specs
    from ..authority import hook_from_agent

    ok, why = hook_from_agent()
    if ok:
        return specs
    resp.notify("memory-cli: a UserPromptSubmit event was not sent by Claude Code (" + why + "); it was ignored")
    ctx.audit("forged_prompt", result="ignored", details={"why": why}, elapsed_ms=ctx.elapsed_ms())
    return []
