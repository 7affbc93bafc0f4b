"""Registering the MCP server with Codex CLI and Gemini CLI, and undoing it.

- Gemini CLI keeps MCP servers in the same ``settings.json`` as its hooks, under
  ``mcpServers.<name> = {"command", "args", "env"}``: the entry is added to (or removed from) the
  dict the hooks' merge already produced, so one file gets one backup and one diff.
- Codex CLI keeps them in ``config.toml`` (``$CODEX_HOME/config.toml``, or the project's
  ``.codex/config.toml``) as ``[mcp_servers.<name>]`` tables. Python reads TOML but has no
  writer, and rewriting the person's file would drop their comments and layout, so the table is
  appended as a block between two marker comments and removed by those markers: every other byte
  stays. The whole result is parsed with :mod:`tomllib` before anything is written, so a file that
  is not valid TOML, or that already names a ``memory-cli`` server of its own, is refused with
  nothing changed.
"""

from __future__ import annotations

import os
from pathlib import Path

import tomllib

from ..errors import InvalidInput
from .registration import SERVER, server_entry

BLOCK_START = (
    "# >>> memory-cli MCP server (added by `memory-cli install --agent codex`; `uninstall` removes this block)"
)
BLOCK_END = "# <<< memory-cli MCP server"

# Codex starts an MCP server with a reduced environment (HOME, PATH, LANG and a few more), so
# the variables that choose memory-cli's store, settings and daemon socket are passed on by name
# (``env_vars``): the server then uses the same store as the hooks, which see the full environment.
CODEX_PASSED_ENV = (
    "MEMORY_CLI_DB",
    "MEMORY_CLI_CONFIG",
    "CLAUDE_CONFIG_DIR",
    "MEMORY_CLI_DAEMON_AUTOSTART",
    "MEMORY_CLI_EMBED_BACKEND",
    "TMPDIR",
)


def entry(exe: str, db: str | None = None) -> dict:
    """``{"command", "args", "env"}``: the stdio server both agents start."""
    full = server_entry(exe, db)
    return {"command": full["command"], "args": full["args"], "env": full["env"]}


# -- Gemini CLI: settings.json ------------------------------------------------------------------
def gemini_with(settings: dict, exe: str, db: str | None = None) -> dict:
    """``settings`` with our server under ``mcpServers`` (any previous entry of ours replaced)."""
    data = gemini_without(settings)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        servers = data["mcpServers"] = {}
    servers[SERVER] = entry(exe, db)
    return data


def gemini_without(settings: dict) -> dict:
    """``settings`` without our server; an ``mcpServers`` left empty goes too."""
    import copy

    data = copy.deepcopy(settings)
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and SERVER in servers:
        del servers[SERVER]
        if not servers:
            del data["mcpServers"]
    return data


# -- Codex CLI: config.toml ---------------------------------------------------------------------
def codex_config_file(scope: str = "user", cwd: str | None = None) -> Path:
    """Codex's ``config.toml`` for ``scope``: beside the hooks' ``hooks.json``."""
    from ..install_agents import settings_file

    return settings_file("codex", scope, cwd).with_name("config.toml")


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string: quotes, backslashes and control characters escaped."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def codex_entry(exe: str, db: str | None = None) -> dict:
    """The table Codex reads: the common entry plus ``env_vars`` (see :data:`CODEX_PASSED_ENV`)."""
    return {**entry(exe, db), "env_vars": list(CODEX_PASSED_ENV)}


def _toml_list(values) -> str:
    return "[" + ", ".join(toml_string(v) for v in values) + "]"


def codex_block(exe: str, db: str | None = None) -> str:
    """Our ``[mcp_servers.memory-cli]`` table between its two marker lines."""
    e = codex_entry(exe, db)
    env = ", ".join(f"{toml_string(k)} = {toml_string(v)}" for k, v in e["env"].items())
    return (
        f"{BLOCK_START}\n"
        f"[mcp_servers.{SERVER}]\n"
        f"command = {toml_string(e['command'])}\n"
        f"args = {_toml_list(e['args'])}\n"
        f"env = {{{env}}}\n"
        f"env_vars = {_toml_list(e['env_vars'])}\n"
        f"{BLOCK_END}\n"
    )


def read_text(path: Path) -> str:
    """The file's text ("" when it does not exist yet)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None


def _parse(path: Path, text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInput(f"{path} is not valid TOML ({e}); fix or move it, nothing was changed") from None


def codex_without_block(text: str) -> str:
    """``text`` without our marked block(s) and the one blank line that was put before each."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    inside = False
    for line in lines:
        bare = line.rstrip("\r\n")
        if not inside and bare == BLOCK_START:
            inside = True
            if out and out[-1].strip() == "":
                out.pop()
            continue
        if inside:
            if bare == BLOCK_END:
                inside = False
            continue
        out.append(line)
    if inside:  # a start marker without its end: leave the file as it is
        return text
    return "".join(out)


def codex_plan(path: Path, exe: str, db: str | None = None, *, remove: bool = False) -> tuple[str, str]:
    """(text before, text after) of Codex's ``config.toml`` with our block added (or removed).

    Refused with nothing written (:class:`InvalidInput`, exit 2) when the file is not valid TOML,
    already holds a ``memory-cli`` server outside our block, or would not be valid TOML after."""
    before = read_text(path)
    _parse(path, before)
    rest = codex_without_block(before)
    if remove:
        return before, rest
    theirs = _parse(path, rest).get("mcp_servers")
    if isinstance(theirs, dict) and SERVER in theirs:
        raise InvalidInput(
            f"{path} already has an [mcp_servers.{SERVER}] entry that memory-cli did not write; "
            "nothing was changed: remove or rename it, or pass --no-mcp"
        )
    separator = "" if not rest.strip() else ("\n" if rest.endswith("\n") else "\n\n")
    after = rest + separator + codex_block(exe, db)
    try:
        got = (tomllib.loads(after).get("mcp_servers") or {}).get(SERVER)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInput(
            f"{path}: adding [mcp_servers.{SERVER}] would make it invalid TOML ({e}); nothing was changed"
        ) from None
    if got != codex_entry(exe, db):
        raise InvalidInput(
            f"{path}: [mcp_servers.{SERVER}] would not read back as written; nothing was changed: "
            "pass --no-mcp or add it by hand"
        )
    return before, after


def registered(agent: str, scope: str = "user", cwd: str | None = None) -> tuple[Path, dict] | None:
    """(file, our server entry) where ``agent`` has it registered for ``scope``, or None."""
    from .. import install as lib
    from ..install_agents import settings_file

    try:
        if agent == "codex":
            path = codex_config_file(scope, cwd)
            servers = tomllib.loads(read_text(path)).get("mcp_servers")
        else:
            path = settings_file(agent, scope, cwd)
            servers = lib.load_settings(path).get("mcpServers")
    except (InvalidInput, tomllib.TOMLDecodeError, OSError):
        return None
    found = servers.get(SERVER) if isinstance(servers, dict) else None
    return (path, found) if isinstance(found, dict) else None


def command_problem(found: dict) -> str | None:
    """Why the registered command cannot start (a path that is gone), or None."""
    command = found.get("command")
    if not isinstance(command, str) or not command:
        return "it names no command"
    if os.path.isabs(command) and not os.access(command, os.X_OK):
        return f"{command} is missing or not executable"
    return None
