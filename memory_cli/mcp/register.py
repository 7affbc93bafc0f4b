"""Registering the MCP server for Claude Code at user scope, and undoing it.

Claude Code keeps user-scope MCP servers in ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``
when that is set) under top-level ``mcpServers``, as ``claude mcp add -s user`` writes them:
``{"type": "stdio", "command": ..., "args": [...], "env": {}}``. That file is Claude Code's own
(projects, history, caches), so only the ``memory-cli`` key of ``mcpServers`` is ever touched:
the file is re-read just before writing, backed up first, written atomically, and kept at
mode 0600. Uninstall removes exactly that key; an ``mcpServers`` object left empty stays (Claude
Code treats it as no servers).
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

from ..errors import InvalidInput

SERVER_NAME = "memory-cli"


def claude_json() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(base).expanduser() / ".claude.json" if base else Path.home() / ".claude.json"


def server_entry(exe: str, db: str | None = None) -> dict:
    """The ``mcpServers`` value for memory-cli (``exe`` may be ``python -m memory_cli``)."""
    words = exe.split(" -m ") if " -m " in exe else [exe]
    command, pre = (words[0], ["-m", words[1]]) if len(words) == 2 else (exe, [])
    args = pre + (["--db", str(Path(db).expanduser().resolve())] if db else []) + ["mcp"]
    return {"type": "stdio", "command": command, "args": args, "env": {}}


def load(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InvalidInput(f"{path} is not valid JSON ({e}); fix or move it, nothing was changed") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} must hold a JSON object; nothing was changed")
    if "mcpServers" in data and not isinstance(data["mcpServers"], dict):
        raise InvalidInput(f"{path}: 'mcpServers' must be an object; nothing was changed")
    return data


def with_server(data: dict, entry: dict) -> dict:
    out = json.loads(json.dumps(data))
    servers = out.setdefault("mcpServers", {})
    servers[SERVER_NAME] = entry
    return out


def without_server(data: dict) -> dict:
    out = json.loads(json.dumps(data))
    servers = out.get("mcpServers")
    if isinstance(servers, dict):
        servers.pop(SERVER_NAME, None)
    return out


def registered(path: Path | None = None) -> dict | None:
    try:
        data = load(path or claude_json())
    except InvalidInput:
        return None
    entry = (data.get("mcpServers") or {}).get(SERVER_NAME)
    return entry if isinstance(entry, dict) else None


def write(path: Path, data: dict) -> Path | None:
    """Back up, then replace atomically with mode 0600. Returns the backup path."""
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
        backup = path.with_name(f"{path.name}.bak-memory-cli-{stamp}")
        n = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.bak-memory-cli-{stamp}-{n}")
            n += 1
        shutil.copy2(path, backup)
        os.chmod(backup, 0o600)
    tmp = path.with_name(path.name + ".memory-cli.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return backup


def change(install: bool, exe: str, db: str | None = None, *, dry_run: bool = False) -> dict:
    """Add or remove the server entry; ``{"file", "changed", "backup", "entry"}``."""
    path = claude_json()
    before = load(path)
    after = with_server(before, server_entry(exe, db)) if install else without_server(before)
    changed = after != before and (install or path.exists())
    backup = None
    if changed and not dry_run:
        backup = write(path, after)
    return {"file": str(path), "changed": changed, "dry_run": dry_run,
            "backup": str(backup) if backup else None,
            "entry": after.get("mcpServers", {}).get(SERVER_NAME) if install else None}
