"""Registering the MCP server with Claude Code the way Claude Code itself stores MCP servers.

- user scope: ``mcpServers`` at the top of ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``
  when that is set), a file Claude Code owns and rewrites: only our one key is added or removed,
  every other byte of meaning stays, the previous file is backed up, and the mode stays 0600;
- project scope: ``.mcp.json`` in the project (meant to be committed; Claude Code asks each
  person to approve it);
- local scope: ``projects[<project dir>].mcpServers`` inside ``~/.claude.json``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import install as lib

SERVER = "memory-cli"


def claude_json() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(os.path.expanduser(configured)) / ".claude.json"
    return Path(os.path.expanduser("~")) / ".claude.json"


def server_entry(exe: str, db: str | None = None, config: str | None = None) -> dict:
    """``{"type": "stdio", "command", "args", "env"}`` as `claude mcp add` writes it; ``config``
    pins the server's config (``MEMORY_CLI_CONFIG`` in its ``env``), as hook commands pin theirs."""
    if " -m " in exe:
        command, *pre = exe.split(" ")
    else:
        command, pre = exe, []
    args = [*pre]
    if db:
        args += ["--db", str(Path(db).expanduser().resolve())]
    return {
        "type": "stdio",
        "command": command,
        "args": [*args, "mcp"],
        "env": {"MEMORY_CLI_CONFIG": config} if config else {},
    }


def _target(scope: str, cwd: str | None = None) -> tuple[Path, list[str]]:
    """The file and the key path of its ``mcpServers`` object."""
    if scope == "user":
        return claude_json(), ["mcpServers"]
    if scope == "project":
        return lib.settings_file("project", cwd).parent.parent / ".mcp.json", ["mcpServers"]
    if scope == "local":
        root = str(lib.settings_file("local", cwd).parent.parent)
        return claude_json(), ["projects", root, "mcpServers"]
    return lib.settings_file(scope, cwd), []  # raises the one-line error for an unknown scope


def _servers(data: dict, keys: list[str], create: bool) -> dict | None:
    node = data
    for k in keys:
        if not isinstance(node.get(k), dict):
            if not create:
                return None
            node[k] = {}
        node = node[k]
    return node


def plan(
    scope: str,
    exe: str,
    db: str | None = None,
    *,
    remove: bool = False,
    cwd: str | None = None,
    config: str | None = None,
) -> tuple[Path, dict, dict]:
    """(file, before, after) for registering (or with ``remove``, unregistering) the server."""
    import copy

    path, keys = _target(scope, cwd)
    before = lib.load_settings(path)
    after = copy.deepcopy(before)
    if remove:
        servers = _servers(after, keys, create=False)
        parent = _servers(after, keys[:-1], create=False)
        if servers is not None and servers.pop(SERVER, None) is not None and not servers and parent is not None:
            del parent[keys[-1]]  # emptied by us: no {} left behind
    else:
        servers = _servers(after, keys, create=True)
        assert servers is not None  # create=True makes the missing levels
        servers[SERVER] = server_entry(exe, db, config)
    return path, before, after


def write(path: Path, before: dict, after: dict) -> Path | None:
    """Write like the hooks' settings (atomic, backed up); a new ~/.claude.json is 0600."""
    existed = path.exists()
    backup = lib.apply(path, before, after)
    if not existed and path.name == ".claude.json":
        os.chmod(path, 0o600)
    return backup


def registered(scope: str = "user", cwd: str | None = None) -> dict | None:
    """Our server entry in ``scope``, or None."""
    try:
        path, keys = _target(scope, cwd)
        servers = _servers(lib.load_settings(path), keys, create=False)
    except Exception:  # noqa: BLE001 - a missing or unreadable file: not registered
        return None
    entry = (servers or {}).get(SERVER)
    return entry if isinstance(entry, dict) else None
