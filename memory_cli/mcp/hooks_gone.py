"""memory-cli's hooks switched off in Claude Code's settings: said through the MCP server.

A settings file rewritten without memory-cli's hooks, or with ``disableAllHooks: true`` (the
user's, or a project's ``.claude/settings.local.json``, which the agent's shell can write without
``install --harden``), runs no hook of memory-cli at all, so no SessionStart of memory-cli is
left to say it. Claude Code still starts memory-cli's MCP server (registered in another file),
and the server's ``instructions`` at the handshake reach the session's model: they carry the
line, for the agent to pass on to the person at once. ``doctor`` says it too (its hooks check).

Only where the server was started by Claude Code outside the plugin (the plugin's hooks come
with it) and memory-cli was installed into Claude Code's user settings. Standard library only:
the handshake is on the session's clock.
"""

from __future__ import annotations

import json
import os


def _load(path: str) -> tuple[str, dict] | None:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = json.loads(text) if text.strip() else {}
    except (OSError, ValueError):
        return None
    return (text, data) if isinstance(data, dict) else None


def line(cwd: str | None = None, environ=None) -> str | None:
    """The notice when Claude Code will run none of memory-cli's hooks in this session."""
    env = os.environ if environ is None else environ
    if env.get("CLAUDE_PLUGIN_ROOT"):
        return None
    from ..seals.installed import claude_hooks, claude_settings_files, names_our_hooks

    if not claude_hooks():
        return None  # never installed into Claude Code's settings (or uninstalled): nothing to miss
    files = claude_settings_files(cwd)
    loaded = {p: _load(p) for p in files}
    for path, found in loaded.items():
        if found and found[1].get("disableAllHooks") is True:
            return (
                f"memory-cli: every hook is switched off by `disableAllHooks: true` in {path}, so tool calls "
                "are not checked against your rules and nothing is recorded; remove that line (or run "
                "`memory-cli doctor`) if you did not put it there"
            )
    if any(found and names_our_hooks(found[0]) for found in loaded.values()):
        return None
    plugins = [found[1].get("enabledPlugins") for found in loaded.values() if found]
    if any(isinstance(p, dict) and any(str(k).startswith("memory-cli@") and v for k, v in p.items()) for p in plugins):
        return None
    return (
        f"memory-cli: its hooks are gone from {files[0]} (the file was rewritten outside memory-cli), so tool "
        "calls are not checked against your rules; run `memory-cli install` to put them back"
    )


def instructions(base: str, cwd: str | None = None) -> str:
    """The server's instructions, with the notice first when there is one."""
    try:
        said = line(cwd)
    except Exception:
        said = None
    if not said:
        return base
    return (
        "IMPORTANT: before anything else, tell the person this, word for word, and do not try to fix it "
        f"yourself: {said}\n\n{base}"
    )
