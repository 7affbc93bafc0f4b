"""Other coding agents' hook calls answered in each agent's own format.

The agents' vocabularies and the reading of their payloads as Claude-shaped ones are in
:mod:`memory_cli.agent_calls`; this part of the adapter knows how each agent wants its answer:

* Codex rejects a PreToolUse ``ask`` (and ``allow``): an ask rule reaches Codex as a warning.
* Gemini answers a tool call with top-level ``decision``/``reason`` and escapes ``<``/``>`` in
  additional context.

It runs on the hook path, so it uses the standard library only.
"""

from __future__ import annotations


def render(agent: str, native: str, event: str, response) -> dict | None:
    """The answer for the agent, from a :class:`~memory_cli.hooks.response.Response`."""
    if agent in ("codex", "gemini") and event == "PreToolUse" and response.decision == "ask" and response.ask_or_deny:
        # A call that must be asked (a block rule's words built at run time) is denied where the
        # agent may not be able to ask: Codex never can, and a headless Gemini (`gemini -p`)
        # waits forever on a hook's ask, which a hook cannot tell from an interactive session.
        # The reason is the one the person would have been asked with.
        response.decision = "deny"
    if agent == "codex" and event == "PreToolUse" and response.decision == "ask":
        # Codex accepts only deny here; what a rule wanted confirmed is said, not decided.
        for reason in response.reasons:
            response.add_context(f"memory-cli asks to confirm first: {reason}")
            response.notify(f"memory-cli: confirm first: {reason}")
        response.decision = None
    if agent != "gemini":
        return response.render(event)
    return _render_gemini(native, event, response)


def _render_gemini(native: str, event: str, response) -> dict | None:
    from .response import _cap

    out: dict = {}
    context = list(response.context)
    if response.decision and event == "PreToolUse":
        out["decision"] = response.decision
        out["reason"] = _cap("\n".join(response.reasons))
    if response.block_reason:
        if event == "Stop":  # AfterAgent: the agent goes on with the reason, as after Claude's Stop
            out["decision"] = "block"
            out["reason"] = _cap(response.block_reason)
        else:  # AfterTool: said beside the tool result
            context.append(response.block_reason)
    if context and event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"):
        out["hookSpecificOutput"] = {"hookEventName": native, "additionalContext": _cap("\n\n".join(context))}
    if response.notices and event != "SessionEnd":
        out["systemMessage"] = _cap("\n".join(response.notices))
    return out or None


def merge(responses: list):
    """One answer from the answers to each file of a patch: deny wins, everything is said."""
    first = responses[0]
    for r in responses[1:]:
        for text in r.context:
            if text not in first.context:
                first.add_context(text)
        for text in r.notices:
            if text not in first.notices:
                first.notify(text)
        if r.decision:
            for reason in r.reasons:
                first.decide(r.decision, reason)
            first.ask_or_deny = first.ask_or_deny or r.ask_or_deny
        if r.block_reason:
            first.block(r.block_reason)
    return first
