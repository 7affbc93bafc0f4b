"""`memory-cli demo`: a scripted session through the real hook entry points."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import state


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(keep: Annotated[bool, typer.Option("--keep", help="Keep the throwaway directory to inspect it.")] = False):
    """Run a whole Claude Code session through `memory-cli hook` against a throwaway database."""
    from ..demo import run

    raise typer.Exit(run(state.db, keep=keep))
