"""Whether memory-cli runs as a Claude Code plugin, and what that plugin registers.

A plugin's hooks (its ``hooks/hooks.json``) and MCP server (``.claude-plugin/plugin.json``) are
in no settings file, so ``doctor`` finds them here instead of advising ``memory-cli install``,
which would register every hook a second time. The plugin is found from its own command line
(the plugin's ``bin/memory-cli`` and Claude Code set ``CLAUDE_PLUGIN_ROOT``), else from Claude
Code's record of installed plugins (``<claude dir>/plugins/installed_plugins.json``).
"""

from __future__ import annotations

import json
import os

from . import paths

PLUGIN = "memory-cli"


def _read_json(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _is_ours(root: str) -> bool:
    return os.path.isfile(os.path.join(root, "hooks", "hooks.json")) and os.path.isfile(
        os.path.join(root, "memory_cli", "fasthook.py")
    )


def _enabled(name: str) -> bool:
    """Claude Code records a disabled plugin as ``enabledPlugins: {name: false}``."""
    data = _read_json(os.path.join(paths.claude_dir_str(), "settings.json"))
    flags = data.get("enabledPlugins") if isinstance(data, dict) else None
    return not (isinstance(flags, dict) and flags.get(name) is False)


def _installed() -> list[tuple[str, str]]:
    """(name@marketplace, install folder) of each installed memory-cli plugin."""
    data = _read_json(os.path.join(paths.claude_dir_str(), "plugins", "installed_plugins.json"))
    plugins = data.get("plugins") if isinstance(data, dict) else None
    out = []
    for name, entries in (plugins or {}).items() if isinstance(plugins, dict) else ():
        if not (isinstance(name, str) and name.split("@")[0] == PLUGIN):
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            root = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(root, str) and _is_ours(root):
                out.append((name, root))
    return out


def find() -> dict | None:
    """``{"name", "root", "data", "hooks": {event: [argv]}, "mcp": server or None}`` of the
    memory-cli plugin Claude Code runs, or None when there is none (or it is disabled). Each
    hook's argv is the process Claude Code starts: an exec-form hook's program and arguments
    with the plugin's variables substituted, a shell-form hook's line after ``sh -c``."""
    root = os.environ.get("CLAUDE_PLUGIN_ROOT")
    name = None
    if not (root and _is_ours(root)):
        found = [(n, r) for n, r in _installed() if _enabled(n)]
        if not found:
            return None
        name, root = found[-1]
    else:
        name = next((n for n, r in _installed() if os.path.realpath(r) == os.path.realpath(root)), None)
    market = name.split("@", 1)[1] if name and "@" in name else PLUGIN
    data_dir = os.environ.get("CLAUDE_PLUGIN_DATA") or os.path.join(
        paths.claude_dir_str(), "plugins", "data", f"{PLUGIN}-{market}"
    )
    # As Claude Code starts a hook or server: the plugin's variables expanded and set.
    expand = lambda s: str(s).replace("${CLAUDE_PLUGIN_ROOT}", root).replace("${CLAUDE_PLUGIN_DATA}", data_dir)  # noqa: E731
    hooks: dict[str, list[list[str]]] = {}
    spec = _read_json(os.path.join(root, "hooks", "hooks.json")) or {}
    for event, groups in (spec.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in group.get("hooks", []) if isinstance(group, dict) else []:
                if not (isinstance(h, dict) and isinstance(h.get("command"), str)):
                    continue
                args = h.get("args")
                argv = (
                    [expand(h["command"]), *map(expand, args)] if isinstance(args, list) else ["sh", "-c", h["command"]]
                )
                hooks.setdefault(event, []).append(argv)
    manifest = _read_json(os.path.join(root, ".claude-plugin", "plugin.json")) or {}
    server = (manifest.get("mcpServers") or {}).get(PLUGIN)
    mcp = None
    if isinstance(server, dict) and server.get("command"):
        mcp = {
            "command": expand(server["command"]),
            "args": [expand(a) for a in server.get("args") or []],
            "env": {**os.environ, "CLAUDE_PLUGIN_ROOT": root, "CLAUDE_PLUGIN_DATA": data_dir},
        }
    return {"name": name or PLUGIN, "root": root, "data": data_dir, "hooks": hooks, "mcp": mcp}
