"""Where ``install`` put memory-cli's hooks into Claude Code's settings, kept until ``uninstall``.

A settings file that no longer loads any of memory-cli's hooks looks the same whether the person
never installed them or something rewrote the file; this record tells the two apart for the
MCP server's notice (:mod:`memory_cli.mcp.hooks_gone`) and ``doctor``.
"""

from __future__ import annotations

import json
import os

RECORD_NAME = "claude-hooks.json"


def record_path() -> str:
    from ..paths import memory_dir_str

    return os.path.join(memory_dir_str(), RECORD_NAME)


def note_claude_hooks(settings_path: str) -> None:
    from ..files import private_file

    target = record_path()
    os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
    private_file.replace(target, (json.dumps({"settings": os.path.abspath(settings_path)}) + "\n").encode())


def forget_claude_hooks() -> None:
    try:
        os.remove(record_path())
    except OSError:
        pass


def claude_hooks() -> str | None:
    """The user settings file ``install`` put the hooks in, or None."""
    try:
        with open(record_path(), encoding="utf-8") as f:
            value = json.load(f).get("settings")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def claude_settings_files(cwd: str | None = None) -> list[str]:
    """Every Claude Code settings file that applies in ``cwd``: the user's and the project's,
    each with its ``settings.local.json``; a file reached twice (run from the home folder, the
    project's is the user's own) is listed once."""
    from ..paths import claude_dir_str
    from ..scope import find_project_root

    where = cwd or os.getcwd()
    root = find_project_root(where) or os.path.abspath(where)
    out: list[str] = []
    seen: set[str] = set()
    for folder in (claude_dir_str(), os.path.join(root, ".claude")):
        for name in ("settings.json", "settings.local.json"):
            path = os.path.join(folder, name)
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                out.append(path)
    return out


def names_our_hooks(text: str) -> bool:
    """Whether a settings file's text loads one of memory-cli's hooks (its command, or its
    ``mcp_tool`` hook)."""
    return ("memory-cli" in text or "memory_cli" in text) and (" hook " in text or "mcp__memory-cli__hook" in text)
