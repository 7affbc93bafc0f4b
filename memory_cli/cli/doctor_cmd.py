"""`memory-cli doctor`: is everything installed, healthy and fast? Exit 1 if a check fails."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonOpt, console, emit_json, state, want_json

# The check's name in its own column; a longer name puts the detail on the next line.
NAME_COLUMN = 20


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


def doctor(
    no_timing: Annotated[bool, typer.Option("--no-timing", help="Skip the measured hook call.")] = False,
    json_: JsonOpt = False,
):
    """Hooks registered, database integrity, schema, vector extension, recent hook errors, hook latency."""
    from .. import doctor as lib

    checks = lib.each_check(state.db, measure=not no_timing)
    if want_json(json_):
        found = list(checks)
        failed = any(c["status"] == "fail" for c in found)
        emit_json({"ok": not failed, "checks": found, "summary": counts(found)})
        raise typer.Exit(1 if failed else 0)
    import shutil

    c = console()
    width = min(shutil.get_terminal_size((80, 24)).columns, 120)  # 80 when not a terminal
    seen = []
    for ch in checks:  # each line as its check finishes
        seen.append(ch)
        for line in lines_of(ch, width):
            c.print(line, markup=True, highlight=False, soft_wrap=True)
    c.print(summary_line(counts(seen)), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1 if any(ch["status"] == "fail" for ch in seen) else 0)


def counts(checks: list[dict]) -> dict[str, int]:
    out = {"ok": 0, "warn": 0, "fail": 0}
    for ch in checks:
        out[ch["status"]] = out.get(ch["status"], 0) + 1
    return out


def summary_line(n: dict[str, int]) -> str:
    """The verdict a person reads last, and what the exit status says: 1 when a check failed."""
    warnings = f"{n['warn']} warning" + ("" if n["warn"] == 1 else "s")
    if n["fail"]:
        verdict = "something is broken: see the FAIL lines above"
    else:
        verdict = "working; see the warnings above" if n["warn"] else "all good"
    return f"doctor: {n['ok']} ok, {warnings}, {n['fail']} failed ({verdict})"


_MARKS = {"ok": "[green]ok  [/green]", "warn": "[yellow]warn[/yellow]", "fail": "[red]FAIL[/red]"}


def lines_of(check: dict, width: int) -> list[str]:
    """One check as lines of at most ``width`` columns: the mark, the name, the detail wrapped
    under its own column."""
    import textwrap

    from rich.markup import escape

    indent = 5 + NAME_COLUMN + 1
    name = check["name"]
    wrapped = textwrap.wrap(check["detail"], max(width - indent, 20), break_long_words=True, break_on_hyphens=False)
    head = f"{_MARKS[check['status']]} {escape(name)}"
    if len(name) > NAME_COLUMN or not wrapped:
        out = [head]
    else:
        out = [head + " " * (NAME_COLUMN - len(name) + 1) + escape(wrapped.pop(0))]
    out += [" " * indent + escape(w) for w in wrapped]
    return out
