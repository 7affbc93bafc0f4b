"""doctor: is the MCP server registered, does it start, and does it list its tools?"""

from __future__ import annotations

import time

from . import registration


def _probe(entry: dict, timeout_s: float = 20.0) -> tuple[list[str] | None, float, str | None]:
    """Start the registered command as Claude Code would and ask it for its tools."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def run():
        params = StdioServerParameters(
            command=entry["command"], args=list(entry.get("args") or []), env=entry.get("env") or None
        )
        import subprocess

        async with stdio_client(params, errlog=subprocess.DEVNULL) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return [t.name for t in (await s.list_tools()).tools]

    t0 = time.monotonic()
    try:
        names = asyncio.run(asyncio.wait_for(run(), timeout_s))
    except Exception as e:  # noqa: BLE001 - any failure is the finding
        return None, time.monotonic() - t0, f"{type(e).__name__}: {e}"
    return names, time.monotonic() - t0, None


def doctor_checks(store, settings) -> list[dict]:
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
        ]
    scope, entry = found[0]
    names, took, err = _probe(entry)
    if names is None:
        return [{"name": "mcp server", "status": "fail", "detail": f"registered ({scope}) but did not start: {err}"}]
    missing = [t for t in TOOLS if t not in names]
    status = "warn" if missing else "ok"
    detail = f"registered ({scope}); started in {took:.1f} s with {len(names)} tools"
    if missing:
        detail += f"; missing {', '.join(missing)} (run `memory-cli install` again)"
    out = [{"name": "mcp server", "status": status, "detail": detail}]
    if not scope.startswith("by the plugin"):  # a plugin's tools have other names, and it cannot allow them
        from .permissions import doctor_check

        out.append(doctor_check())
    return out
