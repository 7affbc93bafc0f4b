"""`memory-cli inject` (the session-start block) and `memory-cli migrate` (flat files in)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import JsonOpt, clip, emit_json, flush_warnings, open_store, settings, short, want_json


def register(app: typer.Typer) -> None:
    app.command("inject")(inject)
    app.command("import-markdown")(import_markdown)
    app.command("migrate", hidden=True)(import_markdown)  # its name before 0.2


def inject(
    session_context: Annotated[
        str | None,
        typer.Option(
            "--session-context",
            metavar="JSON",
            help='What the session is about, e.g. \'{"project": "WhisperClick V3", "file": "src/main.py"}\'. '
            "Keys: project, project_root, cwd, file/files, task. Default: the current directory's project.",
        ),
    ] = None,
    source: Annotated[
        str, typer.Option("--source", help="startup|resume|clear|compact (compact re-injects pins first).")
    ] = "startup",
    session_id: Annotated[
        str | None, typer.Option("--session-id", help="Record the injection for this session.")
    ] = None,
    max_entries: Annotated[
        int | None, typer.Option("--max-entries", min=0, help="Override injection.max_entries.")
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=0, help="Override the token budget (config / MEMORY_CLI_BUDGET)."),
    ] = None,
    instructions: Annotated[
        bool, typer.Option("--instructions/--no-instructions", help="Append the [MEMORY:...] marker instructions.")
    ] = True,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the block without counting it as use.")] = False,
    json_: JsonOpt = False,
):
    """Print the memories a session would start with (what the SessionStart hook injects)."""
    from ..retrieval import session_start as inj

    sc = inj.parse_session_context(session_context)
    if not any(sc.get(k) for k in ("project", "project_root", "cwd")):
        sc = inj.parse_session_context({**(_raw(session_context)), "cwd": os.getcwd()})
    if source not in ("startup", "resume", "clear", "compact"):
        raise InvalidInput(f"unknown --source {source!r}: use startup, resume, clear or compact")
    with open_store() as store:
        result = inj.inject(
            store,
            sc,
            settings(),
            session_id=session_id,
            source=source,
            record=not dry_run,
            include_instructions=instructions,
            max_entries=max_entries,
            max_tokens=max_tokens,
        )
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    if result["text"]:
        sys.stdout.write(result["text"] + "\n")
    if not result["included"]:
        sys.stderr.write("no memories to inject for this context\n")


def _raw(text: str | None) -> dict:
    import json

    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def import_markdown(
    paths: Annotated[
        list[str] | None,
        typer.Argument(metavar="[PATH]...", help="More sources (a shell glob after --source lands here)."),
    ] = None,
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            metavar="PATH",
            help="A memory file, a folder (CLAUDE.md, MEMORY.md, *-memory.md/*-log.md files, a memory/ folder, "
            "~/.claude) or a glob. Repeatable.",
        ),
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope", "-s", help="Put everything in this scope instead of the one each file's location implies."
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be imported; store nothing.")] = False,
    rules: Annotated[
        bool,
        typer.Option("--rules/--no-rules", help="Give imported rules enforcement patterns as `add --type rule` does."),
    ] = True,
    json_: JsonOpt = False,
):
    """Import existing markdown memory; running it again adds nothing new."""
    from ..markdown_import.importer import import_sources

    sources = list(source or []) + list(paths or [])
    if not sources:
        raise InvalidInput("give at least one --source PATH (a file, a folder or a glob)")
    with open_store() as store:
        report = import_sources(store, sources, scope=scope, dry_run=dry_run, attach_rules=rules)
        flush_warnings(store)
    if not report["files"] and report["errors"]:
        raise InvalidInput("no memory files found in " + ", ".join(e["path"] for e in report["errors"]))
    if want_json(json_):
        emit_json(report)
        return
    verb = "Would import" if dry_run else "Imported"
    skipped = []
    if report["skipped_existing"]:
        skipped.append(f"{report['skipped_existing']} already stored")
    if report["skipped_deleted"]:
        skipped.append(f"{report['skipped_deleted']} deleted earlier, left out")
    tail = f" ({', '.join(skipped)})" if skipped else ""
    n = report["added"]
    print(f"{verb} {n} {'memory' if n == 1 else 'memories'} from {len(report['files'])} files{tail}.")
    for f in report["files"]:
        print(f"  {f['path']}: {f['found']} found, {f['added']} {'new' if dry_run else 'added'}")
    shown = 0
    for e in report["entries"]:
        if e["status"] not in ("added", "would_add"):
            continue
        if shown == 200:
            print(f"  ... and {n - shown} more (see --json)")
            break
        ident = short(e["id"]) if e["id"] else "+"
        print(f"  {ident:8} [{e['type']}] {e['scope']}: {clip(e['content'], 80)}")
        shown += 1
    if report["redacted"]:
        print(f"Redacted secrets in {report['redacted']} memories before storing them.")
    for err in report["errors"]:
        sys.stderr.write(f"warning: {err['path']}: {err['error']}\n")
