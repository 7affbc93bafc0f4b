"""`memory-cli hook EVENT` appears in --help here; real calls never reach typer (see __main__)."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("hook", help="Entry point Claude Code calls for every hook event (reads JSON on stdin).")(hook)


def hook(
    event: Annotated[
        str,
        typer.Argument(
            help="SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, "
            "PostToolUseFailure, PermissionDenied, PreCompact, Stop or SessionEnd (with --agent: that agent's own event name)"
        ),
    ],
    agent: Annotated[
        str,
        typer.Option("--agent", help="The calling agent: claude, codex or gemini (answers in its format)"),
    ] = "claude",
):
    from ..hooks.runner import main
    from .common import state

    raise typer.Exit(main(event, state.db, agent=agent))
