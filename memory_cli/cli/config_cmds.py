"""`memory-cli config [get|set|unset|list]`: show the settings, or read and change one key.

With no subcommand it shows where memory-cli keeps things and the settings in force, as it
always did; the subcommands call :mod:`memory_cli.config_edit`, which checks every key and value
against the settings table before it writes.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from .common import JsonOpt, answer

config_app = typer.Typer(
    help="Show the settings in force, or get, set, unset or list one key (checked against the settings table).",
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
)

KeyArg = Annotated[str, typer.Argument(metavar="KEY", help="section.key, e.g. llm.provider (see `config list`).")]


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")


@config_app.callback()
def config(
    ctx: typer.Context,
    validate: Annotated[bool, typer.Option("--validate", help="Exit non-zero if the config file is invalid.")] = False,
    json_: JsonOpt = False,
):
    """Show where memory-cli keeps things and the settings in force (validated); `config set KEY
    VALUE` changes one key."""
    if ctx.invoked_subcommand is not None:
        return
    from .admin_cmds import config as show

    show(validate=validate, json_=json_)


def _shown(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _say_key(row: dict) -> None:
    print(f"{row['key']} = {_shown(row['value'])}  ({row['source']})")


def _say_set(row: dict) -> None:
    _say_key(row)
    if row["key"] == "llm.provider":
        from ..llm.offer import after_provider_set

        for line in after_provider_set(row["value"]):
            print(line)


def _say_listing(rows: list[dict]) -> None:
    width = max(len(r["key"]) for r in rows)
    for r in rows:
        print(f"{r['key']:<{width}}  {_shown(r['value'])}  [{r['source']}]")


@config_app.command("get")
def config_get(name: KeyArg, json_: JsonOpt = False):
    """Print one key's value in force (and, with --json, where it comes from)."""
    from .. import config_edit

    answer(json_, config_edit.get(name), lambda row: print(_shown(row["value"])))


@config_app.command("set")
def config_set(
    name: KeyArg,
    value: Annotated[str, typer.Argument(metavar="VALUE", help="The new value (true/false, a number, a word, null).")],
    json_: JsonOpt = False,
):
    """Set one key in the config file; a bad key or value is refused and nothing is written."""
    from .. import config_edit

    answer(json_, config_edit.set_value(name, value), _say_set)


@config_app.command("unset")
def config_unset(name: KeyArg, json_: JsonOpt = False):
    """Remove one key from the config file: its default applies again."""
    from .. import config_edit

    answer(json_, config_edit.unset(name), _say_key)


@config_app.command("list")
def config_list(json_: JsonOpt = False):
    """Every key with its value in force and where that value comes from (config, environment, default)."""
    from .. import config_edit

    answer(json_, config_edit.listing(), _say_listing)
