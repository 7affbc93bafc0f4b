"""`memory-cli doctor`: is everything installed, healthy and fast? Exit 1 if a check fails."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonOpt, console, emit_json, state, want_json


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


def doctor(
    no_timing: Annotated[bool, typer.Option("--no-timing", help="Skip the measured hook call.")] = False,
    json_: JsonOpt = False,
):
    """Hooks registered, database integrity, schema, vector extension, recent hook errors, hook latency."""
    from .. import doctor as lib

    checks = lib.run(state.db, measure=not no_timing)
    failed = any(c["status"] == "fail" for c in checks)
    if want_json(json_):
        emit_json({"ok": not failed, "checks": checks})
    else:
        marks = {"ok": "[green]ok  [/green]", "warn": "[yellow]warn[/yellow]", "fail": "[red]FAIL[/red]"}
        c = console()
        for ch in checks:
            c.print(f"{marks[ch['status']]} {ch['name']:<18} {ch['detail']}", markup=True)
    raise typer.Exit(1 if failed else 0)
