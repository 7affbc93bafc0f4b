"""`memory-cli team ...`: share memory with teammates through a PostgreSQL server."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonOpt, answer, open_store, short

team_app = typer.Typer(
    help="Team memory on a PostgreSQL server: init, join, sync, status, confirm, leave.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

UrlArg = Annotated[
    str,
    typer.Argument(
        help="libpq URL or conninfo, e.g. postgresql://db.example.com/memory "
        "(passwords: ~/.pgpass or PGPASSWORD, never stored by memory-cli)."
    ),
]


def register(app: typer.Typer) -> None:
    app.add_typer(team_app, name="team")


@team_app.command("init")
def team_init(url: UrlArg, json_: JsonOpt = False):
    """Create the team store's schema and roles on the server (an admin, once)."""
    from ..team import api

    answer(json_, api.init(url), _say_ready)


def _say_ready(out: dict) -> None:
    from ..team import schema

    print(f"team store ready on {out['server']} (schema {out['schema_version']})")
    print(schema.GRANT_HELP)


@team_app.command("join")
def team_join(url: UrlArg, json_: JsonOpt = False):
    """Join this store to a team store and sync once."""
    from ..team import api

    with open_store() as store:
        out = api.join(store, url)
        out["sync"] = api.sync_now(store, url=url)
    answer(json_, out, _say_joined)


def _say_joined(out: dict) -> None:
    if out["password_stripped"]:
        print("note: the password in the URL was not stored; put it in ~/.pgpass or PGPASSWORD")
    roles = ", ".join(out["roles"]) or "none (ask an admin for memory_cli_member)"
    s = out["sync"]
    print(f"joined {out['server']} (roles: {roles}); pulled {s['added']} entries, pushed {s['pushed']}")
    _print_notes(s)


def _print_notes(out: dict) -> None:
    """Each row the pull refused or kept under a new id, with why (the audit log has them all)."""
    for n in out.get("notes") or []:
        print(f"  {n['what']} {short(n['id'])}: {n['why']}")


@team_app.command("sync")
def team_sync(json_: JsonOpt = False):
    """Push shared entries that changed here, pull teammates' changes."""
    from ..team import api

    with open_store() as store:
        out = api.sync_now(store)
    answer(json_, out, _say_synced)


def _say_synced(out: dict) -> None:
    print(
        f"pushed {out['pushed']}, deleted {out['deleted']}; pulled {out['added']} new, {out['updated']} "
        f"updated, {out['archived']} archived, {out['conflict']} conflicts"
        + (f"; {out['refused']} pushes refused by the team store" if out["refused"] else "")
        + (
            f"; {out['held']} teammate changes held, this store keeps its version "
            "(`memory-cli audit --action team_held`)"
            if out["held"]
            else ""
        )
        + (
            f"; {out['collisions']} refused: the id of a local entry never shared with the team, "
            "left untouched (`memory-cli audit --action team_pull`)"
            if out["collisions"]
            else ""
        )
        + (
            f"; {out['refused_rows']} entries left out (`memory-cli audit --action team_pull` says why)"
            if out["refused_rows"]
            else ""
        )
    )
    _print_notes(out)


@team_app.command("status")
def team_status(
    offline: Annotated[bool, typer.Option("--offline", help="Do not contact the server.")] = False,
    json_: JsonOpt = False,
):
    """What is shared, when the last sync ran, whether the server answers."""
    from ..team import api

    with open_store(reading=True) as store:
        out = api.status(store, check_server=not offline)
    answer(json_, out, _say_status)


def _say_status(out: dict) -> None:
    if not out["joined"]:
        print("not in a team: memory-cli team join URL")
        return
    print(f"server: {out['server']}")
    print(
        f"shared from here: {out['shared']} ({out['unpushed']} not pushed yet, "
        f"{out['pending_tombstones']} deletions pending); from teammates: {out['from_teammates']}"
    )
    last = out["last_sync"]
    print(f"last sync: {last['at'] if last else 'never'}")
    if out["last_error"]:
        print(f"last failure: {out['last_error']['at']}: {out['last_error']['message']}")
    if "reachable" in out:
        if out["reachable"]:
            c = out["server_counts"]
            print(
                f"server: {c['entries']} entries, {c['tombstones']} tombstones, {c['confirmed_rules']} confirmed "
                f"rules; your roles: {', '.join(out['roles']) or 'none'}"
            )
        else:
            print(f"server: {out['server_error']}")


@team_app.command("confirm")
def team_confirm(
    entry_id: Annotated[str, typer.Argument(help="A shared rule's id (or prefix).")], json_: JsonOpt = False
):
    """Confirm a shared rule so it blocks in every teammate's store (maintainers only)."""
    from ..team import api

    with open_store() as store:
        row = api.confirm(store, entry_id)
    answer(json_, row, _say_confirmed)


def _say_confirmed(row: dict) -> None:
    # What is confirmed is the team store's version, which may be a teammate's change this store
    # has held back: say what it is.
    rule = row.get("rule") or {}
    print(
        f"confirmed {short(row['id'])} in the team store (version {row['version']}): {row['content']!r}, "
        f"{rule.get('pattern_type')} {rule.get('pattern')!r}, {rule.get('action')}; teammates get it at "
        "their next sync"
    )


@team_app.command("leave")
def team_leave(json_: JsonOpt = False):
    """Stop syncing. Entries pulled from teammates stay in this store."""
    from ..team import api

    with open_store() as store:
        out = api.leave(store)
    answer(json_, out, _say_left)


def _say_left(out: dict) -> None:
    print(f"left {out['server']}; {out['shared_entries_forgotten']} shared entries are no longer synced")
