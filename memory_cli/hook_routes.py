"""The two routes by which Claude Code reaches memory-cli's per-call hooks, as settings entries.

- ``command``: Claude Code starts a hook process for each event (``memory-cli ... hook EVENT``).
- ``mcp_tool``: Claude Code calls the ``hook`` tool of memory-cli's MCP server, which it already
  runs for the session, so a tool call costs no process start. The tool's arguments are the
  hook input's fields, interpolated by Claude Code (``"${tool_input}"``: an object arrives as
  its JSON text, a missing field as ``""``); the server puts the payload back together and runs
  the same runner and handlers as the command route (:mod:`memory_cli.hooks.mcp_route`).

Only the per-call events take the ``mcp_tool`` route: they run on every tool call, where a
process start is the whole cost. The gate (PreToolUse) carries ``onFailure: "block"``: with
the server gone (not started, crashed, timed out) the call is blocked and the person told why,
instead of going through unchecked. No ``if`` condition narrows the entries: any Bash command
can match a rule through some spelling, so every call of a gated tool must reach the gate; the
matcher already leaves out tools no rule concerns.
"""

from __future__ import annotations

SERVER = "memory-cli"  # the MCP server name `install` registers (mcp.registration.SERVER)
HOOK_TOOL = "hook"
ROUTES = ("auto", "mcp_tool", "command")

# The hook input fields of each per-call event that the handlers read, as Claude Code sends
# them; each becomes one string argument of the ``hook`` tool.
COMMON_FIELDS = (
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
    "agent_id",
    "agent_type",
)
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "PreToolUse": ("tool_name", "tool_input", "tool_use_id"),
    "PostToolUse": ("tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"),
    "PostToolUseFailure": ("tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"),
    "PermissionDenied": ("tool_name", "tool_input", "tool_use_id", "reason"),
}
PER_CALL_EVENTS = tuple(EVENT_FIELDS)
# Fields whose value is an object or a number in the hook input: read back from their text.
JSON_FIELDS = frozenset({"tool_input", "tool_response", "error", "is_interrupt", "duration_ms"})
ALL_FIELDS = tuple(dict.fromkeys(COMMON_FIELDS + tuple(f for fs in EVENT_FIELDS.values() for f in fs)))

GATE_FAILURE = "block"  # onFailure of the PreToolUse entry


def resolve(route: str, mcp_registered: bool) -> str:
    """The route `install` writes: ``auto`` is ``mcp_tool`` when it registers the MCP server."""
    if route == "auto":
        return "mcp_tool" if mcp_registered else "command"
    return route


def mcp_tool_input(event: str) -> dict[str, str]:
    """The ``input`` of an ``mcp_tool`` entry: the event, then each field interpolated."""
    return {"event": event, **{f: "${" + f + "}" for f in COMMON_FIELDS + EVENT_FIELDS[event]}}


def handler(event: str, command: str, timeout: int, route: str) -> dict:
    """One settings entry for ``event``: the command, or for a per-call event on the
    ``mcp_tool`` route the call of the server's ``hook`` tool."""
    if route != "mcp_tool" or event not in EVENT_FIELDS:
        return {"type": "command", "command": command, "timeout": timeout}
    entry: dict = {
        "type": "mcp_tool",
        "server": SERVER,
        "tool": HOOK_TOOL,
        "input": mcp_tool_input(event),
        "timeout": timeout,
    }
    if event == "PreToolUse":
        entry["onFailure"] = GATE_FAILURE
    return entry


def is_ours(entry: object) -> bool:
    """An ``mcp_tool`` entry calling memory-cli's hook tool (command entries: install.is_ours)."""
    return (
        isinstance(entry, dict)
        and entry.get("type") == "mcp_tool"
        and entry.get("server") == SERVER
        and entry.get("tool") == HOOK_TOOL
    )


def route_of(entry: dict) -> str:
    return "mcp_tool" if is_ours(entry) else "command"


def chosen(mcp_registered: bool) -> str:
    """The route `install` writes for Claude Code, from ``enforcement.hook_route``. A route
    through a server that is not registered would block every gated call: refused."""
    from . import settings
    from .errors import InvalidInput

    route = resolve(str(settings.value(settings.load(), "enforcement.hook_route")), mcp_registered)
    if route == "mcp_tool" and not mcp_registered:
        raise InvalidInput(
            "enforcement.hook_route is mcp_tool, which needs the MCP server: drop --no-mcp, "
            "or set enforcement.hook_route to command; nothing was changed"
        )
    return route


def pins(cli_db: str | None) -> tuple[str, str]:
    """The store and config a hook command pins (``install.pinned``), absolute: the MCP server
    answering the hooks is registered with the same ones."""
    from pathlib import Path

    from . import paths, settings

    config = str(Path(paths.config_file()).expanduser().resolve())
    db = settings.database_path(cli_db, settings.load(config))
    return str(Path(db).expanduser().resolve()), config
