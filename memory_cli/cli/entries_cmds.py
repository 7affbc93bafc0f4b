"""Commands over memory entries: add, query, list, show, update, archive, supersede, delete."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from .. import entries
from .. import scope as scope_mod
from ..errors import InvalidInput
from ..sharing import api as sharing
from .common import (
    JsonOpt,
    clip,
    confirmed,
    console,
    content_from,
    emit_json,
    flush_warnings,
    note_shared,
    open_store,
    rule_line,
    short,
    want_json,
    warn_if_never_fires,
)


def register(app: typer.Typer) -> None:
    app.command("add")(add)
    app.command("query")(query)
    app.command("list")(list_)
    app.command("show")(show)
    app.command("update")(update)
    app.command("archive")(archive)
    app.command("supersede")(supersede)
    app.command("delete")(delete)
    app.command("purge")(purge)


def add(
    content_arg: Annotated[str | None, typer.Argument(metavar="[CONTENT]", help="The memory text.")] = None,
    content: Annotated[
        str | None, typer.Option("--content", "-c", help="The memory text (instead of the argument).")
    ] = None,
    type: Annotated[
        str, typer.Option("--type", "-t", help="rule|correction|preference|fact|pattern|decision")
    ] = "fact",
    scope: Annotated[
        str,
        typer.Option(
            "--scope", "-s", help="global | project (this directory's project) | project:<name> | file:<path>"
        ),
    ] = "global",
    source: Annotated[str, typer.Option("--source", help="Where it came from (manual, imported, ...).")] = "manual",
    confidence: Annotated[float | None, typer.Option("--confidence", help="0.0-1.0 (clamped with a warning).")] = None,
    tags: Annotated[str | None, typer.Option("--tags", help="Comma-separated tags.")] = None,
    category: Annotated[
        str | None, typer.Option("--category", help="timing|dependency|behavior|remediation|maintenance")
    ] = None,
    subject: Annotated[str | None, typer.Option("--subject", help="Service or subject the memory is about.")] = None,
    pattern: Annotated[
        str | None, typer.Option("--pattern", help="Rules: what to match (derived from the content if omitted).")
    ] = None,
    pattern_type: Annotated[str | None, typer.Option("--pattern-type", help="Rules: regex|command|intent.")] = None,
    action: Annotated[str | None, typer.Option("--action", help="Rules: block|warn|suggest|ask.")] = None,
    severity: Annotated[str | None, typer.Option("--severity", help="Rules: critical|high|medium|low.")] = None,
    alternative: Annotated[str | None, typer.Option("--alternative", help="Rules: what to do instead.")] = None,
    share: Annotated[bool, typer.Option("--share", help="Share it at once, as `memory-cli share ID` does.")] = False,
    json_: JsonOpt = False,
):
    """Add a memory; prints the new id (JSON: the stored entry)."""
    text = content_from(content_arg, content)
    rule_opts = {
        "pattern": pattern,
        "pattern_type": pattern_type,
        "action": action,
        "severity": severity,
        "alternative": alternative,
    }
    if any(v is not None for v in rule_opts.values()) and (type or "").strip().lower() != "rule":
        raise InvalidInput("--pattern, --pattern-type, --action, --severity and --alternative need --type rule")
    scope = scope_mod.resolve_here(scope)
    with open_store() as store:
        if share:
            sharing.targets(store)  # nothing stored when there is nowhere to share it
        rule = None
        with store.transaction():
            entry = entries.add(
                store,
                text,
                type,
                scope=scope,
                source=source,
                confidence=confidence,
                tags=tags,
                category=category,
                subject=subject,
                origin="person",  # typed by the person, whatever source they label it with
            )
            if entry["type"] == "rule":
                rule = _attach_rule(store, entry, rule_opts)
        _index_now(store, entry["id"])
        if rule is not None:
            _resync_pins(store, entry)  # a new rule: its native copies follow
        shared = sharing.share(store, entry["id"]) if share else None
        flush_warnings(store)
    if want_json(json_):
        out = dict(entry)
        if rule is not None:
            out["rule"] = rule
        if shared is not None:
            out["shared"] = shared
        emit_json(out)
    else:
        print(entry["id"])
        if shared is not None:
            from .sharing_cmds import report

            report(shared)
        hint = ""
        if entry["scope"] == "global" and scope_mod.find_project_root(os.getcwd()):
            hint = " (every project; --scope project for this one only)"
        sys.stderr.write(f"scope: {entry['scope']}{hint}\n")
        if rule is not None:
            sys.stderr.write(rule_line(rule) + "\n")
    warn_if_never_fires(rule)


def _attach_rule(store, entry, opts):
    """Rules are entries plus enforcement data; the rules package derives and stores it."""
    from ..rules import api as rules_api

    return rules_api.attach_rule(store, entry, **opts)


def query(
    text: Annotated[str, typer.Argument(help="What to look for.")],
    scope: Annotated[
        str | None, typer.Option("--scope", "-s", help="Only memories that apply in this scope (plus global).")
    ] = None,
    type: Annotated[str | None, typer.Option("--type", "-t")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000)] = 10,
    json_: JsonOpt = False,
):
    """Find memories relevant to TEXT, best first."""
    from ..retrieval import search

    if not text.strip():
        raise InvalidInput("query text is empty")
    scope = scope_mod.resolve_here(scope) if scope else None
    with open_store() as store:
        note_shared(store)
        here = scope_mod.find_project_root(os.getcwd())
        root = here if scope and scope == f"project:{scope_mod.project_name(here)}" else None
        results = search.look_up(store, text, scope=scope, type=type, limit=limit, root=root)
        flush_warnings(store)
    if want_json(json_):
        emit_json(
            [
                {k: r.get(k) for k in ("id", "content", "type", "scope", "confidence", "score")}
                | {"tags": r.get("tags", [])}
                for r in results
            ]
        )
        return
    if not results:
        print("no matching memories")
        return
    _table(results, score=True)


def list_(
    type: Annotated[str | None, typer.Option("--type", "-t")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="Exactly this scope.")] = None,
    status: Annotated[str, typer.Option("--status", help="active|archived|superseded|all")] = "active",
    source: Annotated[str | None, typer.Option("--source")] = None,
    category: Annotated[
        str | None, typer.Option("--category", help="timing|dependency|behavior|remediation|maintenance")
    ] = None,
    subject: Annotated[str | None, typer.Option("--subject", help="Exactly this subject (any case).")] = None,
    min_confidence: Annotated[
        float | None, typer.Option("--min-confidence", help="Only entries at or above this confidence.")
    ] = None,
    order: Annotated[
        str, typer.Option("--order", help="updated|created|confidence|used|type|scope|content|status|source")
    ] = "updated",
    limit: Annotated[int, typer.Option("--limit", "-n", min=0)] = 50,
    json_: JsonOpt = False,
):
    """List memories (newest first)."""
    scope = scope_mod.resolve_here(scope) if scope else None
    with open_store(reading=True) as store:
        note_shared(store)
        rows = entries.list_entries(
            store,
            type=type,
            scope=scope,
            status=status,
            source=source,
            category=category,
            subject=subject,
            min_confidence=min_confidence,
            limit=limit,
            order=order,
        )
    if want_json(json_):
        emit_json(rows)
        return
    if not rows:
        print("no memories")
        return
    _table(rows)


def show(entry_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Everything about one memory: fields, its rule, and its history from the audit log."""
    from .. import audit

    with open_store(reading=True) as store:
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
        for key in (
            "pattern",
            "pattern_type",
            "action",
            "effective_action",
            "severity",
            "alternative",
            "enabled",
            "confirmed",
            "provenance",
            "violation_count",
        ):
            c.print(f"{key:>16}  {rule.get(key)}")
    if history:
        c.print("[bold]         history[/bold]")
        for h in history:
            c.print(f"{'':>16}  {h['timestamp'][:19]}  {h['action']}  {h.get('result') or ''}")


def update(
    entry_id: Annotated[str, typer.Argument(metavar="ID")],
    content: Annotated[str | None, typer.Option("--content", "-c")] = None,
    type: Annotated[str | None, typer.Option("--type", "-t")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence")] = None,
    tags: Annotated[str | None, typer.Option("--tags")] = None,
    category: Annotated[str | None, typer.Option("--category")] = None,
    subject: Annotated[str | None, typer.Option("--subject")] = None,
    status: Annotated[str | None, typer.Option("--status", help="active|archived (restore with active)")] = None,
    json_: JsonOpt = False,
):
    """Change a memory in place (use `supersede` to keep the old text as history)."""
    scope = scope_mod.resolve_here(scope) if scope else None
    changes = dict(
        content=content,
        type=type,
        scope=scope,
        confidence=confidence,
        tags=tags,
        category=category,
        subject=subject,
        status=status,
    )
    if all(v is None for v in changes.values()):
        raise InvalidInput(
            "nothing to update: give at least one of --content, --type, --scope, "
            "--confidence, --tags, --category, --subject, --status"
        )
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


def archive(entry_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
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
    entry_id: Annotated[str, typer.Argument(metavar="ID")],
    content: Annotated[str, typer.Option("--content", "-c", help="The replacement text.")],
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
    entry_id: Annotated[str, typer.Argument(metavar="ID")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    json_: JsonOpt = False,
):
    """Delete a memory for good (its last state stays in the audit log)."""
    with open_store() as store:
        entry = entries.get(store, entry_id)
        if not confirmed(f"Delete {short(entry['id'])} ({clip(entry['content'], 60)})?", yes, "delete"):
            print("kept")
            return
        entries.delete(store, entry["id"])
        _resync_pins(store, entry)
    if want_json(json_):
        emit_json({"deleted": entry["id"]})
    else:
        print(f"deleted {entry['id']}")


def _rule_for(store, entry_id):
    """The rule in its public shape (the rules area owns it), or None for an entry without one."""
    from ..rules import api as rules_api

    if not rules_api.rule_exists(store, entry_id):
        return None
    return rules_api.get_rule(store, entry_id)


def _index_now(store, *ids) -> None:
    from ..entry_effects import index_now

    index_now(store, *ids)


def _resync_pins(store, *entries_touched) -> None:
    from ..entry_effects import resync_native, resync_pins

    lines = resync_pins(store, *entries_touched)
    if any(e and e.get("type") == "rule" for e in entries_touched):
        lines += resync_native(store)
    for line in lines:
        sys.stderr.write(f"warning: {line}\n")


def purge(
    scope: Annotated[
        str, typer.Option("--scope", "-s", help="Exactly this scope: global | project:<name> | file:<path>.")
    ],
    source: Annotated[
        str | None, typer.Option("--source", help="Only entries from this source (manual, marker, ...).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    json_: JsonOpt = False,
):
    """Delete every memory in one scope (optionally of one source), in one transaction.

    Each deleted row stays in the audit log, as with `delete`."""
    sc = entries.purge_scope(scope)
    src = entries.check_source(source) if source else None
    with open_store() as store:
        doomed = entries.list_entries(store, scope=sc, source=src, status="all")
        if not doomed:
            if want_json(json_):
                emit_json({"deleted": 0, "scope": sc, "source": src})
            else:
                print(f"nothing to purge in {sc}" + (f" from source {src}" if src else ""))
            return
        if not yes:
            if not sys.stdin.isatty():
                raise InvalidInput("refusing to purge without confirmation: pass --yes")
            what = f"{len(doomed)} memor{'y' if len(doomed) == 1 else 'ies'} in {sc}" + (
                f" from source {src}" if src else ""
            )
            if not typer.confirm(f"Delete {what} for good (kept in the audit log)?", default=False):
                print("kept")
                return
        n = entries.purge(store, sc, source=src)
        _resync_pins(store, *doomed)
    if want_json(json_):
        emit_json({"deleted": n, "scope": sc, "source": src})
    else:
        print(f"purged {n} memor{'y' if n == 1 else 'ies'} from {sc}")


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
