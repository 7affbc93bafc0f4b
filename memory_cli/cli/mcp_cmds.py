"""``memory-cli mcp``: run the stdio MCP server (normally started by Claude Code)."""

from __future__ import annotations

import typer

from .common import state


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    def mcp_cmd():
        """Run the memory-cli MCP server on stdin/stdout (Claude Code starts it; see docs/mcp.md)."""
        from ..mcp.server import main

        raise typer.Exit(main(state.db))
