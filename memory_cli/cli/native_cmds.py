"""`memory-cli rules export --to AGENT [--write]`: the rules in an agent's native format."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import JsonOpt, emit_json, open_store, want_json

TO_HELP = "claude (settings.json permissions), codex ($CODEX_HOME/rules/memory-cli.rules) or gemini (~/.gemini/policies/memory-cli.toml)"


def register(rules_app: typer.Typer) -> None:
    rules_app.command("export")(rules_export)


def rules_export(
    to: Annotated[str, typer.Option("--to", help=TO_HELP)],
    write: Annotated[
        bool, typer.Option("--write", help="Write it where the agent reads it; it then follows every rule change.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --write: show the diff, write nothing.")] = False,
    json_: JsonOpt = False,
):
    """Print what the confirmed rules become in an agent's own rule format (which hold with every
    hook off), and which rules stay with the hook alone, and why."""
    from ..native import sync

    sync.check_agent(to)
    with open_store() as store:
        out = sync.export(store, to)
        if write:
            out["write"] = sync.write(store, to, dry_run=True) if dry_run else sync.enable(store, to)
    if want_json(json_):
        emit_json(out)
        return
    if not write:
        sys.stdout.write(out["text"] or f"(no rule {to} can hold natively)\n")
    else:
        w = out["write"]
        sys.stdout.write(w.get("diff") or "")
        if dry_run:
            print(f"(dry run: {w['path']} not changed)")
        elif not w["changed"]:
            print(f"{w['path']}: up to date; nothing changed")
        else:
            backup = f" (previous file backed up to {w['backup']})" if w.get("backup") else ""
            print(f"wrote {len(out['native'])} native rule(s) to {w['path']}{backup}")
    for r in out["native"]:
        sys.stderr.write(f"native  {r['id'][:8]}  {r['entry']}  ({r['note']})\n")
    for h in out["hook_only"]:
        sys.stderr.write(f"hook-only  {h['id'][:8]}  {h['rule']}: {h['why']}\n")
