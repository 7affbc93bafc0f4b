"""Commands over memory entries: add, query, list, show, update, archive, supersede, delete."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from .. import entries
from ..errors import InvalidInput
from .common import JsonOpt, clip, console, emit_json, flush_warnings, open_store, short, want_json


def register(app: typer.Typer) -> None:
    app.command("add")(add)
    app.command("query")(query)
    app.command("list")(list_)
    app.command("show")(show)
    app.command("update")(update)
    app.command("archive")(archive)
    app.command("supersede")(supersede)
    app.command("delete")(delete)


def add(
    content_arg: Optional[str] = typer.Argument(None, metavar="[CONTENT]", help="The memory text."),
    content: Optional[str] = typer.Option(None, "--content", "-c", help="The memory text (instead of the argument)."),
    type: str = typer.Option("fact", "--type", "-t", help="rule|correction|preference|fact|pattern|decision"),
    scope: str = typer.Option("global", "--scope", "-s", help="global | project:<name> | file:<path>"),
    source: str = typer.Option("manual", "--source", help="Where it came from (manual, imported, ...)."),
    confidence: Optional[float] = typer.Option(None, "--confidence", help="0.0-1.0 (clamped with a warning)."),
    tags: Optional[str] = typer.Option(None, "--tags", help="Comma-separated tags."),
    category: Optional[str] = typer.Option(None, "--category", help="timing|dependency|behavior|remediation|maintenance"),
    subject: Optional[str] = typer.Option(None, "--subject", help="Service or subject the memory is about."),
    pattern: Optional[str] = typer.Option(None, "--pattern", help="Rules: what to match (derived from the content if omitted)."),
    pattern_type: Optional[str] = typer.Option(None, "--pattern-type", help="Rules: regex|command|intent."),
    action: Optional[str] = typer.Option(None, "--action", help="Rules: block|warn|suggest|ask."),
    severity: Optional[str] = typer.Option(None, "--severity", help="Rules: critical|high|medium|low."),
    alternative: Optional[str] = typer.Option(None, "--alternative", help="Rules: what to do instead."),
    json_: JsonOpt = False,
):
    """Add a memory; prints the new id (JSON: the stored entry)."""
    if content_arg is not None and content is not None and content_arg != content:
        raise InvalidInput("give the content either as the argument or with --content, not both")
    text = content if content is not None else content_arg
    rule_opts = {"pattern": pattern, "pattern_type": pattern_type, "action": action,
                 "severity": severity, "alternative": alternative}
    if any(v is not None for v in rule_opts.values()) and (type or "").strip().lower() != "rule":
        raise InvalidInput("--pattern, --pattern-type, --action, --severity and --alternative need --type rule")
    with open_store() as store:
        rule = None
        with store.transaction():
            entry = entries.add(store, text, type, scope=scope, source=source, confidence=confidence,
                                tags=tags, category=category, subject=subject)
            if entry["type"] == "rule":
                rule = _attach_rule(store, entry, rule_opts)
        _index_now(store, entry["id"])
        flush_warnings(store)
    if want_json(json_):
        out = dict(entry)
        if rule is not None:
            out["rule"] = rule
        emit_json(out)
    else:
        print(entry["id"])
        if rule is not None:
            sys.stderr.write(f"rule: {rule.get('pattern_type')} {rule.get('pattern')!r} -> {rule.get('action')}\n")


def _attach_rule(store, entry, opts):
    """Rules are entries plus enforcement data; the rules package derives and stores it."""
    from importlib import import_module

    try:
        rules_api = import_module("memory_cli.rules.api")
    except ModuleNotFoundError as e:
        if e.name in ("memory_cli.rules", "memory_cli.rules.api"):
            return None
        raise
    return rules_api.attach_rule(store, entry, **opts)


def query(
    text: str = typer.Argument(..., help="What to look for."),
    scope: Optional[str] = typer.Option(None, "--scope", "-s", help="Only memories that apply in this scope (plus global)."),
    type: Optional[str] = typer.Option(None, "--type", "-t"),
    limit: int = typer.Option(10, "--limit", "-n", min=1, max=1000),
    json_: JsonOpt = False,
):
    """Find memories relevant to TEXT, best first."""
    from ..retrieval import search

    if not text.strip():
        raise InvalidInput("query text is empty")
    with open_store() as store:
        results = search.query(store, text, scope=scope, type=type, limit=limit)
        flush_warnings(store)
    if want_json(json_):
        emit_json([{k: r.get(k) for k in ("id", "content", "type", "scope", "confidence", "score")}
                   | {"tags": r.get("tags", [])} for r in results])
        return
    if not results:
        print("no matching memories")
        return
    _table(results, score=True)


def list_(
    type: Optional[str] = typer.Option(None, "--type", "-t"),
    scope: Optional[str] = typer.Option(None, "--scope", "-s", help="Exactly this scope."),
    status: str = typer.Option("active", "--status", help="active|archived|superseded|all"),
    source: Optional[str] = typer.Option(None, "--source"),
    order: str = typer.Option("updated", "--order", help="updated|created|confidence|used"),
    limit: int = typer.Option(50, "--limit", "-n", min=0),
    json_: JsonOpt = False,
):
    """List memories (newest first)."""
    with open_store() as store:
        rows = entries.list_entries(store, type=type, scope=scope, status=status, source=source,
                                    limit=limit, order=order)
    if want_json(json_):
        emit_json(rows)
        return
    if not rows:
        print("no memories")
        return
    _table(rows)


def show(entry_id: str = typer.Argument(..., metavar="ID"), json_: JsonOpt = False):
    """Everything about one memory: fields, its rule, and its history from the audit log."""
    from .. import audit

    with open_store() as store:
        entry = entries.get(store, entry_id)
        rule = _rule_for(store, entry["id"])
        history = audit.query(store, entry_id=entry["id"], limit=20)
    if want_json(json_):
        emit_json(dict(entry, rule=rule, history=history))
        return
    c = console()
    for key, value in entry.items():
        c.print(f"[bold]{key:>16}[/bold]  {value if value is not None else ''}")
    if rule:
        c.print("[bold]            rule[/bold]")
        for key in ("pattern", "pattern_type", "action", "effective_action", "severity", "alternative",
                    "enabled", "confirmed", "provenance", "violation_count"):
            c.print(f"{key:>16}  {rule.get(key)}")
    if history:
        c.print("[bold]         history[/bold]")
        for h in history:
            c.print(f"{'':>16}  {h['timestamp'][:19]}  {h['action']}  {h.get('result') or ''}")


def update(
    entry_id: str = typer.Argument(..., metavar="ID"),
    content: Optional[str] = typer.Option(None, "--content", "-c"),
    type: Optional[str] = typer.Option(None, "--type", "-t"),
    scope: Optional[str] = typer.Option(None, "--scope", "-s"),
    confidence: Optional[float] = typer.Option(None, "--confidence"),
    tags: Optional[str] = typer.Option(None, "--tags"),
    category: Optional[str] = typer.Option(None, "--category"),
    subject: Optional[str] = typer.Option(None, "--subject"),
    status: Optional[str] = typer.Option(None, "--status", help="active|archived (restore with active)"),
    json_: JsonOpt = False,
):
    """Change a memory in place (use `supersede` to keep the old text as history)."""
    changes = dict(content=content, type=type, scope=scope, confidence=confidence, tags=tags,
                   category=category, subject=subject, status=status)
    if all(v is None for v in changes.values()):
        raise InvalidInput("nothing to update: give at least one of --content, --type, --scope, "
                           "--confidence, --tags, --category, --subject, --status")
    with open_store() as store:
        before = entries.get(store, entry_id)
        entry = entries.update(store, entry_id, **changes)
        if content is not None:
            _index_now(store, entry["id"])
        _resync_pins(store, before)
        flush_warnings(store)
    if want_json(json_):
        emit_json(entry)
    else:
        back = " (active again)" if before["status"] != "active" and entry["status"] == "active" else ""
        print(f"updated {entry['id']}{back}")


def archive(entry_id: str = typer.Argument(..., metavar="ID"), json_: JsonOpt = False):
    """Hide a memory from injection and search without deleting it."""
    with open_store() as store:
        before = entries.get(store, entry_id)
        entry = entries.archive(store, entry_id, reason="cli")
        _resync_pins(store, before)
    if want_json(json_):
        emit_json(entry)
    else:
        print(f"archived {entry['id']}")


def supersede(
    entry_id: str = typer.Argument(..., metavar="ID"),
    content: str = typer.Option(..., "--content", "-c", help="The replacement text."),
    json_: JsonOpt = False,
):
    """Replace a memory with a new one; the old stays as history and points to the new."""
    with open_store() as store:
        before = entries.get(store, entry_id)
        new = entries.supersede(store, entry_id, content)
        _index_now(store, new["id"])
        _resync_pins(store, before)
        flush_warnings(store)
    if want_json(json_):
        emit_json(new)
    else:
        print(new["id"])


def delete(
    entry_id: str = typer.Argument(..., metavar="ID"),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
    json_: JsonOpt = False,
):
    """Delete a memory for good (its last state stays in the audit log)."""
    with open_store() as store:
        entry = entries.get(store, entry_id)
        if not yes:
            if not sys.stdin.isatty():
                raise InvalidInput("refusing to delete without confirmation: pass --yes")
            if not typer.confirm(f"Delete {short(entry['id'])} ({clip(entry['content'], 60)})?", default=False):
                print("kept")
                return
        entries.delete(store, entry["id"])
        _resync_pins(store, entry)
    if want_json(json_):
        emit_json({"deleted": entry["id"]})
    else:
        print(f"deleted {entry['id']}")


def _rule_for(store, entry_id):
    """The rule in its public shape (the rules area owns it); the raw row as a fallback."""
    try:
        from ..rules import api as rules_api
    except ImportError:
        return store.row("SELECT * FROM enforcement_rules WHERE id = ?", (entry_id,))
    if store.value("SELECT 1 FROM enforcement_rules WHERE id = ?", (entry_id,)) is None:
        return None
    return rules_api.get_rule(store, entry_id)


CLI_EMBED_TIMEOUT_MS = 1000  # a person can wait a second for a busy daemon; a hook cannot


def _index_now(store, *ids) -> None:
    """Embed at once when the daemon is warm; otherwise the queue is backfilled later.

    A cold or absent daemon answers at once either way; the longer limit only helps when the
    daemon is busy embedding something else."""
    try:
        from ..embeddings import vectors
    except ImportError:
        return
    try:
        vectors.index_entries(store, list(ids), timeout_ms=CLI_EMBED_TIMEOUT_MS)
    except Exception:  # the entry is stored and queued either way
        pass


def _resync_pins(store, *entries_touched) -> None:
    """A pinned entry changed: rewrite its CLAUDE.md block now, not at the next PreCompact."""
    if not any(e and e.get("pinned") for e in entries_touched):
        return
    try:
        from ..maintenance import pins
    except ImportError:
        return
    for report in pins.sync(store) or []:
        if isinstance(report, dict) and report.get("action") == "conflict":
            sys.stderr.write(f"warning: {report.get('path')}: {report.get('reason')}; "
                             "see `memory-cli pins --sync`\n")


def _table(rows, score: bool = False) -> None:
    from rich.table import Table

    t = Table(box=None, pad_edge=False, header_style="bold")
    t.add_column("id")
    t.add_column("type")
    t.add_column("scope")
    t.add_column("conf", justify="right")
    if score:
        t.add_column("score", justify="right")
    t.add_column("content")
    for r in rows:
        cells = [short(r["id"]), r["type"], r["scope"], f"{r['confidence']:.2f}"]
        if score:
            cells.append(f"{r.get('score', 0):.3f}")
        cells.append(clip(r["content"]) + ("  [dim](pinned)[/dim]" if r.get("pinned") else ""))
        t.add_row(*cells)
    console().print(t)
