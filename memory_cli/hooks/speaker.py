"""Who speaks in an event that carries the person's words (UserPromptSubmit).

A prompt is the person's: it captures corrections, promotes them into rules and approves what
waits for their word. An agent can run ``memory-cli hook UserPromptSubmit`` in its own shell
with a payload it wrote, and speak as the person. So before the handlers run, the hook's process
tree is checked (:func:`memory_cli.authority.hook_from_agent`): a hook the agent starts is its
direct child (or its hook shell's), while a call typed in its shell tool sits under the tool's
shell script. A forged event runs no handler: nothing is captured, the person is told, and an
audit row (``forged_prompt``) keeps what happened.

Verified process trees: Claude Code 2.1.328 (hooks through ``/bin/sh -c``, the Bash tool under
``bash -c 'source <snapshot> && eval ...'``) and Gemini CLI 0.61 (hooks direct children of its
node process, the shell tool under ``bash -c 'shopt ...; { ...}'``). Codex CLI 0.169 starts
both its hooks and its shell tool's single commands as its direct children, so the tree cannot
tell them apart there and Codex's events pass.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .context import HookContext
    from .response import Response

PERSON_EVENTS = ("UserPromptSubmit",)
_SCREENED = {"claude": "Claude Code", "gemini": "Gemini CLI"}


def screened(ctx: HookContext, resp: Response, specs: list) -> list:
    """``specs`` when the event comes from the agent that owns the session, else no handler."""
    agent = _SCREENED.get(ctx.client or "claude")
    if ctx.event not in PERSON_EVENTS or agent is None:
        return specs
    from ..authority import hook_from_agent

    ok, why = hook_from_agent()
    if ok:
        return specs
    resp.notify(f"memory-cli: a UserPromptSubmit event was not sent by {agent} ({why}); it was ignored")
    ctx.audit("forged_prompt", result="ignored", details={"why": why}, elapsed_ms=ctx.elapsed_ms())
    return []
