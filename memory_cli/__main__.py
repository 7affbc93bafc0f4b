"""Entry point. Hook calls are dispatched here, before the rich CLI (typer, rich, pydantic) is
imported: Claude Code starts this process on every tool call, and those imports alone cost
several times the whole hook's budget (see docs/performance.md).
"""

from __future__ import annotations

import sys


def _split_global_db(argv: list[str]) -> tuple[str | None, list[str]]:
    """Take a leading ``--db PATH`` / ``--db=PATH`` so ``memory-cli --db X hook E`` stays fast."""
    db = None
    rest = list(argv)
    while rest:
        if rest[0] == "--db" and len(rest) >= 2:
            db, rest = rest[1], rest[2:]
        elif rest[0].startswith("--db="):
            db, rest = rest[0][5:], rest[1:]
        else:
            break
    return db, rest


def hook_call(argv: list[str]) -> tuple[str, str | None, str | None] | None:
    """``(event, db, agent)`` when ``argv`` is ``[--db PATH] hook [--agent NAME] EVENT``; None
    for any other command. ``agent`` is None for Claude Code."""
    db, rest = _split_global_db(argv)
    agent = None
    if len(rest) >= 4 and rest[0] == "hook" and rest[1] == "--agent":
        agent, rest = rest[2], rest[:1] + rest[3:]
    if len(rest) >= 2 and rest[0] == "hook" and not rest[1].startswith("-"):
        return rest[1], db, agent
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    hook = hook_call(argv)
    if hook is not None:
        from .hooks.runner import main as hook_main

        event, db, agent = hook
        return hook_main(event, db, agent=agent)
    from .cli import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
