"""doctor: is the MCP server registered, does it start, and does it list its tools?"""

from __future__ import annotations

from . import registration


def _probe(entry: dict, timeout_s: float = 20.0) -> tuple[list[str] | None, float, str | None]:
    """Start the registered command as Claude Code would and ask it for its tools
    (:mod:`memory_cli.mcp.probe`: no MCP SDK import in doctor's process)."""
    from .probe import probe

    return probe(entry, timeout_s)


def route_checks(server_registered: bool, tools: list[str] | None) -> list[dict]:
    """How Claude Code reaches the per-call hooks, per settings file: through this server
    (``mcp_tool``) or a process per call (``command``). The mcp_tool route with no server to
    answer it blocks every gated call: a failure, with the fix."""
    from .. import hook_routes, install

    out = []
    for scope, path in install.settings_files():  # each file once (the project's may be the user's)
        routes = install.routes_installed(path)
        if not routes:
            continue
        served = [e for e in hook_routes.PER_CALL_EVENTS if routes.get(e) == "mcp_tool"]
        if not served:
            detail = f"{path}: a hook process per tool call (command); the MCP server answers none"
            out.append({"name": f"hook route ({scope})", "status": "ok", "detail": detail})
            continue
        detail = (
            f"{path}: {', '.join(served)} answered by the running MCP server (mcp_tool, no process per "
            "call); a gated call is blocked while the server cannot answer"
        )
        status = "ok"
        if not server_registered:
            status = "fail"
            detail += "; but the MCP server is not registered, so every gated call is blocked: run `memory-cli install`"
        elif tools is not None and hook_routes.HOOK_TOOL not in tools:
            status = "fail"
            detail += f"; but the server offers no {hook_routes.HOOK_TOOL!r} tool: run `memory-cli install` again"
        out.append({"name": f"hook route ({scope})", "status": status, "detail": detail})
    return out


def doctor_checks(store, settings) -> list[dict]:
    """The server's checks, after the one that matters most: whether Claude Code still runs
    memory-cli's hooks at all (a settings file rewritten, or ``disableAllHooks``)."""
    import os

    from .hooks_gone import line

    gone = line(os.getcwd())
    first = (
        [{"name": "hooks switched off", "status": "fail", "detail": gone.removeprefix("memory-cli: ")}] if gone else []
    )
    return first + _server_checks()


def _server_checks() -> list[dict]:
    from .catalog import TOOLS

    found = [(scope, registration.registered(scope)) for scope in ("user", "project", "local")]
    found = [(scope, entry) for scope, entry in found if entry]
    if not found:
        from ..plugin_state import find as find_plugin

        plugin = find_plugin()
        if plugin is not None and plugin["mcp"] is not None:
            found = [(f"by the plugin {plugin['name']}", plugin["mcp"])]
    if not found:
        return [
            {
                "name": "mcp server",
                "status": "warn",
                "detail": "not registered: run `memory-cli install` (agent tools such as query_memory)",
            }
        ] + route_checks(False, None)
    scope, entry = found[0]
    names, took, err = _probe(entry)
    if names is None:
        failed = {"name": "mcp server", "status": "fail", "detail": f"registered ({scope}) but did not start: {err}"}
        return [failed] + route_checks(True, [])
    missing = [t for t in TOOLS if t not in names]
    status = "warn" if missing else "ok"
    agent_tools = [n for n in names if n != "hook"]  # the hook tool is the route's (below)
    detail = f"registered ({scope}); started in {took * 1000:.0f} ms with {len(agent_tools)} tools"
    if missing:
        detail += f"; missing {', '.join(missing)} (run `memory-cli install` again)"
    out = [{"name": "mcp server", "status": status, "detail": detail}]
    if not scope.startswith("by the plugin"):  # a plugin's tools have other names, and it cannot allow them
        from .permissions import doctor_check

        out.append(doctor_check())
    return out + route_checks(True, names)
