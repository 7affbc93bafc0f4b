"""Commands for session memories and limits: summarize a transcript, compact a scope."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import JsonOpt, clip, emit_json, flush_warnings, open_store, settings, short, want_json


def register(app: typer.Typer) -> None:
    app.command("summarize")(summarize)
    app.command("compact")(compact)


def summarize(
    transcript: Annotated[Path, typer.Argument(metavar="TRANSCRIPT", help="A Claude Code transcript (.jsonl).")],
    session_id: Annotated[
        str | None,
        typer.Option("--session-id", metavar="S", help="Session the memories belong to (default: the transcript's)."),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option("--project", metavar="NAME", help="Project scope (default: derived from the transcript's cwd)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be stored; store nothing.")] = False,
    from_start: Annotated[
        bool, typer.Option("--from-start", help="Read the whole transcript, not only the part not summarised yet.")
    ] = False,
    json_: JsonOpt = False,
):
    """Write memories from a session transcript, as the session-end job does."""
    from ..llm.summarize import summarize_transcript

    if session_id is not None and not session_id.strip():
        raise InvalidInput("--session-id is empty")
    with open_store() as store:
        result = summarize_transcript(
            store,
            settings(),
            transcript,
            session_id=session_id,
            project=project,
            dry_run=dry_run,
            from_start=from_start,
        )
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    verb = "would store" if dry_run else "stored"
    new = sum(1 for m in result["memories"] if not m.get("duplicate_of"))
    print(
        f"{result['provider']}: {verb} {new} of {len(result['memories'])} memories"
        + (f" ({result['fallback']})" if result.get("fallback") else "")
    )
    for m in result["memories"]:
        mark = f"duplicate of {short(m['duplicate_of'])}" if m.get("duplicate_of") else short(m.get("id")) or "new"
        print(f"  {mark:>10}  [{m['type']}, {m['scope']}] {clip(m['content'], 100)}")
    for r in result.get("refused") or []:
        print(f"  refused: {r['reason']}")
    if result["report"]:
        print("report:\n  " + result["report"].replace("\n", "\n  "))


def compact(
    scope: Annotated[
        str | None,
        typer.Option("--scope", metavar="S", help="Only this scope (default: every scope over limits.per_scope)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; change nothing.")] = False,
    json_: JsonOpt = False,
):
    """Bring automatic memories back under limits.per_scope (archive, merge, edit; never delete)."""
    from .. import scope as scopes
    from ..llm.compact import compact_all

    if scope is not None:
        scopes.parse(scope)  # one-line error (exit 2) for a malformed scope
    with open_store() as store:
        result = compact_all(store, settings(), scope=scope, dry_run=dry_run)
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    if not result["scopes"]:
        print(f"no scope holds more than {result['limit']} automatic memories")
        return
    for s in result["scopes"]:
        print(
            f"{s['scope']}: {s['before']} -> {s['after']} (limit {s['limit']}, {s['method']})"
            + (f"; {s['fallback']}" if s.get("fallback") else "")
            + (" [dry run]" if dry_run else "")
        )
        for a in s["applied"]:
            arrow = " -> " if a["op"] != "archive" else "  "
            print(f"  {a['op']:>7} {', '.join(short(i) for i in a['ids'])}{arrow}{clip(a.get('content'), 80)}")
        for r in s["refused"]:
            print(f"  refused: {r['reason']}")
