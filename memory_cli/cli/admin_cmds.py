"""Commands that look after the store as a whole: stats, export, import, audit, config (shown;
its subcommands are in ``config_cmds``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import JsonOpt, console, emit_json, open_store, want_json


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)
    app.command("export")(export)
    app.command("import")(import_)
    app.command("audit")(audit_)


def stats(json_: JsonOpt = False):
    """Counts by type, scope, source, age and status; rules; pending corrections; recent activity."""
    from .. import stats as stats_mod

    with open_store(reading=True) as store:
        data = stats_mod.collect(store)
    if want_json(json_):
        emit_json(data)
        return
    c = console()
    c.print(f"[bold]{data['active']}[/bold] active memories ({data['total']} stored)")
    for title, key in (
        ("status", "by_status"),
        ("type", "by_type"),
        ("scope", "by_scope"),
        ("source", "by_source"),
        ("age", "by_age"),
    ):
        items = data.get(key) or {}
        if items:
            c.print(f"  by {title}: " + ", ".join(f"{k} {v}" for k, v in items.items()))
    r = data["rules"]
    c.print(
        f"rules: {r['enabled']} enabled of {r['total']}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in r["by_action"].items()) + ")" if r["by_action"] else "")
        + (f", {r['unconfirmed']} unconfirmed" if r["unconfirmed"] else "")
    )
    pr = r.get("proof")
    if pr:
        from ..rules.proof import line

        idle = pr["never_fired_90_days"]
        c.print(
            f"  rules in hooks: {line(pr)}"
            + (f"; {len(idle)} never fired in 90 days (`memory-cli doctor`)" if idle else ""),
            markup=False,
        )
    c.print(f"corrections: {data['corrections']['pending']} pending review of {data['corrections']['total']}")
    audit = data.get("audit_last_7_days") or {}
    words = ", ".join(f"{stats_mod.action_words(k)} {v}" for k, v in audit.items())
    c.print("last 7 days: " + (words if audit else "no activity"), markup=False)
    for agent, n in (data.get("by_agent_last_7_days") or {}).items():
        c.print(
            f"  {agent}: {n['hook_calls']} hook calls, {n['blocks']} blocked, {n['warns']} warned"
            + (f", {n['errors']} failed open" if n["errors"] else "")
        )
    a = data["agent_stores"]
    c.print(
        f"incidents: {a['incidents_open']} open, {a['incidents_resolved']} resolved; "
        f"session reports: {a['reports']}; metrics: {a['metrics']} ({a['metric_samples']} samples)"
    )
    t = data.get("llm_tokens") or {}
    if t.get("per_day"):
        days = ", ".join(f"{d['day']} {d['tokens']}" for d in t["per_day"][-7:])
        c.print(f"model tokens: today {t['today']} of {t['daily_cap']} a day; per day: {days}", markup=False)
        sessions = ", ".join(f"{s['session'][:8]} {s['tokens']}" for s in t["per_session"][:5])
        c.print(f"  per session (latest first): {sessions}", markup=False)
        spent_on = ", ".join(f"{u['purpose']} {u['tokens']} ({u['requests']} requests)" for u in t["per_purpose"])
        c.print(f"  spent on: {spent_on}", markup=False)
    from ..maintenance.stats import render_lines

    for text in render_lines(data):
        c.print(text, markup=False)


def export(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")] = None,
    json_: JsonOpt = False,
):
    """Every table as JSON Lines (ids and timestamps kept): `import` restores it exactly."""
    from .. import transfer

    with open_store(reading=True) as store:
        lines = list(transfer.export_lines(store))
    text = "\n".join(lines) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        from ..files.safe_write import write_file

        write_file(output, text, new_mode=0o600)  # 0600: an export holds every memory
    except OSError as e:
        raise InvalidInput(f"cannot write {output}: {e.strerror}") from None
    if want_json(json_):
        emit_json({"output": str(output), "lines": len(lines)})
    else:
        print(f"exported {len(lines) - 1} rows to {output}")


def import_(
    file: Annotated[Path, typer.Argument(help="A file written by `memory-cli export` (- for stdin).")],
    on_conflict: Annotated[
        str,
        typer.Option(
            "--on-conflict",
            help="Rows whose id exists: skip them; replace them, except your own entries (kept and "
            "listed); or replace-all, your own entries included.",
        ),
    ] = "skip",
    json_: JsonOpt = False,
):
    """Load an export. Every line is checked first: one bad line and nothing is stored."""
    from .. import transfer

    if str(file) == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise InvalidInput(f"no such file: {file}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidInput(f"cannot read {file}: {getattr(e, 'strerror', None) or e}") from None
    with open_store() as store:
        report = transfer.import_lines(store, lines, on_conflict=on_conflict)
    if want_json(json_):
        emit_json(report)
        return
    for kind in ("inserted", "replaced", "skipped"):
        if report[kind]:
            print(f"{kind}: " + ", ".join(f"{t} {n}" for t, n in report[kind].items()))
    if report["replaced_ids"]:
        print("replaced entries (origin now import): " + ", ".join(report["replaced_ids"]))
    if report["kept_ids"]:
        print(
            "kept your own entries (an import does not rewrite them; --on-conflict replace-all does): "
            + ", ".join(report["kept_ids"])
        )
    if not any(report.values()):
        print("nothing to import")


def audit_(
    action: Annotated[str | None, typer.Option("--action", "-a", help="Only this action (prefix* allowed).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="ISO date or time, e.g. 2026-11-01.")] = None,
    entry: Annotated[str | None, typer.Option("--entry", help="Only events about this memory id.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Only events of this session id.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100000)] = 50,
    json_: JsonOpt = False,
):
    """What memory-cli did and why, newest first."""
    from .. import audit
    from ..util import iso, parse_iso

    since_iso = None
    if since:
        try:
            since_iso = iso(parse_iso(since))
        except ValueError:
            raise InvalidInput(
                f"--since {since!r} is not an ISO date/time (e.g. 2026-11-01 or 2026-11-01T10:00)"
            ) from None
    with open_store(reading=True) as store:
        entry_id = None
        if entry:
            from ..entries import resolve_id

            try:
                entry_id = resolve_id(store, entry)
            except Exception:
                entry_id = entry
        rows = audit.query(store, action=action, since=since_iso, entry_id=entry_id, session_id=session, limit=limit)
    if want_json(json_):
        emit_json(rows)
        return
    if not rows:
        print("no audit events")
        return
    from rich.table import Table

    t = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("time", "action", "agent", "event", "entry", "result", "ms", "context"):
        t.add_column(col)
    for r in rows:
        t.add_row(
            r["timestamp"][:19].replace("T", " "),
            r["action"],
            r.get("agent") or "",
            r.get("hook_event") or "",
            (r.get("entry_id") or "")[:8],
            str(r.get("result") or ""),
            f"{r['elapsed_ms']:.0f}" if r.get("elapsed_ms") is not None else "",
            _words_within(r.get("context") or "", 50),
        )
    console().print(t)


def _words_within(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut after a whole word and marked with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:") + "…"


def config(
    validate: Annotated[bool, typer.Option("--validate", help="Exit non-zero if the config file is invalid.")] = False,
    json_: JsonOpt = False,
):
    """Show where memory-cli keeps things and the settings in force (validated)."""
    from .. import paths
    from .. import settings as settings_mod
    from .common import state

    cfg_path = paths.config_path()
    error = None
    try:
        data, notes = settings_mod.validate_file(cfg_path)
        for note in notes:
            sys.stderr.write(f"note: {note}\n")
    except InvalidInput as e:
        if validate:
            raise
        error = str(e)
        data = settings_mod.load(cfg_path)
    disabled = settings_mod.memory_disabled(state.db)
    info = {
        "config_path": str(cfg_path),
        "config_exists": cfg_path.exists(),
        "database": None if disabled else str(settings_mod.database_path(state.db, data)),
        "memory_disabled": disabled,
        "claude_dir": str(paths.claude_dir()),
        "valid": error is None,
        "error": error,
        "settings": dict(data),
    }
    if want_json(json_):
        emit_json(info)
        return
    print(f"config:   {cfg_path}{'' if info['config_exists'] else ' (not present: defaults)'}")
    print(f"database: {info['database'] or 'disabled (MEMORY_CLI_DB is empty)'}")
    if error:
        print(f"INVALID:  {error}")
    import json

    print(json.dumps(dict(data), indent=2))
