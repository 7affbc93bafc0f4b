"""Entry point. Hook calls are dispatched here, before the rich CLI (typer, rich, pydantic) is
imported: Claude Code starts this process on every tool call, and those imports alone cost
several times the whole hook's budget (see docs/performance.md).
"""

from __future__ import annotations

import sys


def _split_global_db(argv: list[str]) -> tuple[str | None, str | None, list[str]]:
    """Take a leading ``--db PATH`` / ``--config PATH`` (either ``=`` form) so
    ``memory-cli --db X hook E`` stays fast. ``--config`` is a hook command's pin only."""
    found: dict[str, str] = {}
    rest = list(argv)
    while rest:
        name, eq, value = rest[0].partition("=")
        if name in ("--db", "--config") and eq:
            found[name], rest = value, rest[1:]
        elif name in ("--db", "--config") and len(rest) >= 2:
            found[name], rest = rest[1], rest[2:]
        else:
            break
    return found.get("--db"), found.get("--config"), rest


def hook_call(argv: list[str]) -> tuple[str, str | None, str | None, str | None] | None:
    """``(event, db, agent, config)`` when ``argv`` is ``[--db PATH] [--config PATH] hook
    [--agent NAME] EVENT``; None for any other command. ``agent`` is None for Claude Code."""
    db, config, rest = _split_global_db(argv)
    agent = None
    if len(rest) >= 4 and rest[0] == "hook" and rest[1] == "--agent":
        agent, rest = rest[2], rest[:1] + rest[3:]
    if len(rest) >= 2 and rest[0] == "hook" and not rest[1].startswith("-"):
        return rest[1], db, agent, config
    return None


def mcp_call(argv: list[str]) -> tuple[str | None] | None:
    """``(db,)`` when ``argv`` is ``[--db PATH] mcp``: the MCP server, served without typer and,
    for the session's first moments, without the MCP SDK (see :mod:`.mcp.lean`)."""
    db, config, rest = _split_global_db(argv)
    return (db,) if rest == ["mcp"] and config is None else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    hook = hook_call(argv)
    if hook is not None:
        from .hooks.runner import main as hook_main

        event, db, agent, config = hook
        return hook_main(event, db, agent=agent, config_override=config)
    mcp = mcp_call(argv)
    if mcp is not None:
        from .errors import MemoryCliError
        from .mcp.lean import main as mcp_main

        try:
            return mcp_main(mcp[0])
        except MemoryCliError as e:  # a refused store: the one line and exit code of any command
            sys.stderr.write(f"memory-cli: error: {' '.join(str(e).split())}\n")
            return e.exit_code
    from .cli import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
