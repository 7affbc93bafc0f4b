"""Commands for upkeep: pin, unpin, pins, decay, backup, restore, maintenance run/status."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InvalidInput
from ..settings import value as setting
from .common import JsonOpt, clip, confirmed, db_path, emit_json, flush_warnings, open_store, settings, short, want_json

maintenance_app = typer.Typer(help="The daily maintenance run (decay, backup, audit retention).", no_args_is_help=True)

ProjectDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--project-dir",
        metavar="PATH",
        help="Project whose CLAUDE.md receives project-scoped pins (default: the "
        "project around the current directory, or $CLAUDE_PROJECT_DIR).",
    ),
]


def register(app: typer.Typer) -> None:
    app.command("pin")(pin)
    app.command("unpin")(unpin)
    app.command("pins")(pins_)
    app.command("decay")(decay)
    app.command("backup")(backup_)
    app.command("restore")(restore)
    app.add_typer(maintenance_app, name="maintenance")


def _project_root(project_dir: Path | None) -> str | None:
    from .. import scope

    if project_dir is not None:
        if not project_dir.is_dir():
            raise InvalidInput(f"--project-dir {project_dir} is not a directory")
        return os.path.abspath(project_dir)
    return scope.find_project_root(os.getcwd())


def _warn(text: str) -> None:
    sys.stderr.write(f"warning: {text}\n")


def _report_sync(reports: list[dict], *, quiet_nothing: bool = True) -> bool:
    """Print what happened to each CLAUDE.md; True when a hand-edited block was left alone."""
    conflict = False
    for r in reports:
        if r["action"] == "tidy":
            for n in r["notes"]:
                print(f"{short(n['id'])}: {n['note']}")
            continue
        if r["conflict"]:
            conflict = True
            _warn(f"{r['path']}: {r['reason']}")
        elif r["changed"]:
            print(f"{r['path']}: {r['action']} ({r['pins']} pinned)")
        elif not quiet_nothing:
            print(f"{r['path']}: {r['action']} ({r['reason']})")
    return conflict


def pin(
    entry_id: Annotated[str | None, typer.Argument(metavar="[ID]", help="Memory to pin (id or unique prefix).")] = None,
    critical: Annotated[bool, typer.Option("--critical", help="Pin every active critical rule.")] = False,
    project_dir: ProjectDirOpt = None,
    json_: JsonOpt = False,
):
    """Pin a memory into CLAUDE.md so it survives context compaction (at most pinning.max_pinned)."""
    from ..maintenance import pins

    if critical == (entry_id is not None):
        raise InvalidInput("give either an ID or --critical")
    root = _project_root(project_dir)
    with open_store() as store:
        s = settings()
        if critical:
            result = pins.pin_critical(store, project_root=root, settings=s)
        else:
            assert entry_id is not None  # checked above: an ID or --critical
            result = pins.pin(store, entry_id, project_root=root, settings=s)
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    if critical:
        for e in result["pinned"]:
            print(f"pinned {short(e['id'])}: {clip(e['content'], 70)}")
        for e in result["already_pinned"]:
            print(f"already pinned {short(e['id'])}: {clip(e['content'], 70)}")
        for e in result["skipped"]:
            _warn(f"skipped {short(e['id'])}: {e['reason']}")
        if not (result["pinned"] or result["already_pinned"] or result["skipped"]):
            print("no active critical rules to pin")
    else:
        e = result["entry"]
        verb = "already pinned" if result["already_pinned"] else "pinned"
        print(f"{verb} {short(e['id'])} into {result['path']}")
    for ev in result["evicted"]:
        print(
            f"unpinned {short(ev['id'])} (least recently used; the limit is "
            f"{pins.max_pinned(s)} pinned): {clip(ev['content'], 70)}"
        )
    if _report_sync(result["sync"]):
        _warn("the pin is stored, but that block was not rewritten; `memory-cli pins --sync` shows what to do")


def unpin(entry_id: Annotated[str, typer.Argument(metavar="ID")], json_: JsonOpt = False):
    """Unpin a memory and take it out of CLAUDE.md at once."""
    from ..maintenance import pins

    with open_store() as store:
        result = pins.unpin(store, entry_id, settings=settings())
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    e = result["entry"]
    print(f"unpinned {short(e['id'])}" if result["was_pinned"] else f"{short(e['id'])} was not pinned")
    if _report_sync(result["sync"]):
        _warn("that block was not rewritten; `memory-cli pins --sync` shows what to do")


def pins_(
    sync: Annotated[bool, typer.Option("--sync", help="Rewrite every pinned block to match the database.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --sync: only say what would change.")] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite", help="With --sync: replace blocks edited by hand (the edit is kept in the audit log)."
        ),
    ] = False,
    project_dir: ProjectDirOpt = None,
    json_: JsonOpt = False,
):
    """List pinned memories; with --sync, bring CLAUDE.md in line and report hand edits."""
    from ..maintenance import pins

    if (dry_run or overwrite) and not sync:
        raise InvalidInput("--dry-run and --overwrite go with --sync")
    with open_store() as store:
        s = settings()
        reports = None
        if sync:
            root = _project_root(project_dir)
            reports = pins.sync(store, project_root=root, overwrite_edits=overwrite, dry_run=dry_run, settings=s)
        listing = pins.list_pins(store, s)
        limit = pins.max_pinned(s)
    if want_json(json_):
        emit_json({"pins": listing, "max_pinned": limit, "sync": reports})
        return 1 if reports and any(r["conflict"] for r in reports) and not dry_run else 0
    if reports is None:
        if not listing:
            print("no pinned memories")
        for p in listing:
            where = p["path"] or "(not written: pin it again from its project)"
            lapsed = "" if p["status"] == "active" else f" [{p['status']}]"
            print(f"{short(p['id'])}  {p['type']:<10} {clip(p['content'], 60)}{lapsed}  -> {where}")
        print(f"{sum(1 for p in listing if p['status'] == 'active')} of {limit} pinned")
        return 0
    conflict = False
    for r in reports:
        if r["action"] == "tidy":
            for n in r["notes"]:
                print(f"{short(n['id'])}: {n['note']}")
            continue
        verb = "would" if dry_run else "did"
        if r["conflict"]:
            conflict = True
            print(f"{r['path']}: CONFLICT: {r['reason']}")
            if r.get("edited_block"):
                print("  the block as it is now:")
                for line in r["edited_block"].splitlines():
                    print(f"  | {line}")
                print(
                    "  `memory-cli pins --sync --overwrite` replaces it with the pinned entries "
                    "(your text is kept in the audit log); or undo the edit and sync again."
                )
        else:
            print(f"{r['path']}: {verb} {r['action']}: {r['reason']}")
    return 1 if conflict and not dry_run else 0


def decay(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; change nothing.")] = False,
    json_: JsonOpt = False,
):
    """Lower the confidence of memories unused for the grace period; archive the faded ones."""
    from ..maintenance.decay_store import run_decay

    with open_store() as store:
        result = run_decay(store, settings=settings(), dry_run=dry_run)
        flush_warnings(store)
    if want_json(json_):
        emit_json(result)
        return
    for c in result["changes"]:
        outcome = "archived" if c["archived"] else ("inactive" if c["inactive"] else "decayed")
        print(
            f"{short(c['id'])}  {c['confidence_before']:.2f} -> {c['confidence_after']:.2f}  "
            f"idle {c['idle_days']}d  {outcome:<8}  {clip(c['content'], 60)}"
        )
    p = result["policy"]
    head = "would change" if dry_run else "changed"
    print(
        f"{head} {len(result['changes'])} of {result['considered']} active memories "
        f"({result['decayed']} decayed, {result['archived']} archived); "
        f"exempt: {result['exempt_pinned']} pinned, {result['exempt_confirmed_rules']} confirmed rules; "
        f"grace {p['grace_days']:g} days, {p['rate_per_week']:g} per week after"
    )


def _backups_dir(s) -> Path:
    from ..maintenance.tasks import backups_dir

    return backups_dir(s, db_path())


def backup_(
    to: Annotated[
        Path | None, typer.Option("--to", metavar="PATH", help="Write the backup here (a new file, or a directory).")
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the backups in the backup folder.")] = False,
    json_: JsonOpt = False,
):
    """Consistent online backup of the database (safe while hooks write)."""
    from .. import audit
    from ..maintenance import backup

    s = settings()
    if list_:
        found = backup.list_backups(_backups_dir(s))
        if want_json(json_):
            emit_json(
                [
                    {"path": str(b.path), "taken_at": b.taken_at.isoformat(), "kind": b.kind or "daily", "size": b.size}
                    for b in found
                ]
            )
            return
        for b in found:
            print(f"{b.path}  {b.size // 1024} KiB" + (f"  ({b.kind})" if b.kind else ""))
        if not found:
            print(f"no backups in {_backups_dir(s)}")
        return
    src = db_path()
    if to is not None:
        to = to.expanduser()
        if to.is_dir():
            from ..maintenance.backup import _unique_name, _utc

            to = _unique_name(to, _utc(None), "")
        made = backup.backup_to(src, to)
    else:
        made = backup.make_backup(src, _backups_dir(s), keep=int(setting(s, "backup.max_backups")))
    with open_store() as store, store.transaction():
        audit.record(store, "backup", result=str(made))
    if want_json(json_):
        emit_json({"backup": str(made), "size": made.stat().st_size})
    else:
        print(f"backed up to {made}")


def restore(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A backup written by memory-cli.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    json_: JsonOpt = False,
):
    """Replace the database with a backup: checked first; the current one is saved before."""
    from .. import audit
    from ..maintenance import backup
    from ..store import migrations
    from ..store.migrations import APPLICATION_ID

    s = settings()
    live = db_path()
    if Path(live).exists():
        check = backup.check_restorable(
            path.expanduser(), max_schema_version=migrations.LATEST, application_id=APPLICATION_ID
        )
        question = f"Replace {live} with {path} ({check.entries} memories)? The current database is saved first."
        if not confirmed(question, yes, "restore over the current database"):
            print("kept the current database")
            return
    result = backup.restore(
        path.expanduser(),
        live,
        _backups_dir(s),
        max_schema_version=migrations.LATEST,
        application_id=APPLICATION_ID,
        keep=int(setting(s, "backup.max_backups")),
    )
    with open_store() as store, store.transaction():  # opening migrates an older backup to the current schema
        audit.record(
            store,
            "restore",
            result=str(result.restored_from),
            details={
                "previous_saved_at": str(result.safety_backup) if result.safety_backup else None,
                "entries": result.check.entries,
            },
        )
    if want_json(json_):
        emit_json(
            {
                "restored_from": str(result.restored_from),
                "database": str(live),
                "previous_saved_at": str(result.safety_backup) if result.safety_backup else None,
                "entries": result.check.entries,
            }
        )
        return
    print(f"restored {result.check.entries} memories from {result.restored_from} into {live}")
    if result.safety_backup:
        print(f"the previous database is saved at {result.safety_backup}")


@maintenance_app.command("run")
def maintenance_run(
    force: Annotated[bool, typer.Option("--force", help="Run even if it already ran today.")] = False,
    json_: JsonOpt = False,
):
    """Run today's maintenance now, in the foreground (what SessionEnd starts in the background)."""
    from ..maintenance import detached
    from ..maintenance.tasks import default_tasks

    s = settings()
    db = db_path()
    status = detached.run_maintenance(
        default_tasks(db, s), db, force=force, time_limit=float(setting(s, "maintenance.time_limit_s"))
    )
    if status == 75:
        raise InvalidInput("another maintenance run is in progress")
    if status == 1:
        from ..errors import MemoryCliError

        raise MemoryCliError(
            "maintenance finished with failed tasks (see the lines above); it will be "
            "tried again at the next session end"
        )
    return status


@maintenance_app.command("status")
def maintenance_status(json_: JsonOpt = False):
    """When maintenance last ran, whether it is running, and the end of its log."""
    from ..maintenance import detached
    from ..paths import run_dir
    from ..store.locks import open_lock_file, try_lock_fd

    db = db_path()
    rd = run_dir()
    key = detached.db_key(db)
    running = False
    if detached.lock_path(rd, key).exists():
        fd = open_lock_file(detached.lock_path(rd, key))
        try:
            running = not try_lock_fd(fd)
        finally:
            os.close(fd)
    log = detached.log_path(rd, key)
    tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-10:] if log.exists() else []
    data = {
        "database": str(db),
        "last_run": detached.last_run(rd, key),
        "running": running,
        "log": str(log),
        "log_tail": tail,
    }
    if want_json(json_):
        emit_json(data)
        return
    print(f"last run: {data['last_run'] or 'never'}{' (running now)' if running else ''}")
    for line in tail:
        print(f"  {line}")
