"""`memory-cli lessons` (each approved lesson with its form, scope and kept/sent-back figures;
`lessons form ID FORM` changes one) and `memory-cli checks pause|resume|sync|status`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import JsonOpt, clip, emit_json, flush_warnings, open_store, short, want_json

FORM_HELP = "rule | reminder | ask | stop-check | advice"


def register(app: typer.Typer) -> None:
    lessons_app = typer.Typer(
        help="Approved lessons and how each is enforced (rule, reminder, Stop check, advice).",
        invoke_without_command=True,
        no_args_is_help=False,
    )
    lessons_app.callback(invoke_without_command=True)(lessons_list)
    lessons_app.command("form")(lessons_form)
    app.add_typer(lessons_app, name="lessons")
    checks_app = typer.Typer(help="The Stop checks of approved lessons: status, pause, resume, sync.")
    checks_app.command("status")(checks_status)
    checks_app.command("pause")(checks_pause)
    checks_app.command("resume")(checks_resume)
    checks_app.command("sync")(checks_sync)
    app.add_typer(checks_app, name="checks")


def _rows(store) -> list[dict]:
    from ..checks import verdicts

    return verdicts.lessons(store)


def lessons_list(ctx: typer.Context, json_: JsonOpt = False):
    """Each approved lesson with its form, scope and kept / sent-back figures."""
    if ctx.invoked_subcommand:
        return
    with open_store(reading=True) as store:
        from ..checks import forms

        rows = _rows(store)
        paused = forms.paused(store)
    if want_json(json_):
        emit_json({"paused": paused, "lessons": rows})
        return
    if not rows:
        print("no approved lesson has a form yet (approve one with `memory-cli review --approve ID --form FORM`)")
        return
    if paused:
        print("Stop checks are paused (`memory-cli checks resume`)")
    for r in rows:
        v = r["verdicts"]
        figures = (
            f"  kept {v.get('kept_turns', 0)}, sent back {v.get('sent_back', 0)}, judge failed {v.get('judge_failed', 0)}"
            if r["form"] == "stop-check"
            else ""
        )
        how = r.get("check") or (", ".join(r["tools"]) if r["form"] in ("reminder", "ask") else "")
        print(f"{short(r['id'])}  {r['form']:<10} {r['scope']:<24} {clip(r['content'], 70)}")
        if how or figures:
            print(f"          {how}{figures}")


def lessons_form(
    lesson: Annotated[str, typer.Argument(metavar="ID", help="The lesson (its entry or correction id).")],
    form: Annotated[str, typer.Argument(metavar="FORM", help=FORM_HELP)],
    json_: JsonOpt = False,
):
    """Change how an approved lesson is enforced; the settings' Stop checks follow."""
    from ..checks import claude_settings, forms, lesson_review

    with open_store() as store:
        eid = forms.resolve(store, lesson)
        with store.transaction():
            out = lesson_review.apply(store, eid, form)
        out["checks_sync"] = [r for r in claude_settings.sync(store) if r["changed"]]
        flush_warnings(store)
    if want_json(json_):
        emit_json(out)
        return
    for r in out["checks_sync"]:
        sys.stdout.write(r["diff"])
    print(f"{short(eid)} is now a {out['form']}" + (f" ({out['check_kind']})" if out["check_kind"] else ""))


def _sync_report(reports: list[dict], json_: bool, extra: dict) -> None:
    if want_json(json_):
        emit_json({**extra, "files": [r for r in reports if r["changed"]]})
        return
    for r in reports:
        if r["changed"]:
            sys.stdout.write(r["diff"])
            print(f"{r['action']}: {r['path']}" + (f" (backup {r['backup']})" if r.get("backup") else ""))


def checks_pause(json_: JsonOpt = False):
    """Pause every Stop check (memory-cli's own and the judges in the settings) until resumed."""
    from ..checks import claude_settings, forms

    with open_store() as store:
        forms.set_paused(store, True)
        reports = claude_settings.sync(store)
    _sync_report(reports, json_, {"paused": True})
    if not want_json(json_):
        print("Stop checks paused; `memory-cli checks resume` turns them back on")


def checks_resume(json_: JsonOpt = False):
    """Turn the Stop checks back on."""
    from ..checks import claude_settings, forms

    with open_store() as store:
        forms.set_paused(store, False)
        reports = claude_settings.sync(store)
    _sync_report(reports, json_, {"paused": False})
    if not want_json(json_):
        print("Stop checks on")


def checks_sync(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the diff only.")] = False, json_: JsonOpt = False
):
    """Write the judged lessons' Stop checks into the settings again (after a hand edit)."""
    from ..checks import claude_settings

    with open_store() as store:
        reports = claude_settings.sync(store, dry_run=dry_run)
    _sync_report(reports, json_, {"dry_run": dry_run})


def checks_status(json_: JsonOpt = False):
    """Whether checks are paused, the lessons per check kind, and drift in the settings."""
    from ..checks import claude_settings, forms

    with open_store(reading=True) as store:
        rows = _rows(store)
        out = {
            "paused": forms.paused(store),
            "stop_checks": [r for r in rows if r["form"] == "stop-check"],
            "settings_files": sorted(claude_settings.wanted(store)),
            "drift": claude_settings.drift(store),
        }
    if want_json(json_):
        emit_json(out)
        return
    print(f"Stop checks: {'paused' if out['paused'] else 'on'}, {len(out['stop_checks'])} lesson(s)")
    for r in out["stop_checks"]:
        print(f"  {short(r['id'])}  {r['check']:<28} {r['scope']:<20} {clip(r['content'], 60)}")
    for f in out["settings_files"]:
        print(f"  judged in Claude Code through {f}")
    for d in out["drift"]:
        print(f"  drift: {d}")


def remove_for_uninstall(dry_run: bool, json_: bool, quiet: bool = False) -> list[dict]:
    """``uninstall``: the Stop checks memory-cli added to the settings go, exactly; the lessons
    and their forms stay in the store (a new ``install`` then ``checks sync`` brings them back)."""
    import os

    from ..checks import claude_settings
    from .common import db_path

    if not os.path.exists(db_path()):
        return []
    with open_store() as store:
        reports = claude_settings.remove_all(store, dry_run=dry_run)
    if quiet:  # uninstall shows the result once per file
        return [r for r in reports if r.get("changed")]
    for r in reports:
        if r.get("changed") and not want_json(json_):
            sys.stdout.write(r.get("diff") or "")
            print(f"{'would remove' if dry_run else 'removed'} memory-cli's Stop checks from {r['path']}")
    return []
