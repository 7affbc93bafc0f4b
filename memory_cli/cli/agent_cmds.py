"""Commands over the agent stores (incidents, session reports, metric baselines) and the MCP
server that exposes them to Claude: the same domain functions the tools call."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import InvalidInput
from .common import JsonOpt, clip, console, emit_json, flush_warnings, open_store, short, state, want_json

incidents_app = typer.Typer(
    help="The incident journal: what broke, how it showed, what fixed it.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
reports_app = typer.Typer(
    help="Session reports: what a session did, for the next one.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
baselines_app = typer.Typer(
    help="Metric baselines: is this value normal for this metric?",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(incidents_app, name="incidents")
    app.add_typer(reports_app, name="reports")
    app.add_typer(baselines_app, name="baselines")
    app.command("mcp")(mcp)


def mcp():
    """Run the MCP server on stdin/stdout (Claude Code starts it; `install` registers it)."""
    from ..mcp import server

    server.main(state.db)


def _scope(value: str | None) -> str | None:
    from .. import scope as scopes

    return scopes.resolve_here(value) if value else None


def _incident_table(rows, score=False) -> None:
    from rich.table import Table

    t = Table(box=None, pad_edge=False, header_style="bold")
    for col in ["id", "status", "severity", "service", "title", "resolution"] + (["score"] if score else []):
        t.add_column(col)
    for r in rows:
        t.add_row(
            short(r["id"]),
            r["status"],
            r["severity"],
            r.get("service") or "",
            clip(r["title"], 50),
            clip(r.get("resolution") or "", 50),
            *([f"{r['score']:.2f}"] if score else []),
        )
    console().print(t)


@incidents_app.command("add")
def incidents_add(
    title: Annotated[str, typer.Argument(help="What broke, in a few words.")],
    symptoms: Annotated[str, typer.Option("--symptoms", help="How it showed (error text, behaviour).")],
    service: Annotated[str | None, typer.Option("--service")] = None,
    severity: Annotated[
        str | None, typer.Option("--severity", help="critical|high|medium|low (warning, info, P1... are mapped)")
    ] = None,
    cause: Annotated[str | None, typer.Option("--cause")] = None,
    resolution: Annotated[str | None, typer.Option("--resolution", help="What fixed it (marks it resolved).")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="global | project | project:<name>")] = None,
    json_: JsonOpt = False,
):
    """Record an incident."""
    from ..incidents import api

    with open_store() as store:
        inc = api.record(
            store,
            title,
            symptoms,
            service=service,
            severity=severity,
            cause=cause,
            resolution=resolution,
            scope=_scope(scope),
            embed_timeout_ms=1000,
        )
        flush_warnings(store)
    emit_json(inc) if want_json(json_) else print(inc["id"])


@incidents_app.command("list")
def incidents_list(
    status: Annotated[str | None, typer.Option("--status", help="open|resolved")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 50,
    json_: JsonOpt = False,
):
    """Incidents, newest first."""
    from ..incidents import api

    with open_store(reading=True) as store:
        rows = api.list_incidents(store, status=status, limit=limit)
    if want_json(json_):
        emit_json(rows)
    elif not rows:
        print("no incidents")
    else:
        _incident_table(rows)


@incidents_app.command("show")
def incidents_show(incident_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Every field of one incident."""
    from ..incidents import api

    with open_store(reading=True) as store:
        inc = api.get(store, incident_id)
    if want_json(json_):
        emit_json(inc)
        return
    for k, v in inc.items():
        if v is not None:
            print(f"{k + ':':13} {v}")


@incidents_app.command("resolve")
def incidents_resolve(
    incident_id: Annotated[str, typer.Argument(metavar="ID")],
    resolution: Annotated[str, typer.Option("--resolution", help="What fixed it.")],
    cause: Annotated[str | None, typer.Option("--cause")] = None,
    json_: JsonOpt = False,
):
    """Mark an incident resolved with what fixed it."""
    from ..incidents import api

    with open_store() as store:
        inc = api.resolve(store, incident_id, resolution, cause=cause)
        flush_warnings(store)
    emit_json(inc) if want_json(json_) else print(f"resolved {short(inc['id'])}")


@incidents_app.command("search")
def incidents_search(
    query: Annotated[str | None, typer.Argument(help="Symptoms or an error message.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="open|resolved")] = None,
    service: Annotated[str | None, typer.Option("--service", help="Only this service's incidents.")] = None,
    alert: Annotated[
        str | None, typer.Option("--alert", help="Only incidents naming this alert (title or symptoms).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100)] = 5,
    json_: JsonOpt = False,
):
    """Has this happened before? Incidents like QUERY, best first; with --service or --alert
    QUERY may be left out (then newest first)."""
    from ..incidents import api

    with open_store() as store:
        rows = api.search(store, query, status=status, limit=limit, service=service, alert=alert)
    if want_json(json_):
        emit_json(rows)
    elif not rows:
        print("no similar incidents")
    else:
        _incident_table(rows, score=query is not None and bool(query.strip()))


@reports_app.command("list")
def reports_list(
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20,
    json_: JsonOpt = False,
):
    """Session reports, newest first."""
    from ..reports import api

    with open_store(reading=True) as store:
        rows = api.list_reports(store, scope=_scope(scope), limit=limit)
    if want_json(json_):
        emit_json(rows)
    elif not rows:
        print("no reports")
    else:
        for r in rows:
            print(f"{short(r['id'])}  {r['created_at'][:16]}  {r['scope']}  {clip(r['summary'], 90)}")


@reports_app.command("show")
def reports_show(
    report_id: Annotated[str | None, typer.Argument(metavar="[ID]", help="Default: the latest.")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="With no ID: latest of this scope.")] = None,
    json_: JsonOpt = False,
):
    """One report (by default the latest of the scope, or of all)."""
    from ..errors import NotFound
    from ..reports import api

    with open_store(reading=True) as store:
        if report_id:
            rep = api.get(store, report_id)
        elif scope:
            rep = api.latest_report(store, _scope(scope))
        else:
            rows = api.list_reports(store, limit=1)
            rep = rows[0] if rows else None
    if rep is None:
        raise NotFound("no report yet")
    if want_json(json_):
        emit_json(rep)
        return
    print(f"{rep['created_at'][:16]}  {rep['scope']}  ({rep['source']})\n\n{rep['summary']}")
    if rep.get("details"):
        print(f"\n{rep['details']}")


def _value(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(f"value must be a number, got {text!r}") from None


@baselines_app.command("record")
def baselines_record(
    name: Annotated[str, typer.Argument(help="Metric name, e.g. 'pytest -q'.")],
    value: Annotated[str, typer.Argument(help="The measured value.")],
    unit: Annotated[str | None, typer.Option("--unit")] = None,
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    json_: JsonOpt = False,
):
    """Add a sample to a metric's baseline."""
    from ..baselines import api

    with open_store() as store:
        out = api.record(store, name, _value(value), unit=unit, scope=_scope(scope))
    emit_json(out) if want_json(json_) else print(f"recorded {out['value']:g} for {out['name']!r}")


@baselines_app.command("check")
def baselines_check(
    name: Annotated[str, typer.Argument()], value: Annotated[str, typer.Argument()], json_: JsonOpt = False
):
    """Is VALUE normal for metric NAME? Exit 0 either way; the answer says why."""
    from ..baselines import api

    with open_store(reading=True) as store:
        out = api.check(store, name, _value(value))
    emit_json(out) if want_json(json_) else print(("normal: " if out["normal"] else "ABNORMAL: ") + out["why"])


@baselines_app.command("show")
def baselines_show(name: Annotated[str, typer.Argument()], json_: JsonOpt = False):
    """A metric's baseline: n, median, MAD, average, p95, min, max over its recent samples."""
    from ..baselines import api
    from ..errors import NotFound

    with open_store(reading=True) as store:
        b = api.baseline(store, name)
    if b["n"] == 0:
        raise NotFound(f"no samples of {name!r}")
    if want_json(json_):
        emit_json(b)
    else:
        unit = f" {b['unit']}" if b.get("unit") else ""
        print(
            f"{name}: n={b['n']} median={b['median']:g}{unit} MAD={b['mad']:g}{unit} "
            f"avg={b['avg']:g}{unit} p95={b['p95']:g}{unit} "
            f"min={b['min']:g}{unit} max={b['max']:g}{unit}"
        )


@baselines_app.command("list")
def baselines_list(json_: JsonOpt = False):
    """Every metric with its sample count."""
    from ..baselines import api

    with open_store(reading=True) as store:
        rows = api.list_metrics(store)
    if want_json(json_):
        emit_json(rows)
    elif not rows:
        print("no metrics")
    else:
        for r in rows:
            print(f"{r['name']}  n={r['n']}  last {r['last_recorded'][:16]}")
