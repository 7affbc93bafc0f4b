"""The person-facing CLI (typer + rich): a thin shell over the library.

Each area registers its commands from its own module so no CLI module grows into thousands of
lines. Errors the person can cause become one line and an exit code (see README, "Exit codes").
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Optional

import typer

from .common import state

app = typer.Typer(
    name="memory-cli",
    help="A memory with teeth for Claude Code: rules, corrections and knowledge in one local "
         "SQLite store, enforced through hooks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _global(db: Optional[str] = typer.Option(None, "--db", metavar="PATH",
                                             help="Database file (beats MEMORY_CLI_DB and config)."),
            json_: bool = typer.Option(False, "--json", help="Print only JSON on stdout.")):
    state.db = db
    state.json = json_


# Foundation commands first, then each area's. A missing area module is skipped so that the
# CLI works while an area is being built; an area module that fails to import is an error.
_MODULES = [
    "entries_cmds", "admin_cmds", "install_cmds", "doctor_cmd", "demo_cmd", "hook_cmd",
    "rules_cmds", "capture_cmds", "daemon_cmds", "retrieval_cmds", "maintenance_cmds",
    "mcp_cmds", "journal_cmds", "llm_cmds",
]
for _name in _MODULES:
    _full = f"{__name__}.{_name}"
    try:
        _mod = import_module(_full)
    except ModuleNotFoundError as _e:
        if _e.name == _full:
            continue
        raise
    _mod.register(app)


_json_requested = False


def _click_exceptions():
    """typer >= 0.26 vendors click as ``typer._click``; older typer uses click itself."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - older typer
        from click import exceptions
    return exceptions


def run(argv: list[str]) -> int:
    click = _click_exceptions()

    from ..errors import MemoryCliError

    global _json_requested
    _json_requested = "--json" in argv
    command = typer.main.get_command(app)
    try:
        result = command.main(args=argv, prog_name="memory-cli", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except MemoryCliError as e:
        return _fail(str(e), e.exit_code)
    except typer.Abort:
        sys.stderr.write("memory-cli: aborted\n")
        return 1
    except typer.Exit as e:
        return e.exit_code
    except click.ClickException as e:
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
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug: still one line, with a way to get the traceback
        import os

        if os.environ.get("MEMORY_CLI_DEBUG"):
            raise
        return _fail(f"internal error: {type(e).__name__}: {e} (set MEMORY_CLI_DEBUG=1 for a traceback)", 1)


def _fail(message: str, code: int) -> int:
    import json

    message = " ".join(message.split())
    if state.json or _json_requested:
        sys.stdout.write(json.dumps({"error": message, "exit_code": code}) + "\n")
    sys.stderr.write(f"memory-cli: error: {message}\n")
    return code
