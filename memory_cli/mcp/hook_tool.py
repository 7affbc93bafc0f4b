"""The MCP server's ``hook`` tool: Claude Code's ``mcp_tool`` hooks call it for the per-call
events, so a tool call is checked without starting a process (see :mod:`memory_cli.hook_routes`).

It is kept from the model: its ``_meta.ui.visibility`` lists only ``app`` (MCP Apps), which the
pinned Claude Code reads as "not for the model" while its hooks may still call it. An agent that
calls it anyway gains nothing: it only answers what the rules would decide for the call it
describes; it approves nothing (an allow is no decision at all) and changes no rule.
"""

from __future__ import annotations

import os

from ..hook_routes import ALL_FIELDS, HOOK_TOOL

DESCRIPTION = (
    "Internal to memory-cli's hooks in Claude Code (they call it on each tool call); not for the "
    "model. It only returns the hook JSON the rules would give for the described call."
)
# MCP Apps (SEP-1865): a tool whose visibility omits "model" is not offered to the model.
META = {"ui": {"visibility": ["app"]}}


def register(app, pins) -> None:
    """Add the tool to ``app``; ``pins()`` gives the store and config the server was started
    with (``--db``, the ``MEMORY_CLI_CONFIG`` of its registration), which the hook uses as a
    hook command uses its ``--db``/``--config``."""
    from ..hooks.mcp_route import answer

    def hook(
        event: str,
        session_id: str = "",
        transcript_path: str = "",
        cwd: str = "",
        permission_mode: str = "",
        hook_event_name: str = "",
        agent_id: str = "",
        agent_type: str = "",
        tool_name: str = "",
        tool_input: str = "",
        tool_use_id: str = "",
        tool_response: str = "",
        duration_ms: str = "",
        error: str = "",
        is_interrupt: str = "",
        reason: str = "",
    ) -> str:
        args = locals()
        fields = {name: args[name] for name in ALL_FIELDS}
        db, config = pins()
        return answer(event, fields, db=db, config=config)

    app.tool(name=HOOK_TOOL, description=DESCRIPTION, meta=META, structured_output=False)(hook)


def config_pin() -> str | None:
    """The config this server's registration pinned (its ``env``), read once at start."""
    value = os.environ.get("MEMORY_CLI_CONFIG")
    return value or None
