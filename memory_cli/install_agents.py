"""Registering memory-cli's hooks with Codex CLI and Gemini CLI, and undoing it.

Both agents keep hooks in a JSON file shaped like Claude Code's (event -> groups of
``{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}``), so the careful merge of
:mod:`memory_cli.install` is reused as is: only handlers whose command runs memory-cli's hook
are touched, a second install changes nothing, the previous file is backed up, the change is
shown as a diff. What differs per agent is the file, the event names, the tool matcher and the
timeout unit (Codex: seconds; Gemini: milliseconds). Each command carries ``--agent NAME`` so
the hook answers in that agent's format (see :mod:`memory_cli.hooks.agents`; the agents' vocabularies: :mod:`memory_cli.agent_calls`).
"""

from __future__ import annotations

import os
from pathlib import Path

from . import install as lib
from .agent_calls import TOOL_MATCHERS
from .errors import InvalidInput

INSTALLABLE = ("codex", "gemini")

# agent -> [(the agent's event, matcher or None, timeout in seconds)]
EVENTS: dict[str, list[tuple[str, str | None, int]]] = {
    "codex": [
        ("SessionStart", None, 10),
        ("UserPromptSubmit", None, 10),
        ("PreToolUse", TOOL_MATCHERS["codex"], 5),
        ("PostToolUse", TOOL_MATCHERS["codex"], 5),
        ("PreCompact", None, 10),
        ("Stop", None, 10),
        ("SessionEnd", None, 5),
    ],
    "gemini": [
        ("SessionStart", None, 10),
        ("BeforeAgent", None, 10),
        ("BeforeTool", TOOL_MATCHERS["gemini"], 5),
        ("AfterTool", TOOL_MATCHERS["gemini"], 5),
        ("PreCompress", None, 10),
        ("AfterAgent", None, 10),
        ("SessionEnd", None, 5),
    ],
}
_TIMEOUT_SCALE = {"codex": 1, "gemini": 1000}


def check_agent(agent: str) -> str:
    if agent not in INSTALLABLE:
        raise InvalidInput(f"unknown agent {agent!r}: use claude, codex or gemini")
    return agent


def codex_home() -> Path:
    """Codex's configuration folder: ``$CODEX_HOME`` or ``~/.codex``."""
    configured = os.environ.get("CODEX_HOME")
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".codex"


def settings_file(agent: str, scope: str = "user", cwd: str | None = None) -> Path:
    """The file holding ``agent``'s hooks for ``scope`` (user or project)."""
    check_agent(agent)
    if scope not in ("user", "project"):
        raise InvalidInput(f"unknown scope {scope!r} for {agent}: use user or project")
    if scope == "user":
        return codex_home() / "hooks.json" if agent == "codex" else Path.home() / ".gemini" / "settings.json"
    from .scope import find_project_root

    root = find_project_root(cwd or os.getcwd()) or os.path.abspath(cwd or os.getcwd())
    return Path(root) / (".codex/hooks.json" if agent == "codex" else ".gemini/settings.json")


def load(agent: str, path: Path) -> dict:
    """The agent's file as a dict. Gemini accepts comments in settings.json; a file with comments
    is refused (rewriting it would drop them) with what to do instead."""
    try:
        return lib.load_settings(path)
    except InvalidInput:
        if agent == "gemini" and _has_comments(path):
            raise InvalidInput(
                f"{path} has comments, which rewriting it would lose; nothing was changed: remove them, "
                "or paste the hooks `memory-cli install --agent gemini --dry-run` shows into it by hand"
            ) from None
        raise


def _has_comments(path: Path) -> bool:
    import re

    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r"^\s*//|/\*", text, re.M) is not None


def command_for(agent: str, event: str, launcher: str, db: str | None = None) -> str:
    return lib.command_for(event, launcher, db).replace(" hook ", f" hook --agent {agent} ", 1)


def native_names(agent: str, tool: str) -> list[str]:
    """The agent's names for a Claude Code tool (none when the agent has no such tool)."""
    from .agent_calls import PATCH_TOOL, TOOLS

    if agent == "codex" and tool in ("Write", "Edit", "MultiEdit"):
        return [PATCH_TOOL]
    if agent == "codex" and tool == "Bash":
        return ["Bash"]
    if tool.startswith("mcp__"):
        return [tool]
    return [n for n, t in TOOLS.get(agent, {}).items() if t == tool]


def all_coverage_warnings(tools, cwd: str | None = None) -> list[str]:
    """One line per tool a rule names that an installed hook, Claude Code's or another agent's,
    would never be called for."""
    return lib.coverage_warnings(tools, cwd) + coverage_warnings(tools, cwd)


def coverage_warnings(tools, cwd: str | None = None) -> list[str]:
    """One line per tool a rule names that an agent's installed tool hook is never called for."""
    import re

    out = []
    for agent in INSTALLABLE:
        event = EVENTS[agent][2][0]  # PreToolUse / BeforeTool
        for scope in ("user", "project"):
            try:
                path = settings_file(agent, scope, cwd)
                groups = (lib.load_settings(path).get("hooks") or {}).get(event) or []
            except (InvalidInput, AttributeError):
                continue
            ours = [
                str(g.get("matcher") or "")
                for g in groups
                if isinstance(g, dict) and any(lib.is_ours(h) for h in g.get("hooks", []) if isinstance(h, dict))
            ]
            if not ours:
                continue
            for tool in tools:
                names = native_names(agent, tool)
                if names and not any(_matches(m, n, re) for m in ours for n in names):
                    out.append(
                        f"rules for {tool} will not fire in {agent}: memory-cli's {event} hook in {path} runs "
                        f"only for {' | '.join(ours)}; run `memory-cli install --agent {agent}` again to add it"
                    )
    return out


def _matches(matcher: str, name: str, re) -> bool:
    if matcher in ("", "*"):
        return True
    try:
        return re.search(matcher, name) is not None
    except re.error:
        return name in matcher.split("|")


def tool_matcher(agent: str, extra_tools=None) -> str:
    """The tool events' matcher: the agent's own tools for shell and file writes, plus its names
    for any tool a rule names (a rule for ``Read`` needs Gemini's ``read_file`` calls)."""
    import re

    names = TOOL_MATCHERS[agent][2:-2].split("|")
    for tool in extra_tools or []:
        names += [n for n in native_names(agent, tool) if n not in names]
    return "^(" + "|".join(re.escape(n) for n in names) + ")$"


def hooks_object(agent: str, launcher: str, db: str | None = None, extra_tools=None) -> dict:
    out: dict = {}
    for event, matcher, timeout in EVENTS[check_agent(agent)]:
        if matcher:
            matcher = tool_matcher(agent, extra_tools)
        group: dict = {}
        if matcher:
            group["matcher"] = matcher
        handler: dict = {"type": "command", "command": command_for(agent, event, launcher, db)}
        handler["timeout"] = timeout * _TIMEOUT_SCALE[agent]
        group["hooks"] = [handler]
        out[event] = [group]
    return out


def with_ours(agent: str, settings: dict, launcher: str, db: str | None = None, extra_tools=None) -> dict:
    data = lib.without_ours(settings)
    hooks = data.setdefault("hooks", {})
    for event, groups in hooks_object(agent, launcher, db, extra_tools).items():
        if not isinstance(hooks.get(event), list):
            hooks[event] = []
        hooks[event].extend(groups)
    return data


def registered(agent: str, scope: str = "user", cwd: str | None = None) -> dict[str, list[str]]:
    """The agent's event -> memory-cli commands registered in its ``scope`` file (for doctor)."""
    try:
        return lib.registered(settings_file(agent, scope, cwd))
    except InvalidInput:
        return {}
