"""Pinned entries: the few memories that must survive context compaction, kept in CLAUDE.md
(and in AGENTS.md and GEMINI.md for Codex CLI and Gemini CLI, see :mod:`.agent_pins`).

The database is the source of truth (``memory_entries.pinned``/``pinned_at``); the managed block
in CLAUDE.md (:mod:`memory_cli.maintenance.claudemd`) is a rendering of it, rewritten at once
whenever a pin changes and again before every compaction. Global pins go into the user's
``<claude dir>/CLAUDE.md``, project- and file-scoped pins into the project's ``CLAUDE.md``.

Where each pin is written is decided when it is pinned (the project directory is known then,
not later: a scope names a project, not a path) and kept in the ``kv`` table as
``pins.target.<entry id>`` = ``"global"`` or the CLAUDE.md path. ``pins.file.<target>``
remembers which files hold a block, so removing the last pin of a project removes its block
even when run from elsewhere.

At most ``pinning.max_pinned`` (20) entries are pinned; one more unpins the least recently
used (latest of pinned and last injected/queried), and says so.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_cli import audit, entries
from memory_cli import scope as scopes
from memory_cli.errors import InvalidInput, MemoryCliError
from memory_cli.maintenance import claudemd
from memory_cli.store import kvstate
from memory_cli.util import now_iso

GLOBAL_TARGET = claudemd.GLOBAL_TARGET
TARGET_KEY = "pins.target."
FILE_KEY = "pins.file."
LOCK_NAME = "pins.lock"
TYPE_ORDER = {"rule": 0, "correction": 1, "preference": 2, "decision": 3, "pattern": 4, "fact": 5}


# --------------------------------------------------------------------------- settings, targets


def _settings(settings):
    if settings is None:
        from memory_cli import settings as settings_mod

        settings = settings_mod.load()
    return settings


def max_pinned(settings) -> int:
    from memory_cli.settings import value as setting

    return int(setting(_settings(settings), "pinning.max_pinned"))


def _file_name(settings) -> str:
    from memory_cli.settings import value as setting

    return setting(_settings(settings), "pinning.sync_target") or "CLAUDE.md"


def target_path(target: str, settings=None) -> Path:
    if target == GLOBAL_TARGET:
        from memory_cli.paths import claude_dir

        return claude_dir() / _file_name(settings)
    return Path(target)


def project_target(project_root: str | os.PathLike, settings=None) -> str:
    root = Path(os.path.abspath(os.fspath(project_root)))
    name = _file_name(settings)
    path = claudemd.project_claudemd_path(root) if name == "CLAUDE.md" else root / name
    return str(path)


def _known_files(store) -> dict:
    return kvstate.with_prefix(store, FILE_KEY)


def _project_of_target(target: str) -> str | None:
    """The project a CLAUDE.md path belongs to (named like ``scope.project_name`` does)."""
    if target == GLOBAL_TARGET:
        return None
    parent = Path(target).parent
    return scopes.project_name(str(parent.parent if parent.name == ".claude" else parent))


def target_for(store, entry: dict, project_root: str | None, settings=None) -> str:
    """Which CLAUDE.md a pin of ``entry`` belongs in."""
    sc = entry["scope"]
    if sc == scopes.GLOBAL:
        return GLOBAL_TARGET
    kind, _, value = sc.partition(":")
    if kind == "project":
        if project_root and scopes.project_name(project_root) == value:
            return project_target(project_root, settings)
        for target, info in _known_files(store).items():
            if isinstance(info, dict) and info.get("project") == value:
                return target
        raise InvalidInput(
            f"{entry['id'][:8]} is scoped to {sc}: pin it from inside that project "
            "(or pass --project-dir) so memory-cli knows which CLAUDE.md to write"
        )
    if project_root:
        return project_target(project_root, settings)
    raise InvalidInput(
        f"{entry['id'][:8]} is scoped to {sc}: file-scoped pins go into a project's CLAUDE.md; "
        "pin it from inside the project (or pass --project-dir)"
    )


# --------------------------------------------------------------------------- pin / unpin


def _summary(row: dict, target: str | None = None) -> dict:
    return {
        "id": row["id"],
        "type": row.get("type"),
        "content": row.get("content"),
        "scope": row.get("scope"),
        "target": target,
    }


def _set_unpinned(store, entry_id: str, result: str, details: dict | None = None) -> None:
    entries.set_pinned(store, entry_id, None)
    kvstate.delete(store, TARGET_KEY + entry_id)
    audit.record(store, "unpin", entry_id=entry_id, result=result, details=details)


def _evict_over_limit(store, limit: int, keep: str) -> list[dict]:
    rows = store.rows(
        "SELECT id, type, content, scope, pinned_at, last_used FROM memory_entries"
        " WHERE pinned = 1 AND status = 'active'"
    )
    excess = len(rows) - limit
    if excess <= 0:
        return []

    def recency(r):
        return max(r["pinned_at"] or "", r["last_used"] or "")

    victims = sorted((r for r in rows if r["id"] != keep), key=lambda r: (recency(r), r["pinned_at"] or "", r["id"]))[
        :excess
    ]
    out = []
    for r in victims:
        target = kvstate.get(store, TARGET_KEY + r["id"])
        _set_unpinned(
            store, r["id"], "evicted", {"reason": f"pin limit of {limit} reached", "for": keep, "last_used": recency(r)}
        )
        out.append(dict(_summary(r, target), last_used=recency(r)))
    return out


def pin(store, ref: str, *, project_root: str | None = None, settings=None, sync_files: bool = True) -> dict:
    """Pin an entry and write its CLAUDE.md block at once; reports any LRU eviction."""
    settings = _settings(settings)
    entry = entries.get(store, ref)
    if entry["status"] != "active":
        raise InvalidInput(f"{entry['id'][:8]} is {entry['status']}; only active memories can be pinned")
    target = target_for(store, entry, project_root, settings)
    claudemd.check_target(target_path(target, settings))  # refused before anything is stored
    with store.transaction():
        already = bool(entry["pinned"])
        previous = kvstate.get(store, TARGET_KEY + entry["id"])
        entries.set_pinned(store, entry["id"], now_iso())
        kvstate.put(store, TARGET_KEY + entry["id"], target)
        audit.record(
            store,
            "pin",
            entry_id=entry["id"],
            result="repinned" if already else "pinned",
            details={"target": str(target_path(target, settings))},
        )
        evicted = _evict_over_limit(store, max_pinned(settings), keep=entry["id"])
    touched = {target} | {e["target"] for e in evicted if e["target"]}
    if previous and previous != target:
        touched.add(previous)
    report = sync(store, targets=touched, settings=settings) if sync_files else []
    return {
        "entry": entries.get(store, entry["id"]),
        "already_pinned": already,
        "target": target,
        "path": str(target_path(target, settings)),
        "evicted": evicted,
        "sync": report,
    }


def unpin(store, ref: str, *, settings=None, sync_files: bool = True) -> dict:
    settings = _settings(settings)
    entry = entries.get(store, ref)
    target = kvstate.get(store, TARGET_KEY + entry["id"])
    was_pinned = bool(entry["pinned"])
    if was_pinned:
        with store.transaction():
            _set_unpinned(store, entry["id"], "unpinned", {"target": target})
    report = sync(store, targets={target}, settings=settings) if (sync_files and target) else []
    return {
        "entry": entries.get(store, entry["id"]),
        "was_pinned": was_pinned,
        "target": target,
        "path": str(target_path(target, settings)) if target else None,
        "sync": report,
    }


def critical_rules(store) -> list[dict]:
    return store.rows(
        "SELECT e.id, e.type, e.content, e.scope, e.pinned FROM memory_entries e"
        " JOIN enforcement_rules r ON r.id = e.id"
        " WHERE r.severity = 'critical' AND r.active = 1 AND e.status = 'active'"
        " ORDER BY e.created_at"
    )


def pin_critical(store, *, project_root: str | None = None, settings=None) -> dict:
    """Pin every active critical rule (``memory-cli pin --critical``)."""
    settings = _settings(settings)
    pinned, already, skipped, evicted, touched = [], [], [], [], set()
    for rule in critical_rules(store):
        try:
            r = pin(store, rule["id"], project_root=project_root, settings=settings, sync_files=False)
        except InvalidInput as err:
            skipped.append(dict(_summary(rule), reason=str(err)))
            continue
        (already if r["already_pinned"] else pinned).append(_summary(rule, r["target"]))
        evicted += r["evicted"]
        touched.add(r["target"])
        touched.update(e["target"] for e in r["evicted"] if e["target"])
    report = sync(store, targets=touched, settings=settings) if touched else []
    return {"pinned": pinned, "already_pinned": already, "skipped": skipped, "evicted": evicted, "sync": report}


def pin_critical_before_compaction(store, *, project: str | None, project_root: str | None, settings=None) -> set:
    """Pin the active critical rules that bind in this session and are not pinned yet: global
    ones, and this project's. A rule escalated to critical by its violations is one of them.

    Compaction drops what the model was told; a pinned rule survives in CLAUDE.md. Rules of
    other projects and file-scoped rules are left to ``pin --critical`` from their project.
    Already pinned rules are not touched (re-pinning would refresh their LRU time on every
    compaction). Returns the targets whose block must be rewritten; the caller syncs them.
    """
    settings = _settings(settings)
    here = {scopes.GLOBAL} | ({f"project:{project}"} if project else set())
    touched: set = set()
    for rule in critical_rules(store):
        if rule["pinned"] or rule["scope"] not in here:
            continue
        try:
            r = pin(store, rule["id"], project_root=project_root, settings=settings, sync_files=False)
        except MemoryCliError:  # no place for it here (an unsafe CLAUDE.md): the sync says so
            continue
        touched.add(r["target"])
        touched.update(e["target"] for e in r["evicted"] if e["target"])
    return touched


def list_pins(store, settings=None) -> list[dict]:
    settings = _settings(settings)
    targets = kvstate.with_prefix(store, TARGET_KEY)
    rows = store.rows(
        "SELECT id, type, content, scope, status, pinned_at, last_used FROM memory_entries"
        " WHERE pinned = 1 ORDER BY pinned_at"
    )
    out = []
    for r in rows:
        target = targets.get(r["id"])
        out.append(
            dict(
                r,
                target=target,
                path=str(target_path(target, settings)) if target else None,
                last_used=max(r["pinned_at"] or "", r["last_used"] or ""),
            )
        )
    return out


# --------------------------------------------------------------------------- rendering, syncing


def render_body(store, target: str) -> str:
    ids = [eid for eid, t in kvstate.with_prefix(store, TARGET_KEY).items() if t == target]
    if not ids:
        return ""
    marks = ",".join("?" * len(ids))
    rows = store.rows(
        "SELECT e.id, e.type, e.content, e.created_at, r.alternative FROM memory_entries e"
        " LEFT JOIN enforcement_rules r ON r.id = e.id"
        f" WHERE e.pinned = 1 AND e.status = 'active' AND e.id IN ({marks})",
        ids,
    )
    rows.sort(key=lambda r: (TYPE_ORDER.get(r["type"], 9), r["created_at"], r["id"]))
    lines = []
    for r in rows:
        text = r["content"]
        alt = (r.get("alternative") or "").strip()
        if alt and alt.lower() not in text.lower():
            text = f"{text.rstrip()} (instead: {alt})"
        lines.append((r["id"], r["type"], text))
    return claudemd.render_pins_body(lines)


def _tidy(store, settings) -> list[dict]:
    """Follow pins through supersession, drop pins of archived entries, forget stale targets."""
    notes = []
    targets = kvstate.with_prefix(store, TARGET_KEY)
    rows = store.rows(
        "SELECT id, status, superseded_by, scope, type, content, pinned_at FROM memory_entries WHERE pinned = 1"
    )
    pinned_ids = {r["id"] for r in rows}
    if all(eid in pinned_ids for eid in targets) and all(r["status"] == "active" and r["id"] in targets for r in rows):
        return notes  # the usual case: no write lock taken
    with store.transaction():
        for eid in targets:
            if eid not in pinned_ids:
                kvstate.delete(store, TARGET_KEY + eid)
        for r in rows:
            if r["status"] == "superseded":
                new_id, hops = r["superseded_by"], 0
                while new_id and hops < 50:
                    nxt = store.row("SELECT id, status, superseded_by FROM memory_entries WHERE id = ?", (new_id,))
                    if nxt is None or nxt["status"] != "superseded":
                        break
                    new_id, hops = nxt["superseded_by"], hops + 1
                successor = (
                    store.row("SELECT id, status, pinned FROM memory_entries WHERE id = ?", (new_id,))
                    if new_id
                    else None
                )
                target = targets.get(r["id"])
                _set_unpinned(store, r["id"], "superseded", {"successor": new_id})
                if successor and successor["status"] == "active":
                    entries.set_pinned(store, successor["id"], r["pinned_at"] or now_iso())
                    if target:
                        kvstate.put(store, TARGET_KEY + successor["id"], target)
                    audit.record(
                        store, "pin", entry_id=successor["id"], result="carried over", details={"from": r["id"]}
                    )
                    notes.append({"id": r["id"], "note": f"pin moved to its successor {successor['id'][:8]}"})
                else:
                    notes.append({"id": r["id"], "note": "superseded; pin dropped"})
            elif r["status"] == "archived":
                _set_unpinned(store, r["id"], "archived")
                notes.append({"id": r["id"], "note": "archived; pin dropped"})
            elif r["id"] not in targets:
                try:
                    target = target_for(store, r, None, settings)
                except InvalidInput:
                    notes.append({"id": r["id"], "note": "not written anywhere yet: pin it again from its project"})
                    continue
                kvstate.put(store, TARGET_KEY + r["id"], target)
    return notes


def _lock(settings):
    from memory_cli.paths import run_dir
    from memory_cli.store.locks import FileLock

    rd = run_dir()
    rd.mkdir(parents=True, exist_ok=True)
    return FileLock(rd / LOCK_NAME, timeout=5.0)


def sync(
    store,
    *,
    targets=None,
    project_root: str | None = None,
    overwrite_edits: bool = False,
    dry_run: bool = False,
    settings=None,
) -> list[dict]:
    """Bring CLAUDE.md blocks in line with the pinned entries; one report per file.

    ``targets`` None means every file memory-cli manages plus the global one (and the project's
    when ``project_root`` is given). A block the person edited is reported as a conflict and
    left alone unless ``overwrite_edits``; the overwritten text is kept in the audit log.
    """
    settings = _settings(settings)
    with _lock(settings):
        notes = [] if dry_run else _tidy(store, settings)
        if targets is None:
            wanted = {GLOBAL_TARGET} | set(_known_files(store))
            wanted |= {t for t in kvstate.with_prefix(store, TARGET_KEY).values() if t}
        else:
            wanted = {t for t in targets if t}
        if project_root:
            wanted.add(project_target(project_root, settings))
        reports = []
        for target in sorted(wanted):
            reports.append(_sync_one(store, target, settings, overwrite_edits, dry_run))
    if notes:
        reports.append(
            {
                "target": None,
                "path": None,
                "action": "tidy",
                "notes": notes,
                "conflict": False,
                "changed": False,
                "reason": "pins adjusted",
            }
        )
    return reports


def _sync_one(store, target: str, settings, overwrite_edits: bool, dry_run: bool) -> dict:
    from memory_cli.privacy.redact import redact

    body = render_body(store, target)
    path = target_path(target, settings)
    try:
        plan = claudemd.plan_sync(path, body, overwrite_edits=overwrite_edits)
    except claudemd.UnsafeTarget as err:
        if not dry_run:
            with store.transaction():
                audit.record(
                    store, "pin", context="sync", result="refused", details={"path": str(path), "reason": str(err)}
                )
        return {
            "target": target,
            "path": str(path),
            "action": claudemd.CONFLICT,
            "reason": str(err),
            "conflict": True,
            "changed": False,
            "pins": body.count("\n- ["),
            "edited_block": None,
        }
    changed = False
    if not dry_run and plan.changes_file:
        try:
            claudemd.apply_sync(plan)
        except claudemd.ChangedSincePlan:  # the person saved meanwhile: plan once more
            plan = claudemd.plan_sync(path, body, overwrite_edits=overwrite_edits)
            if plan.changes_file:
                claudemd.apply_sync(plan)
        changed = plan.changes_file
    report = {
        "target": target,
        "path": str(plan.path),
        "action": plan.action,
        "reason": plan.reason,
        "conflict": plan.conflict,
        "changed": changed,
        "pins": body.count("\n- ["),
        "edited_block": plan.edited_body,
    }
    from memory_cli.maintenance import agent_pins

    report["agents"] = agent_pins.sync_target(store, target, body, dry_run=dry_run)
    if dry_run:
        return report
    if changed:
        with store.transaction():
            if plan.action in (claudemd.REMOVE, claudemd.DELETE_FILE):
                kvstate.delete(store, FILE_KEY + target)
            else:
                kvstate.put(
                    store,
                    FILE_KEY + target,
                    {"project": _project_of_target(target), "synced_at": now_iso(), "action": plan.action},
                )
            details = {"path": str(plan.path), "reason": plan.reason}
            if plan.edited_body:
                details["overwritten_block"] = redact(plan.edited_body)[0]
            audit.record(store, "pin", context="sync", result=plan.action, details=details)
    elif plan.conflict:
        with store.transaction():
            audit.record(
                store, "pin", context="sync", result="conflict", details={"path": str(plan.path), "reason": plan.reason}
            )
    return report
