"""Share entries through the repository file, and load the file into the local store.

Loading is by content hash: the file is read and hashed (cheap), and parsed and applied only
when the hash differs from the one loaded last. It runs at SessionStart only: never on a tool
call, and not in the commands that read memories (they only say when the file is not loaded).
A load is all or nothing: a malformed file changes nothing and is reported in one line.

Entries keep the id they have in the file on every machine. Loaded entries get source ``repo``,
origin ``repo:<root>`` and the scope ``repo:<root>``: they apply only in the checkout the file
sits in. Loaded rules are enforced as confirmed rules (the file was reviewed and committed).
A file changes only what it created (:mod:`memory_cli.provenance`): an entry that leaves the
file is archived here, not deleted; an edited one is updated in place, with the change in the
audit log; an id that belongs to anything else is refused and reported.
"""

from __future__ import annotations

import json
import os

from .. import audit, entries, provenance
from .. import scope as scopes
from ..errors import InvalidInput
from ..rules import api as rules_api
from ..store import kvstate
from . import KV_PREFIX, path_for, repo_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store


def _root(root: str | None) -> str:
    found = scopes.find_project_root(root or os.getcwd())
    if not found:
        raise InvalidInput(
            "not in a project: sharing writes .claude/memory-cli.toml at the repository's root "
            "(run it inside a git repository, or set CLAUDE_PROJECT_DIR)"
        )
    return found


def _file_entry(store, entry_id: str) -> dict:
    e = entries.get(store, entry_id)
    out = {
        "id": e["id"],
        "type": e["type"],
        "content": e["content"],
        "category": e["category"],
        "subject": e["subject"],
        "tags": e["tags"],
    }
    out["rule"] = rules_api.portable_rule(store, e["id"])
    return out


def _current(path: str) -> list[dict]:
    data = repo_file.read_bytes(path)
    return [] if data is None else repo_file.parse(data, path)


def _write(path: str, items: list[dict]) -> None:
    """The repository's file, never through a link leading out of the repository."""
    from ..files import safe_write  # only sharing writes; loading at SessionStart never does

    root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    safe_write.ensure_dir(os.path.dirname(path), roots=[root])
    safe_write.write_file(path, repo_file.render(items), roots=[root], new_mode=safe_write.umask_mode())


def share_entry(store: Store, entry_id: str, root: str | None = None) -> dict:
    """Write an entry into the project's file (replacing its earlier version there).
    Returns {"path", "id", "replaced", "redacted"}. Secrets were redacted when the entry was
    stored, so the file never holds one; ``redacted`` says when the text shows a redaction."""
    path = path_for(_root(root))
    item = _file_entry(store, entry_id)
    items = _current(path)
    replaced = any(i["id"] == item["id"] for i in items)
    items = [i for i in items if i["id"] != item["id"]] + [item]
    _write(path, items)
    with store.transaction():
        audit.record(store, "share", entry_id=item["id"], context=path)
    return {"path": path, "id": item["id"], "replaced": replaced, "redacted": "[REDACTED" in json.dumps(item)}


def unshare_entry(store: Store, entry_id: str, root: str | None = None) -> dict:
    """Take an entry out of the project's file; the local entry stays as it is."""
    path = path_for(_root(root))
    items = _current(path)
    eid = entry_id
    matches = [i for i in items if i["id"] == entry_id or i["id"].startswith(entry_id)]
    if not matches:
        from ..errors import NotFound

        raise NotFound(f"{entry_id} is not in {os.path.relpath(path)}")
    if len(matches) > 1:
        raise InvalidInput(f"{entry_id} matches {len(matches)} entries in the file; give more of the id")
    eid = matches[0]["id"]
    _write(path, [i for i in items if i["id"] != eid])
    with store.transaction():
        audit.record(store, "unshare", entry_id=eid, context=path)
    return {"path": path, "id": eid}


# Entries applied per transaction when a load has a time budget: the part done is kept if the
# budget (or the hook's deadline) ends the load before the file is through.
LOAD_CHUNK = 100


def load(store: Store, root: str | None, *, budget_s: float | None = None) -> dict | None:
    """Bring the project's file into the store if it changed since the last load.

    The file speaks only for itself: its entries get origin ``repo:<root>`` and the scope of
    that root (they apply in this checkout only), and a load changes or archives only entries
    this root's file created. An id that belongs to anything else (the person's own rule,
    another repository's entry, the team's) is refused and reported, the entry untouched;
    the person's own entry shared into the file unchanged is simply theirs.

    ``budget_s``: stop after about this many seconds (SessionStart's share of its deadline),
    rules first, each part in its own transaction; the file counts as loaded only once it is
    through: the next load of the same file goes on where this one stopped, and nothing is
    archived from a file read in part.

    Returns None when there is nothing to do (no project, no file ever, same hash), else
    {"path", "added", "updated", "unchanged", "archived", "refused": [{"id", "owner"}],
    "total", "left"} ("left": entries not reached within the budget). Raises InvalidInput (one
    line) for a malformed, oversized or non-regular file, with nothing changed."""
    if not root:
        return None
    import time

    started = time.monotonic()
    path = path_for(root)
    key = KV_PREFIX + root
    data = repo_file.read_bytes(path)
    state = kvstate.get(store, key)
    if data is None and not state:
        return None
    h = repo_file.digest(data) if data is not None else None
    if state and state.get("hash") == h:
        return None
    items = repo_file.parse(data, path) if data is not None else []
    items = sorted(items, key=lambda i: i["rule"] is None)  # the gate's part first
    origin = provenance.repo(root)
    scope = scopes.parse(origin)
    counts = {"path": path, "added": 0, "updated": 0, "unchanged": 0, "archived": 0, "refused": []}
    counts.update(total=len(items), left=0)
    previous_ids = (state or {}).get("ids", [])
    archived_before = (state or {}).get("archived", [])
    step = LOAD_CHUNK if budget_s is not None else max(1, len(items))
    part = (state or {}).get("partial") or {}
    begin = int(part.get("next", 0)) if part.get("hash") == h else 0  # where the last load stopped
    owned = list(part.get("owned", [])) if begin else []
    for start in range(begin, len(items), step):
        if budget_s is not None and start > begin and time.monotonic() - started > budget_s:
            counts["left"] = len(items) - start
            break
        with store.transaction():
            for item in items[start : start + step]:
                outcome = _apply(store, item, scope, path, origin, archived_before)
                if outcome == "refused":
                    owner = store.value("SELECT origin FROM memory_entries WHERE id = ?", (item["id"],))
                    counts["refused"].append({"id": item["id"], "owner": provenance.describe(owner)})
                    continue
                if outcome != "theirs":
                    owned.append(item["id"])
                    counts[outcome] += 1
    with store.transaction():
        if counts["left"]:
            # Not through: the last complete load's hash and ids stay (the file is not loaded yet);
            # the part done is kept beside them, for the next load to go on from.
            kvstate.put(
                store,
                key,
                {
                    "hash": (state or {}).get("hash"),
                    "ids": previous_ids,
                    "archived": sorted(set(archived_before)),
                    "partial": {"hash": h, "next": len(items) - counts["left"], "owned": owned},
                },
            )
        else:
            archived = [i for i in archived_before if i not in owned]
            for gone in sorted(set(previous_ids) - set(owned)):
                row = store.row("SELECT status, origin FROM memory_entries WHERE id = ?", (gone,))
                if row and row["origin"] == origin and row["status"] == "active":
                    entries.archive(store, gone, reason=f"removed from {path}", by=origin)
                    archived.append(gone)
                    counts["archived"] += 1
            kvstate.put(store, key, {"hash": h, "ids": sorted(owned), "archived": sorted(set(archived))})
        partial = f" ({counts['left']} of {counts['total']} left for the next load)" if counts["left"] else ""
        audit.record(
            store,
            "repo_load",
            context=path,
            result=f"{counts['added']} added, {counts['updated']} updated, {counts['archived']} archived, "
            f"{len(counts['refused'])} refused{partial}",
            details={"refused": counts["refused"]} if counts["refused"] else None,
        )
    return counts


def summary(result: dict) -> str | None:
    """One line for the person on what a load did, or None when it changed nothing they see."""
    parts = [
        f"{result[k]} {word}"
        for k, word in (("added", "added"), ("updated", "changed"), ("archived", "removed"))
        if result.get(k)
    ]
    refused = result.get("refused") or []
    if refused:
        shown = ", ".join(f"{r['id'][:8]} (belongs to {r['owner']})" for r in refused[:3])
        more = f" and {len(refused) - 3} more" if len(refused) > 3 else ""
        parts.append(f"refused {len(refused)}: {shown}{more}, left as they were")
    if result.get("left"):
        parts.append(f"{result['left']} of {result['total']} entries left for the next session start (rules first)")
    if not parts:
        return None
    return "memory-cli: .claude/memory-cli.toml: " + "; ".join(parts)


def _same_as_local(store, item: dict) -> bool:
    """Is the file's entry exactly what this store holds under that id (the person's own entry
    shared into the file, unchanged)?"""
    try:
        mine = _file_entry(store, item["id"])
    except Exception:
        return False
    return repo_file.render([mine]) == repo_file.render([item])


def _apply(store, item: dict, scope: str, path: str, origin: str, archived_by_file) -> str:
    local = store.row("SELECT * FROM memory_entries WHERE id = ?", (item["id"],))
    rule = item["rule"]
    if local is None:
        if rule is not None:
            wanted = rules_api.RuleSpec(
                item["content"],
                scope=scope,
                provenance="imported",
                confirmed=True,
                source="repo",
                source_ref=path,
                tags=item["tags"],
                entry_id=item["id"],
                origin=origin,
                **rules_api.portable_kwargs(rule),
            )
            rules_api.new_rule(store, wanted)
        else:
            entries.add(
                store,
                item["content"],
                item["type"],
                scope=scope,
                source="repo",
                tags=item["tags"],
                category=item.get("category"),
                subject=item.get("subject"),
                entry_id=item["id"],
                audit_context=f"repo: {path}",
                origin=origin,
            )
        return "added"
    if local["origin"] != origin:
        return "theirs" if _same_as_local(store, item) else "refused"
    # Back from the file after it left it: active again. Archived by the person: stays so.
    revive = local["status"] == "archived" and local["id"] in archived_by_file
    changed = entries.update(
        store,
        item["id"],
        audit_action="repo_update",
        by=origin,
        content=item["content"],
        scope=scope,
        tags=item["tags"],
        category=item.get("category"),
        subject=item.get("subject"),
        status="active" if revive else None,
    )
    updated = changed["updated_at"] != local["updated_at"]
    if rule is not None and store.value("SELECT 1 FROM enforcement_rules WHERE id = ?", (item["id"],)):
        before = store.value("SELECT updated_at FROM enforcement_rules WHERE id = ?", (item["id"],))
        rules_api.edit_rule(
            store,
            item["id"],
            by=origin,
            pattern=rule["pattern"],
            pattern_type=rule["pattern_type"],
            action=rule["action"],
            severity=rule["severity"],
            alternative=rule.get("alternative") or "",
            message=rule.get("message") or "",
            tools=rule["tools"],
            fields=rule["fields"],
            conditions=rule["conditions"],
            case_sensitive=bool(rule.get("case_sensitive")),
            hook_events=rule["hook_events"],
            confirmed=True,
        )
        updated = (
            updated or store.value("SELECT updated_at FROM enforcement_rules WHERE id = ?", (item["id"],)) != before
        )
    return "updated" if updated else "unchanged"


def loaded_rules(store: Store) -> list[dict]:
    """Rules that came from a repository file, for `doctor`."""
    return store.rows(
        "SELECT e.id, e.content, e.scope, e.status, r.source_ref FROM memory_entries e"
        " JOIN enforcement_rules r ON r.id = e.id WHERE e.origin LIKE 'repo:%' ORDER BY e.created_at"
    )


def file_states(store: Store) -> dict:
    return kvstate.with_prefix(store, KV_PREFIX)


WHERE = ("auto", "repo", "team")


def targets(store: Store, *, root: str | None = None, where: str = "auto") -> tuple[bool, bool]:
    """(repository file, team store) that ``share`` would use; raises when there is neither,
    so a command can check before it stores anything."""
    from ..team import api as team

    if where not in WHERE:
        raise InvalidInput(f"--to must be one of {', '.join(WHERE)}")
    project_root = scopes.find_project_root(root or os.getcwd())
    if where == "repo" and project_root is None:
        _root(root)  # raises the one-line "not in a project"
    if where == "team" and not team.joined(store):
        raise InvalidInput("this store has not joined a team store: memory-cli team join URL")
    use_repo = where == "repo" or (where == "auto" and project_root is not None)
    use_team = where == "team" or (where == "auto" and team.joined(store) is not None)
    if not use_repo and not use_team:
        raise InvalidInput(
            "nothing to share with: run inside a git repository (for .claude/memory-cli.toml) "
            "or join a team store (memory-cli team join URL)"
        )
    return use_repo, use_team


def share(store: Store, entry_id: str, *, root: str | None = None, where: str = "auto") -> dict:
    """Share through the repository file, the team store, or (``auto``) each one available:
    the file when inside a project, the team store when this store joined one."""
    from ..team import api as team

    eid = entries.resolve_id(store, entry_id)
    use_repo, use_team = targets(store, root=root, where=where)
    out = {"id": eid, "file": None, "team": False}
    if use_repo:
        out["file"] = share_entry(store, eid, root)
        out["redacted"] = out["file"]["redacted"]
    if use_team:
        out["team"] = team.mark_shared(store, eid)
    return out


def unshare(store: Store, entry_id: str, *, root: str | None = None) -> dict:
    """Take an entry out of the repository file and/or the team store, wherever it is shared."""
    from ..errors import NotFound
    from ..team import api as team

    out = {"id": entry_id, "file": None, "team": False}
    project_root = scopes.find_project_root(root or os.getcwd())
    if project_root:
        try:
            out["file"] = unshare_entry(store, entry_id, project_root)
            out["id"] = out["file"]["id"]
        except NotFound:
            pass
    try:
        eid = entries.resolve_id(store, out["id"])
        out["team"] = team.unmark_shared(store, eid)
        out["id"] = eid
    except NotFound:
        pass
    if not out["file"] and not out["team"]:
        raise NotFound(f"{entry_id} is shared neither in .claude/memory-cli.toml nor with a team store")
    return out
