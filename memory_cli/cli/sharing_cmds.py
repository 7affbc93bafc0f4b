"""`memory-cli share` / `unshare`: put a memory or rule in front of the whole team."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from .common import JsonOpt, emit_json, open_store, short, want_json

ToOpt = Annotated[
    str, typer.Option("--to", help="auto (each one available) | repo (.claude/memory-cli.toml) | team (the team store)")
]


def register(app: typer.Typer) -> None:
    app.command("share")(share)
    app.command("unshare")(unshare)


def share(
    entry_id: Annotated[str, typer.Argument(help="The memory's or rule's id (or prefix).")],
    to: ToOpt = "auto",
    json_: JsonOpt = False,
):
    """Share a memory or rule: write it into the repository's .claude/memory-cli.toml (commit it)
    and/or mark it for the team store."""
    from ..sharing import api

    with open_store() as store:
        out = api.share(store, entry_id, where=to)
    if want_json(json_):
        emit_json(out)
        return
    report(out)


def report(out: dict) -> None:
    if out["file"]:
        f = out["file"]
        verb = "updated in" if f["replaced"] else "written to"
        print(f"{short(out['id'])} {verb} {os.path.relpath(f['path'])}: review and commit it")
        if out.get("redacted"):
            print("note: it holds redacted text ([REDACTED...]); the secret itself was never stored")
    if out["team"] is True:
        print(f"{short(out['id'])} marked for the team store; the next sync pushes it")


def unshare(
    entry_id: Annotated[str, typer.Argument(help="The shared memory's id (or prefix).")], json_: JsonOpt = False
):
    """Stop sharing: remove it from .claude/memory-cli.toml and send the team store a deletion.
    The memory stays in this store."""
    from ..sharing import api

    with open_store() as store:
        out = api.unshare(store, entry_id)
    if want_json(json_):
        emit_json(out)
        return
    if out["file"]:
        print(f"{short(out['id'])} removed from {os.path.relpath(out['file']['path'])}: review and commit it")
    if out["team"]:
        print(f"{short(out['id'])} will be deleted from the team store at the next sync")
