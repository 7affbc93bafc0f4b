"""`memory-cli doctor`: is the MCP server registered, does it start, which tools does it list."""

from __future__ import annotations

import time


def probe(entry: dict, timeout_s: float = 15.0) -> tuple[list[str], float]:
    """Start the registered server through the SDK's own stdio client; (tool names, start ms)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=entry["command"], args=list(entry.get("args") or []),
                                   env={k: str(v) for k, v in (entry.get("env") or {}).items()} or None)

    async def run():
        with anyio.fail_after(timeout_s):
            t0 = time.perf_counter()
            async with stdio_client(params) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    started = (time.perf_counter() - t0) * 1000
                    tools = await s.list_tools()
                    return [t.name for t in tools.tools], started

    return anyio.run(run)


def doctor_checks(store, settings) -> list[dict]:
    from . import register
    from .server import TOOL_NAMES

    entry = register.registered()
    if entry is None:
        return [{"name": "mcp server", "status": "warn",
                 "detail": f"not registered in {register.claude_json()}: run `memory-cli install`"}]
    try:
        names, ms = probe(entry)
    except Exception as e:  # doctor reports, never raises
        return [{"name": "mcp server", "status": "fail",
                 "detail": f"registered ({entry.get('command')}) but did not start: {type(e).__name__}: {e}"}]
    missing = [t for t in TOOL_NAMES if t not in names]
    return [{"name": "mcp server", "status": "fail" if missing else "ok",
             "detail": (f"started in {ms:.0f} ms, {len(names)} tools: {', '.join(names)}"
                        + (f"; missing {', '.join(missing)}" if missing else ""))}]
