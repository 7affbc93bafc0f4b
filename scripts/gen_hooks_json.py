#!/usr/bin/env python3
"""Regenerate the plugin form (hooks/hooks.json, .claude-plugin/plugin.json) and
hooks.json.example from memory_cli.install and memory_cli.mcp.registration.

All come from the same tables `memory-cli install` merges, so they never disagree (a test runs
this with --check). The hooks start the lean launcher (``python -I -S memory_cli/fasthook.py``),
as `memory-cli install` does; the plugin form finds apsw in the plugin's own .venv (created by
`make setup`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli import __version__  # noqa: E402
from memory_cli.install import hooks_object  # noqa: E402

PLUGIN_LAUNCHER = '"${CLAUDE_PLUGIN_ROOT}/.venv/bin/python" -I -S "${CLAUDE_PLUGIN_ROOT}/memory_cli/fasthook.py"'
PLUGIN_EXE = "${CLAUDE_PLUGIN_ROOT}/.venv/bin/memory-cli"  # the MCP server starts once a session
EXAMPLE_LAUNCHER = "/ABSOLUTE/PATH/TO/.venv/bin/python -I -S /ABSOLUTE/PATH/TO/memory_cli/fasthook.py"


def plugin() -> str:
    return (
        json.dumps(
            {
                "description": "memory-cli: a memory with teeth for Claude Code "
                "(run `make setup` in the plugin folder first)",
                "hooks": hooks_object(PLUGIN_LAUNCHER),
            },
            indent=2,
        )
        + "\n"
    )


def plugin_manifest() -> str:
    """The plugin's manifest, with the MCP server declared inline (a .mcp.json at the repository
    root would also register the server for anyone working on this repository)."""
    return (
        json.dumps(
            {
                "name": "memory-cli",
                "version": __version__,
                "description": "A memory with teeth for Claude Code: rules enforced before tool calls, "
                "corrections captured, memories injected, agent tools over MCP. Run `make "
                "setup` in the plugin folder first.",
                "mcpServers": {"memory-cli": {"command": PLUGIN_EXE, "args": ["mcp"]}},
            },
            indent=2,
        )
        + "\n"
    )


def example() -> str:
    return json.dumps({"hooks": hooks_object(EXAMPLE_LAUNCHER)}, indent=2) + "\n"


if __name__ == "__main__":
    targets = {
        ROOT / "hooks" / "hooks.json": plugin(),
        ROOT / "hooks.json.example": example(),
        ROOT / ".claude-plugin" / "plugin.json": plugin_manifest(),
    }
    if "--check" in sys.argv:
        stale = [str(p) for p, text in targets.items() if not p.exists() or p.read_text() != text]
        if stale:
            print("out of date: " + ", ".join(stale))
            sys.exit(1)
        sys.exit(0)
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
