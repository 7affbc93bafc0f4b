"""Maintenance checks for ``memory-cli doctor``: is upkeep running, are there backups, are the
pinned blocks in CLAUDE.md intact."""

from __future__ import annotations

from datetime import datetime, timezone

from .. import audit


def _sessions_began_recently(store) -> bool:
    """No hook has run in this store yet, or the first ran less than a day ago: a fresh install,
    whose first daily run (and backup) is yet to come, not a fault."""
    first = audit.first_hook_at(store)
    if not first:
        return True
    try:
        when = datetime.fromisoformat(str(first).replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - when).days < 1


def doctor_checks(store, settings) -> list[dict]:
    from memory_cli.maintenance import backup, claudemd, detached, pins
    from memory_cli.maintenance.tasks import backups_dir
    from memory_cli.paths import run_dir
    from memory_cli.store import kvstate

    checks = []
    key = detached.db_key(store.path)
    last = detached.last_run(run_dir(), key)
    from memory_cli.settings import value as setting

    if not setting(settings, "maintenance.enabled"):
        checks.append(
            {
                "name": "maintenance",
                "status": "warn",
                "detail": "daily maintenance is disabled (maintenance.enabled = false)",
            }
        )
    elif last is None:
        fresh = _sessions_began_recently(store)
        checks.append(
            {
                "name": "maintenance",
                "status": "ok" if fresh else "warn",
                "detail": "daily maintenance has not run yet (it starts from SessionStart/SessionEnd"
                + ("; no session has started one yet)" if fresh else ", which have run for a day without it)"),
            }
        )
    else:
        try:
            age = datetime.now(timezone.utc) - datetime.fromisoformat(last)
            stale = age.days >= 3
        except ValueError:
            stale = False
        checks.append(
            {
                "name": "maintenance",
                "status": "warn" if stale else "ok",
                "detail": f"last daily run {last}" + (" (more than 2 days ago)" if stale else ""),
            }
        )

    if setting(settings, "backup.enabled"):
        found = backup.list_backups(backups_dir(settings, store.path), "")
        checks.append(
            {
                "name": "backups",
                "status": "ok" if found or (last is None and _sessions_began_recently(store)) else "warn",
                "detail": f"{len(found)} in {backups_dir(settings, store.path)}"
                if found
                else f"no backups yet in {backups_dir(settings, store.path)} (`memory-cli backup` makes one)",
            }
        )

    for target in sorted(set(kvstate.with_prefix(store, pins.FILE_KEY)) | {pins.GLOBAL_TARGET}):
        path = pins.target_path(target, settings)
        state = claudemd.read_block(path)
        if state.problem:
            checks.append({"name": "pinned block", "status": "fail", "detail": f"{path}: {state.problem}"})
        elif state.edited:
            checks.append(
                {
                    "name": "pinned block",
                    "status": "warn",
                    "detail": f"{path}: edited by hand; `memory-cli pins --sync` shows what to do",
                }
            )
        elif state.found:
            checks.append({"name": "pinned block", "status": "ok", "detail": f"{path}: in sync"})
    return checks
