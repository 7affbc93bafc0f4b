"""`memory-cli incidents|reports|baselines`: the journal stores for people (the MCP server's
tools call the same functions)."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from .common import JsonOpt, clip, emit_json, open_store, short, want_json


def _project_scope() -> str:
    from ..mcp.tools import current_project

    return current_project() or "global"


def _out(obj, json_: bool, text: str) -> None:
    if want_json(json_):
        emit_json(obj)
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _incident_line(i: dict) -> str:
    score = f" {i['score']:.2f}" if "score" in i else ""
    return (f"{short(i['id'])}{score} [{i['status']}/{i['severity']}] {clip(i['title'], 60)}"
            + (f" -> {clip(i['resolution'], 50)}" if i.get("resolution") else ""))


def _incident_text(i: dict) -> str:
    keys = ("id", "title", "status", "severity", "service", "symptoms", "cause", "resolution", "scope",
            "source", "created_at", "resolved_at")
    return "\n".join(f"{k:11} {i.get(k)}" for k in keys if i.get(k) is not None)


def register(app: typer.Typer) -> None:
    inc = typer.Typer(help="The incident journal: what broke and what fixed it.", no_args_is_help=True)
    rep = typer.Typer(help="Session reports: what each session did, per project.", no_args_is_help=True)
    bas = typer.Typer(help="Metric baselines: samples and whether a value is normal.", no_args_is_help=True)
    app.add_typer(inc, name="incidents")
    app.add_typer(rep, name="reports")
    app.add_typer(bas, name="baselines")

    # -- incidents --------------------------------------------------------------------------
    @inc.command("list")
    def incidents_list(status: Optional[str] = typer.Option(None, "--status", help="open, resolved or all."),
                       limit: int = typer.Option(50, "--limit", "-n"), json_: JsonOpt = False):
        """Incidents, newest first."""
        from ..incidents import api

        with open_store(readonly=False) as store:
            rows = api.list_incidents(store, status=status, limit=limit)
        _out(rows, json_, "\n".join(_incident_line(i) for i in rows) or "no incidents")

    @inc.command("show")
    def incidents_show(id: str = typer.Argument(..., help="Incident id or unique prefix."), json_: JsonOpt = False):
        """One incident in full."""
        from ..incidents import api

        with open_store() as store:
            i = api.get_incident(store, id)
        _out(i, json_, _incident_text(i))

    @inc.command("add")
    def incidents_add(title: str = typer.Argument(..., help="One-line summary."),
                      symptoms: str = typer.Option(..., "--symptoms", help="What was seen (error text)."),
                      service: Optional[str] = typer.Option(None, "--service"),
                      severity: str = typer.Option("medium", "--severity", help="critical, high, medium, low."),
                      cause: Optional[str] = typer.Option(None, "--cause"),
                      resolution: Optional[str] = typer.Option(None, "--resolution"),
                      scope: Optional[str] = typer.Option(None, "--scope", "-s",
                                                          help="Default: the current project, else global."),
                      json_: JsonOpt = False):
        """Record an incident (resolved at once when --resolution is given)."""
        from ..incidents import api

        with open_store() as store:
            i = api.record_incident(store, title, symptoms, service=service, severity=severity, cause=cause,
                                    resolution=resolution, scope=scope or _project_scope(), source="manual",
                                    embed_timeout_ms=300)
        _out(i, json_, f"recorded incident {short(i['id'])} ({i['status']})")

    @inc.command("resolve")
    def incidents_resolve(id: str = typer.Argument(...),
                          resolution: str = typer.Option(..., "--resolution", "-r", help="What fixed it."),
                          cause: Optional[str] = typer.Option(None, "--cause"), json_: JsonOpt = False):
        """Mark an incident resolved."""
        from ..incidents import api

        with open_store() as store:
            i = api.resolve_incident(store, id, resolution, cause=cause, embed_timeout_ms=300)
        _out(i, json_, f"resolved incident {short(i['id'])}")

    @inc.command("search")
    def incidents_search(query: str = typer.Argument(..., help="A symptom or error text."),
                         status: Optional[str] = typer.Option(None, "--status"),
                         limit: int = typer.Option(10, "--limit", "-n"), json_: JsonOpt = False):
        """Has this happened before? Ranked like memory search."""
        from ..incidents import api

        with open_store() as store:
            rows = api.search_incidents(store, query, status=status, limit=limit, timeout_ms=300)
        _out(rows, json_, "\n".join(_incident_line(i) for i in rows) or "no matching incidents")

    # -- reports ----------------------------------------------------------------------------
    @rep.command("list")
    def reports_list(scope: Optional[str] = typer.Option(None, "--scope", "-s", help="Only this scope."),
                     limit: int = typer.Option(20, "--limit", "-n"), json_: JsonOpt = False):
        """Session reports, newest first."""
        from ..reports import api

        with open_store() as store:
            rows = api.list_reports(store, scope=scope, limit=limit)
        _out(rows, json_, "\n".join(f"{short(r['id'])} {r['created_at'][:16]} {r['scope']}: {clip(r['summary'], 70)}"
                                    for r in rows) or "no reports")

    @rep.command("show")
    def reports_show(id: Optional[str] = typer.Argument(None, help="Report id; default: the newest for --scope."),
                     scope: Optional[str] = typer.Option(None, "--scope", "-s", help="Default: the current project."),
                     json_: JsonOpt = False):
        """One report in full (by id, or the latest for a scope)."""
        from ..errors import NotFound
        from ..reports import api

        with open_store() as store:
            if id:
                r = api.get_report(store, id)
            else:
                sc = scope or _project_scope()
                r = api.latest_report(store, sc)
                if r is None:
                    raise NotFound(f"no report for {sc}")
        _out(r, json_, f"{r['id']}  {r['created_at']}  {r['scope']}  ({r['source']})\n\n{r['summary']}"
             + (f"\n\n{r['details']}" if r.get("details") else ""))

    # -- baselines --------------------------------------------------------------------------
    @bas.command("list")
    def baselines_list(json_: JsonOpt = False):
        """Every metric with its sample count and range."""
        from ..baselines import api

        with open_store() as store:
            rows = api.names(store)
        _out(rows, json_, "\n".join(f"{r['name']:40} n={r['n']:<4} avg={r['avg']:.4g} min={r['min']:.4g} "
                                    f"max={r['max']:.4g} {r['unit'] or ''}" for r in rows) or "no metrics")

    @bas.command("show")
    def baselines_show(name: str = typer.Argument(...), limit: int = typer.Option(20, "--limit", "-n"),
                       json_: JsonOpt = False):
        """A metric's baseline and its newest samples."""
        from ..baselines import api

        with open_store() as store:
            rows = api.samples(store, name, limit=limit)
            b = api.baseline(store, name)
        _out({"baseline": b, "samples": rows}, json_,
             f"{b['name']}: n={b['n']} avg={b['avg']:.4g} p95={b['p95']:.4g} min={b['min']:.4g} max={b['max']:.4g}"
             f" {b['unit'] or ''}\n" + "\n".join(f"  {r['recorded_at'][:19]} {r['value']:.4g} ({r['source']})"
                                               for r in rows))

    @bas.command("record")
    def baselines_record(name: str = typer.Argument(...), value: str = typer.Argument(...),
                         unit: Optional[str] = typer.Option(None, "--unit"),
                         scope: Optional[str] = typer.Option(None, "--scope", "-s"), json_: JsonOpt = False):
        """Record one sample."""
        from ..baselines import api

        with open_store() as store:
            s = api.record(store, name, value, unit=unit, scope=scope or _project_scope(), source="manual")
        _out(s, json_, f"recorded {s['name']} = {s['value']:g}")

    @bas.command("check")
    def baselines_check(name: str = typer.Argument(...), value: str = typer.Argument(...),
                        json_: JsonOpt = False):
        """Is VALUE normal for NAME? Exit 0 normal (or too few samples), 1 abnormal."""
        from ..baselines import api

        with open_store() as store:
            r = api.check(store, name, value)
        _out(r, json_, ("normal: " if r["normal"] else "ABNORMAL: ") + r["why"])
        if not r["normal"]:
            raise typer.Exit(1)
