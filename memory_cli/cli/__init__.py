"""The person-facing CLI (typer + rich): a thin shell over the library.

Each area registers its commands from its own module so no CLI module grows into thousands of
lines. Errors the person can cause become one line and an exit code (see README, "Exit codes").
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Annotated

import typer

from .common import state
from .panels import MAX_CONTENT_WIDTH, PanelGroup, prepare

app = typer.Typer(
    cls=PanelGroup,
    name="memory-cli",
    help="A memory with teeth for Claude Code: rules, corrections and knowledge in one local "
    "SQLite store, enforced through hooks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": MAX_CONTENT_WIDTH},
)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"memory-cli {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    db: Annotated[
        str | None, typer.Option("--db", metavar="PATH", help="Database file (beats MEMORY_CLI_DB and config).")
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print only JSON on stdout.")] = False,
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit.")
    ] = False,
):
    state.db = db
    state.json = json_


# Foundation commands first, then each area's; each module registers its own commands.
_MODULES = [
    "entries_cmds",
    "admin_cmds",
    "config_cmds",
    "install_cmds",
    "doctor_cmd",
    "demo_cmd",
    "hook_cmd",
    "rules_cmds",
    "capture_cmds",
    "daemon_cmds",
    "retrieval_cmds",
    "maintenance_cmds",
    "web_cmds",
    "agent_cmds",
    "llm_cmds",
    "team_cmds",
    "sharing_cmds",
    "checks_cmds",
]
for _name in _MODULES:
    import_module(f"{__name__}.{_name}").register(app)


_json_requested = False


def _is_usage_error(e: BaseException) -> bool:
    """click's usage errors (bad option, missing argument, ...) carry a message and an exit
    code; typer vendors click privately, so they are recognised by that shape, not by class."""
    return hasattr(e, "format_message") and isinstance(getattr(e, "exit_code", None), int)


_command = None


def click_command():
    """The command tree, built once per process: building it evaluates every command's
    annotations (about 50 ms), which a process running several commands (the test suite runs
    the CLI in its own process) would otherwise pay for each."""
    global _command
    if _command is None:
        _command = prepare(typer.main.get_command(app))
    return _command


def run(argv: list[str]) -> int:
    from ..errors import MemoryCliError

    global _json_requested
    _json_requested = "--json" in argv
    command = click_command()
    try:
        _refuse_under_agent(argv)
        result = command.main(args=argv, prog_name="memory-cli", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except MemoryCliError as e:
        return _fail(str(e), e.exit_code)
    except typer.Abort:
        sys.stderr.write("memory-cli: aborted\n")
        return 1
    except typer.Exit as e:
        return e.exit_code
    except Exception as e:  # noqa: BLE001 - usage errors first, then bugs as one line
        if not _is_usage_error(e):
            return _internal_error(e)
        if type(e).__name__ == "NoArgsIsHelpError":
            ctx = getattr(e, "ctx", None)
            if ctx is not None:
                sys.stdout.write(ctx.get_help() + "\n")
            return 0
        hint = ""
        ctx = getattr(e, "ctx", None)
        if ctx is not None:
            hint = f" (see `{ctx.command_path} --help`)"
        return _fail(e.format_message() + hint, e.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("memory-cli: interrupted\n")
        return 130


def _refuse_under_agent(argv: list[str]) -> None:
    """A command that weakens enforcement or approves needs the person's word. Run inside a
    coding agent's process tree (:mod:`memory_cli.authority`, judged by process ancestry, not by
    the environment the agent can clear) it is refused unless the person confirms on the agent's
    own terminal; with only an agent's environment marker and no agent process above, a `yes`
    typed at an interactive terminal runs it."""
    from ..rules.weakening import ENTRY_COMMANDS, weakening

    if weakening(argv) is None:
        return
    what = weakening(argv, _rule_lookup(argv)) if ENTRY_COMMANDS.intersection(argv) else weakening(argv)
    if what is None:
        return
    from .. import authority
    from ..errors import AgentRefused
    from ..rules.self_protect import agent_marker

    found = authority.agent_ancestor()
    if found is not None:
        if authority.person_confirms(found, what):
            return
        raise AgentRefused(authority.refusal(found.name, what))
    agent = agent_marker()
    if not agent:
        return
    try:
        interactive = sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        interactive = False
    if interactive:
        sys.stderr.write(f"memory-cli: this shell was started by {agent}; `{what}` weakens enforcement.\n")
        sys.stderr.write("Type 'yes' to run it as the person: ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() == "yes":
            return
    raise AgentRefused(authority.refusal(agent, what))


def _rule_lookup(argv: list[str]):
    """Whether an id is a rule's, in the store this command would use (read-only)."""

    def is_rule(word: str) -> bool:
        from .. import settings as s
        from ..rules.weakening import rule_lookup
        from ..store.db import Store

        db = None
        for i, a in enumerate(argv):
            if a == "--db" and i + 1 < len(argv):
                db = argv[i + 1]
            elif a.startswith("--db="):
                db = a[5:]
        try:
            store = Store.open(s.database_path(db, s.load()), readonly=True)
        except Exception:
            return True
        try:
            return rule_lookup(store)(word)
        finally:
            store.close()

    return is_rule


def _internal_error(e: Exception) -> int:
    """A bug: still one line, with a way to get the traceback."""
    import os

    if isinstance(e, BrokenPipeError):
        return 0
    if os.environ.get("MEMORY_CLI_DEBUG"):
        raise e
    return _fail(f"internal error: {type(e).__name__}: {e} (set MEMORY_CLI_DEBUG=1 for a traceback)", 1)


def _fail(message: str, code: int) -> int:
    import json

    message = " ".join(message.split())
    if state.json or _json_requested:
        sys.stdout.write(json.dumps({"error": message, "exit_code": code}) + "\n")
    sys.stderr.write(f"memory-cli: error: {message}\n")
    return code
