"""The instructions memory-cli's MCP server gives Claude Code at the handshake (what the
session's model reads before the person's first prompt)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.328"},
    },
}


def instructions(cwd) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memory_cli", "mcp"],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(cwd),
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PLUGIN_ROOT"},
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])["result"]["instructions"]
