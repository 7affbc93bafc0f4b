"""Registering memory-cli's hooks in Claude Code settings files, and undoing it.

The merge touches only handlers whose command runs ``memory-cli ... hook``: every other
setting and every other hook stays as it was, a second install changes nothing, the previous
file is backed up before any write, and the person sees the change as a diff. Commands use
absolute paths (a PATH lookup through a version-manager shim costs ~140 ms per tool call),
matchers spawn the hook only for the tools an event needs, and timeouts are in seconds, as
Claude Code expects.

The command is the lean launcher (:func:`hook_launcher`): this environment's interpreter started
isolated (``-I -S``) on ``memory_cli/fasthook.py``, with the folders the hook imports from given
explicitly, which starts several times faster than the ``memory-cli`` console script (see
:mod:`memory_cli.hooks.entry`). ``--entry console`` registers the console script instead.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from . import paths
from .errors import InvalidInput

TOOL_MATCHER = "Bash|Edit|Write|MultiEdit|NotebookEdit"

# event -> (matcher or None, timeout seconds, why)
EVENTS: dict[str, tuple[str | None, int, str]] = {
    "SessionStart": ("startup|resume|clear|compact", 10, "inject memories; re-inject pins after compaction"),
    "UserPromptSubmit": (None, 10, "capture corrections; add memories relevant to the prompt"),
    "PreToolUse": (TOOL_MATCHER, 5, "block or warn on known-bad actions"),
    "PostToolUse": (TOOL_MATCHER, 5, "verify results against rules"),
    "PostToolUseFailure": (TOOL_MATCHER, 5, "offer past solutions to similar errors"),
    "PermissionDenied": (None, 5, "keep calls auto mode refused as correction signals"),
    "PreCompact": (None, 10, "re-sync pinned rules into CLAUDE.md"),
    "Stop": (None, 10, "store [MEMORY:...] markers from the assistant's text"),
    "SessionEnd": (None, 5, "hand decay, backups and log retention to a detached process"),
}


def executable() -> str:
    """The absolute path of the installed ``memory-cli`` console script."""
    beside = Path(sys.executable).parent / ("memory-cli.exe" if os.name == "nt" else "memory-cli")
    if beside.exists():
        return str(beside)
    found = shutil.which("memory-cli")
    if found:
        return str(Path(found).resolve())
    return f"{sys.executable} -m memory_cli"


LAUNCHER_NAME = "fasthook.py"


def launcher_script() -> str:
    """The absolute path of the launcher script inside the installed package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), LAUNCHER_NAME)


def _isolated_sys_path(python: str, with_site: bool) -> list[str] | None:
    import subprocess

    flags = ["-I"] if with_site else ["-I", "-S"]
    try:
        out = subprocess.run(
            [python, *flags, "-c", "import sys; print(repr(sys.path))"], capture_output=True, text=True, timeout=30
        )
        import ast

        value = ast.literal_eval(out.stdout.strip())
    except Exception:
        return None
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else None


def launcher_paths(python: str | None = None) -> list[str]:
    """Folders the launcher must put on ``sys.path`` beyond the ones it finds by itself (the
    package's own parent and the environment's site-packages): what ``site`` adds for this
    interpreter (site-packages and ``.pth`` entries, as they are now) plus where ``apsw``
    lives, in ``site``'s order. The launcher then never needs ``site`` itself."""
    from .interpreter_paths import env_prefix, site_packages

    python = python or sys.executable
    own = {os.path.dirname(os.path.dirname(launcher_script())), site_packages(env_prefix())}
    bare = _isolated_sys_path(python, with_site=False)
    full = _isolated_sys_path(python, with_site=True)
    wanted = [p for p in (full or []) if bare is None or p not in bare]
    try:
        import apsw

        wanted.append(os.path.dirname(os.path.dirname(os.path.abspath(apsw.__file__))))
    except ImportError:
        pass
    out: list[str] = []
    for p in wanted:
        if p and p not in own and p not in out and os.path.isdir(p):
            out.append(p)
    return out


def hook_launcher(python: str | None = None) -> str:
    """The shell-ready start of every hook command: the interpreter isolated on the launcher
    script, plus ``--path`` for each folder of :func:`launcher_paths`."""
    python = python or sys.executable
    parts = [python, "-I", "-S", launcher_script()]
    for p in launcher_paths(python):
        parts += ["--path", p]
    return " ".join(shlex.quote(x) for x in parts)


def console_launcher() -> str:
    """The shell-ready console-script command (slower start; ``install --entry console``)."""
    exe = executable()
    return exe if " -m " in exe else shlex.quote(exe)


def is_launcher_script(word: str) -> bool:
    parts = word.replace("\\", "/").split("/")
    return len(parts) >= 2 and parts[-1] == LAUNCHER_NAME and parts[-2] == "memory_cli"


def pinned(launcher: str, cli_db: str | None = None) -> str:
    """``launcher`` with the store and config this install enforces pinned (``--db``,
    ``--config``, absolute): the hook then ignores ``MEMORY_CLI_DB`` and ``MEMORY_CLI_CONFIG``
    from its environment, which a repository's settings can set (see
    :mod:`memory_cli.hooks.pinning`). They are what this command line resolves now: ``--db``,
    else ``MEMORY_CLI_DB``, else the config's ``database_path``, else the default."""
    from . import settings

    config = str(Path(paths.config_file()).expanduser().resolve())
    db = settings.database_path(cli_db, settings.load(config))
    db = str(Path(db).expanduser().resolve())
    return f"{launcher} --db {shlex.quote(db)} --config {shlex.quote(config)}"


# The gate's events: a hook that cannot start, crashes, hangs past its timeout or answers nothing
# usable blocks the call (Claude Code's ``onFailure: "block"``) instead of letting it run
# unchecked. Always, not only with a block rule: a rule added later must hold from its first call,
# and an allowed call costs nothing more. The events after a call and the session events keep the
# default (a fault there never stops the person's work); see docs/trust.md.
BLOCK_ON_FAILURE = frozenset({"PreToolUse"})


def command_for(event: str, launcher: str, db: str | None = None) -> str:
    """One hook command: ``launcher`` is shell-ready (see :func:`hook_launcher`)."""
    parts = launcher
    if db:
        parts += f" --db {shlex.quote(str(Path(db).expanduser().resolve()))}"
    return f"{parts} hook {event}"


def hooks_object(
    launcher: str, db: str | None = None, extra_tools: list[str] | None = None, route: str = "command"
) -> dict:
    """The ``hooks`` object memory-cli registers (also used for hooks/hooks.json); ``launcher``
    is the shell-ready start of each command; ``route`` ``mcp_tool`` answers the per-call events
    through the MCP server (:mod:`memory_cli.hook_routes`)."""
    from .hook_routes import handler

    out: dict = {}
    for event, (matcher, timeout, _why) in EVENTS.items():
        if matcher == TOOL_MATCHER and extra_tools:
            names = matcher.split("|") + [t for t in extra_tools if t not in matcher.split("|")]
            matcher = "|".join(names)
        group: dict = {}
        if matcher:
            group["matcher"] = matcher
        entry = handler(event, command_for(event, launcher, db), timeout, route)
        if event in BLOCK_ON_FAILURE:
            entry["onFailure"] = "block"
        group["hooks"] = [entry]
        out[event] = [group]
    return out


def is_ours(handler: dict) -> bool:
    from .hook_routes import is_ours as mcp_tool_ours

    if mcp_tool_ours(handler):
        return True
    cmd = handler.get("command") if isinstance(handler, dict) else None
    if not isinstance(cmd, str):
        return False
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    if "hook" not in words:
        return False
    return any(
        os.path.basename(w).startswith("memory-cli") or w == "memory_cli" or is_launcher_script(w)
        for w in words[: words.index("hook")]
    )


def settings_file(scope: str, cwd: str | None = None) -> Path:
    if scope == "user":
        return paths.claude_dir() / "settings.json"
    from .scope import find_project_root

    root = find_project_root(cwd or os.getcwd()) or os.path.abspath(cwd or os.getcwd())
    name = "settings.json" if scope == "project" else "settings.local.json"
    if scope not in ("project", "local"):
        raise InvalidInput(f"unknown scope {scope!r}: use user, project or local")
    return Path(root) / ".claude" / name


def settings_files(cwd: str | None = None) -> list[tuple[str, Path]]:
    """(scope, file) of the Claude Code settings that apply here, each file once: run from the
    home folder, the project's ``.claude/settings.json`` is the user's own file."""
    out: list[tuple[str, Path]] = []
    seen: set[str] = set()
    for scope in ("user", "project", "local"):
        try:
            path = settings_file(scope, cwd)
        except InvalidInput:
            continue
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.append((scope, path))
    return out


def load_settings(path: Path) -> dict:
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
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise InvalidInput(f"{path}: 'hooks' must be an object; nothing was changed")
    return data


def without_ours(settings: dict) -> dict:
    data = json.loads(json.dumps(settings))
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept.append(group)
                continue
            handlers = [h for h in group["hooks"] if not is_ours(h)]
            if handlers:
                kept.append(dict(group, hooks=handlers))
            elif not group["hooks"]:
                kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    return data


def with_ours(settings: dict, launcher: str, db: str | None = None, extra_tools=None, route: str = "command") -> dict:
    data = without_ours(settings)
    hooks = data.setdefault("hooks", {})
    for event, groups in hooks_object(launcher, db, extra_tools, route).items():
        hooks.setdefault(event, [])
        hooks[event].extend(groups)
    return data


def render(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def diff(path: Path, before: dict, after: dict) -> str:
    a = render(before).splitlines(keepends=True) if before or path.exists() else []
    b = render(after).splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=f"{path} (before)", tofile=f"{path} (after)"))


def write_roots(path: Path) -> list[str]:
    """Where a settings file (or the file its symlink names) may really live.

    The person's own files (the Claude config dir, ``~/.claude.json``) may link anywhere in
    their home (dotfiles); a project's files (``.claude/settings*.json``, ``.mcp.json``) only
    inside that project, since a cloned repository chooses what its links point to.
    """
    absolute = Path(os.path.abspath(path))
    claude = Path(os.path.abspath(paths.claude_dir_str()))
    home = Path(os.path.abspath(os.path.expanduser("~")))
    if absolute.parent == claude or absolute.parent == home:
        return [str(home), str(claude)]
    parent = absolute.parent
    return [str(parent.parent if parent.name == ".claude" else parent)]


def apply(path: Path, before: dict, after: dict) -> Path | None:
    """Write ``after`` atomically; back the previous file up first. Returns the backup path."""
    return apply_text(path, render(after))


def apply_text(path: Path, text: str) -> Path | None:
    """Write ``text`` to ``path`` atomically (refusing a symlink that leads out of where the file
    belongs), backing the previous file up first. Returns the backup path."""
    from . import install_batch
    from .files import safe_write

    roots = write_roots(path)
    backup = None
    batch = install_batch.active()
    if batch is not None:  # one backup per file for the whole command, made by the batch
        batch.note(path)
    safe_write.ensure_dir(path.parent, roots=roots)
    real = safe_write.real_target(path, roots)
    if real.exists() and batch is None:
        n = 0
        while True:
            backup = install_batch.backup_name(path, n)
            try:
                safe_write.write_file(backup, real.read_bytes(), roots=[str(path.parent)], exclusive=True)
                break
            except FileExistsError:
                n += 1
        shutil.copymode(real, backup)
    safe_write.write_file(path, text, roots=roots)
    return backup


def registered(path: Path) -> dict[str, list[str]]:
    """Event -> memory-cli commands registered in one settings file (for doctor); an event
    answered through the MCP server (``mcp_tool``) is listed with no command."""
    try:
        data = load_settings(path)
    except InvalidInput:
        return {}
    out: dict[str, list[str]] = {}
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in (group or {}).get("hooks", []) if isinstance(group, dict) else []:
                if is_ours(h):
                    cmds = out.setdefault(event, [])
                    if isinstance(h.get("command"), str):
                        cmds.append(h["command"])
    return out


def _matcher_covers(matcher, tool: str) -> bool:
    """Claude Code's matcher rules: none, empty or ``*`` match every tool; otherwise the
    matcher is a regular expression the whole tool name must match."""
    import re

    if matcher in (None, "", "*"):
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return tool in str(matcher).split("|")


def uncovered_tools(tools, cwd: str | None = None) -> list[tuple[Path, str, str]]:
    """(settings file, tool, matcher) for each tool that memory-cli's PreToolUse hook, where it
    is installed, never sees: a rule naming such a tool would never fire."""
    out = []
    for _scope, path in settings_files(cwd):
        try:
            data = load_settings(path)
        except InvalidInput:
            continue
        groups = (data.get("hooks") or {}).get("PreToolUse") or []
        ours = [
            g
            for g in groups
            if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks", []) if isinstance(h, dict))
        ]
        if not ours:
            continue
        for tool in tools:
            if not any(_matcher_covers(g.get("matcher"), tool) for g in ours):
                out.append((path, tool, " | ".join(str(g.get("matcher")) for g in ours)))
    return out


def coverage_warnings(tools, cwd: str | None = None) -> list[str]:
    """One line per tool a rule names that Claude Code's installed hook would never be called
    for (every agent's: :func:`memory_cli.install_agents.all_coverage_warnings`)."""
    return [
        f"rules for {tool} will not fire: memory-cli's PreToolUse hook in {path} runs only for "
        f"{matcher}; run `memory-cli install` again to add {tool}"
        for path, tool, matcher in uncovered_tools(tools, cwd)
    ]


def routes_installed(path) -> dict[str, str]:
    """Event -> route of memory-cli's entries in one Claude Code settings file (``command`` or
    ``mcp_tool``, :mod:`memory_cli.hook_routes`)."""
    from .hook_routes import route_of

    try:
        data = load_settings(path)
    except Exception:  # noqa: BLE001 - unreadable: nothing installed there that doctor can show
        return {}
    out: dict[str, str] = {}
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in (group or {}).get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(h, dict) and is_ours(h):
                    out[event] = route_of(h)
    return out
