"""What every command shares: the global options, opening the store, printing, errors.

Commands stay thin: parse options, call one library function, print its result as a table for
a person or as JSON (``--json``: stdout then carries only JSON; warnings go to stderr).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import contextmanager
from typing import Annotated, TypeVar

import typer

from ..errors import InvalidInput, MemoryDisabled


class State:
    db: str | None = None
    json: bool = False


state = State()
T = TypeVar("T")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print only JSON on stdout.")]


def want_json(flag: bool) -> bool:
    return bool(flag or state.json)


def settings():
    from .. import settings as s

    return s.load()


def db_path():
    from .. import settings as s

    if s.memory_disabled(state.db):
        raise MemoryDisabled("memory is disabled (MEMORY_CLI_DB is set but empty); unset it or pass --db PATH")
    return s.database_path(state.db, s.load())


@contextmanager
def open_store(*, readonly: bool = False, reading: bool = False):
    """The store for one command. After a command that wrote, a running embedding daemon is
    asked to embed whatever now waits in the vector queue (an import, a restore, a bulk
    change), so new entries become searchable by meaning within seconds, not at its next poll.

    ``reading``: the command only looks. A path in a directory that does not exist is then an
    error (a mistyped ``--db`` must not look like an empty store), and a store that cannot be
    written (a read-only file system, a file the person may only read) is opened read-only
    with a warning instead of being refused.
    """
    with _open(db_path(), readonly=readonly, reading=reading) as store:
        from ..files import cache_seal

        cache_seal.store = store  # the caches this command reads are the ones this store sealed
        try:
            if not readonly and not reading:
                _drain_spool(store)
            elif reading:
                _drain_spool(store, wait=False)  # show what hooks spooled, if the lock is free now
            yield store
            if not readonly and not reading:
                _request_backfill(store)
        finally:
            if cache_seal.store is store:
                cache_seal.store = None


def _open(path, *, readonly: bool, reading: bool):
    import os

    from ..errors import StoreRefused
    from ..store.db import Store

    if not reading or readonly:
        return Store.open(path, readonly=readonly)
    if not os.path.exists(path):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise StoreRefused(
                f"no database at {path}: directory {parent} does not exist (check --db, MEMORY_CLI_DB or database_path)"
            )
    try:
        store = Store.open(path)
    except StoreRefused as writable_error:
        if not os.path.exists(path):
            raise
        try:
            store = Store.open(path, readonly=True)
        except StoreRefused:
            raise writable_error from None
    if store.conn.readonly("main"):
        sys.stderr.write(
            f"note: read-only database {path}: showing what it holds; commands that change it will be refused\n"
        )
    return store


def _drain_spool(store, wait: bool = True) -> None:
    """Before a command: what hooks spooled while the write lock was held (a correction, audit
    rows, use counts) goes into the store, so the command sees it. A command that only reads
    does not wait for the lock (``wait=False``): what stays spooled is written by the next."""
    from ..store import spool

    try:
        r = spool.drain(store, wait=wait)
    except Exception as e:  # noqa: BLE001 - the command itself must still run
        if not wait:
            return
        store.warn(f"spooled writes could not be written yet ({type(e).__name__}: {e}); `memory-cli doctor` retries")
        return
    if r["failed"]:
        store.warn(f"{r['failed']} spooled write(s) could not be applied; see `memory-cli audit --action spool_failed`")


def _request_backfill(store) -> None:
    from ..embeddings import vectors

    try:
        vectors.request_backfill(store, store.path, timeout_ms=200)
    except Exception:  # noqa: BLE001 - the command itself succeeded; the daemon polls anyway
        pass


def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def answer(json_: bool, found: T, say: Callable[[T], object]) -> None:
    """A command's result: ``found`` as JSON when JSON is asked for (``--json`` or the global
    flag), else ``say(found)`` prints it in the person's words. One place decides which, so no
    command prints text into a JSON answer."""
    if want_json(json_):
        emit_json(found)
    else:
        say(found)


def flush_warnings(store) -> None:
    for w in getattr(store, "warnings", []):
        sys.stderr.write(f"warning: {w}\n")
    if store is not None:
        store.warnings.clear()


def _interactive() -> bool:
    return sys.stdout.isatty()


def console():
    """A terminal gets rich's layout at its width; a pipe, a log or a file gets whole lines
    (rich would otherwise assume 80 columns and wrap every table row)."""
    from rich.console import Console

    if _interactive():
        return Console(highlight=False, soft_wrap=False)
    return Console(highlight=False, soft_wrap=True, width=100_000)


def short(eid: str | None) -> str:
    return (eid or "")[:8]


def clip(text: str | None, width: int = 90) -> str:
    """One line of ``text``, cut to ``width`` on a terminal only: piped output stays whole."""
    t = " ".join((text or "").split())
    return t if len(t) <= width or not _interactive() else t[: width - 1] + "…"


def parse_json_arg(text: str, what: str):
    try:
        return json.loads(text)
    except ValueError as e:
        raise InvalidInput(f"{what} is not valid JSON ({e})") from None


def confirmed(question: str, yes: bool, what: str) -> bool:
    """Ask before something that cannot be taken back with one command. ``--yes`` skips the
    question; without a terminal to ask on, refuse (exit 2) rather than guess."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise InvalidInput(f"refusing to {what} without confirmation: pass --yes")
    import typer

    return typer.confirm(question, default=False)


def rule_line(rule: dict) -> str:
    """``rule: command 'npm' -> warn``, with the action the rule will actually take and, when
    that is not the one asked for, why: a person must learn at once that "block" will not block."""
    asked = rule.get("action")
    acts = rule.get("effective_action") or asked
    line = f"rule: {rule.get('pattern_type')} {rule.get('pattern')!r} -> {acts}"
    if acts != asked:
        if rule.get("pattern_type") == "intent":
            line += f" (asked for {asked}: an intent rule never blocks or asks, similarity is a hint, not proof)"
        else:
            line += f" (asked for {asked}: it warns until you confirm it with `memory-cli rules confirm`)"
    if rule.get("alternative"):
        line += f" (instead: {rule['alternative']})"
    return line


def warn_if_never_fires(rule: dict | None) -> None:
    """A rule naming a tool the installed hook is not called for would never fire: say so."""
    if not rule or not rule.get("tools"):
        return
    from ..install_agents import all_coverage_warnings

    for line in all_coverage_warnings(rule["tools"]):
        sys.stderr.write(f"warning: {line}\n")


def note_shared(store) -> None:
    """Say (one stderr line) when the repository's shared file (.claude/memory-cli.toml) changed
    since it was last loaded. Reading commands never load it: a file that arrived with a clone
    is applied by a session in that repository, which tells the person what it did."""
    import os

    from .. import scope
    from ..errors import InvalidInput
    from ..sharing import KV_PREFIX, path_for, repo_file

    root = scope.find_project_root(os.getcwd())
    if not root or not os.path.lexists(path_for(root)):
        return
    try:
        data = repo_file.read_bytes(path_for(root))
    except InvalidInput as err:
        sys.stderr.write(f"memory-cli: {err}\n")
        return
    from ..store import kvstate

    loaded = (kvstate.get(store, KV_PREFIX + root) or {}).get("hash")
    if data is not None and loaded != repo_file.digest(data):
        sys.stderr.write(
            "memory-cli: .claude/memory-cli.toml is not loaded in its current form; "
            "the next session in this repository loads it\n"
        )


def content_from(argument: str | None, option: str | None) -> str | None:
    """The content given as the argument or with --content (both only if they agree)."""
    from ..errors import InvalidInput

    if argument is not None and option is not None and argument != option:
        raise InvalidInput("give the content either as the argument or with --content, not both")
    return option if option is not None else argument
