"""Claude Code's Stop ``prompt`` hooks for the judged lessons, kept in step with the store.

The global lessons' check goes into the person's ``~/.claude/settings.json``; a project
lesson's into that project's ``.claude/settings.json``, so it is judged there and nowhere else.
Only memory-cli's own entries are touched (a Stop group whose prompt begins with
:data:`.judge.MARKER`); the change is shown as a diff; the file is backed up before memory-cli
first writes it and whenever someone else changed it since (a rewrite of memory-cli's own
entries alone leaves no backup each time). What was written is recorded in the store (``kv``
``checks.claude``: per file, the hash of memory-cli's last write and the bytes before its first),
so removing the last lesson gives the file back byte for byte when nobody else changed it, and
``doctor`` can tell a hand edit from the store moving on (:func:`drift`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import InvalidInput
from ..store import kvstate
from . import forms, judge

STATE_KEY = "checks.claude"
TIMEOUT_S = 30


def user_file() -> Path:
    from .. import paths

    return paths.claude_dir() / "settings.json"


def project_file(root: str) -> Path:
    return Path(root) / ".claude" / "settings.json"


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _read(p: Path) -> str | None:
    try:
        return p.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None


def is_ours(handler) -> bool:
    return (
        isinstance(handler, dict)
        and handler.get("type") == "prompt"
        and str(handler.get("prompt", "")).startswith(judge.MARKER)
    )


def hook_entries(lessons: list[tuple[str, str]]) -> list[dict]:
    """The Stop groups that judge ``lessons`` (id, text): one prompt hook per chunk."""
    return [
        {"hooks": [{"type": "prompt", "prompt": judge.prompt(chunk), "timeout": TIMEOUT_S}]}
        for chunk in judge.chunks(lessons)
    ]


def _without_ours(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(hooks.get("Stop"), list):
        return data
    kept = []
    for group in hooks["Stop"]:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(is_ours(h) for h in group["hooks"]):
            rest = [h for h in group["hooks"] if not is_ours(h)]
            if rest:
                kept.append(dict(group, hooks=rest))
            continue
        kept.append(group)
    if kept:
        hooks["Stop"] = kept
    else:
        del hooks["Stop"]
        if not hooks:
            del data["hooks"]
    return data


def wanted(store) -> dict[str, list[tuple[str, str]]]:
    """Per settings file, the judged lessons it must hold (none while checks are paused)."""
    out: dict[str, list[tuple[str, str]]] = {}
    if forms.paused(store):
        return out
    for r in forms.in_force(store, form="stop-check"):
        if r["check_kind"] != "judge":
            continue
        root = forms.root_of(r)
        if r["scope"] == "global":
            path = user_file()
        elif root:
            path = project_file(root)
        else:
            continue  # a project lesson with no checkout known here: advice (doctor says so)
        out.setdefault(str(path), []).append((r["id"], r["content"]))
    return out


def plan(store) -> list[dict]:
    """Before/after text of every settings file memory-cli's checks touch; nothing written."""
    from .. import install as lib

    state = kvstate.get(store, STATE_KEY) or {}
    want = wanted(store)
    out = []
    for name in sorted(set(want) | set(state)):
        p = Path(name)
        text = _read(p)
        mine = state.get(name) or {}
        untouched = bool(mine) and _sha(text) == mine.get("written_sha")
        lessons = want.get(name) or []
        if lessons:
            data = lib.load_settings(p) if text is not None else {}
            data = _without_ours(data)
            hooks = data.setdefault("hooks", {})
            if not isinstance(hooks, dict):
                raise InvalidInput(f"{p}: 'hooks' must be an object; nothing was changed")
            hooks.setdefault("Stop", []).extend(hook_entries(lessons))
            after: str | None = lib.render(data)
        elif not mine:
            continue
        elif untouched and mine.get("original_valid") and _has_original(mine):
            after = _original(mine)  # None: memory-cli created the file; it goes again
        elif text is None:
            after = None
        else:
            after = lib.render(_without_ours(lib.load_settings(p)))
        if mine and untouched:
            original = {k: mine.get(k) for k in ("original_sha", "original_backup", "original_valid")}
        elif mine:  # changed by someone else since memory-cli wrote it
            original = {"original_sha": None, "original_backup": None, "original_valid": False}
        else:  # the bytes before memory-cli's first write: kept in the backup that write makes
            original = {"original_sha": _sha(text), "original_backup": None, "original_valid": True}
        record = {"written_sha": _sha(after), **original, "lessons": len(lessons)}
        out.append(
            {
                "path": p,
                "before": text,
                "after": after,
                "backup": text is not None and not untouched,
                "record": record if lessons else None,
            }
        )
    return out


def _original(mine: dict) -> str | None:
    """The file's bytes before memory-cli first wrote it: None when memory-cli created it; the
    backup of that write when it is still there unchanged; else the file without memory-cli's
    entries (rendered anew)."""
    if mine.get("original_sha") is None:
        return None
    backup = mine.get("original_backup")
    text = _read(Path(backup)) if backup else None
    if text is not None and _sha(text) == mine["original_sha"]:
        return text
    raise _NoOriginal


class _NoOriginal(Exception):
    pass


def _has_original(mine: dict) -> bool:
    try:
        _original(mine)
    except _NoOriginal:
        return False
    return True


def sync(store, *, dry_run: bool = False) -> list[dict]:
    """Write what :func:`plan` says; returns per file the action and a diff."""
    from .. import install as lib
    from ..files import safe_write
    from ..native import files

    state = dict(kvstate.get(store, STATE_KEY) or {})
    reports = []
    for step in plan(store):
        p, before, after = step["path"], step["before"], step["after"]
        rep = {
            "path": str(p),
            "changed": before != after,
            "diff": files.diff(p, before or "", after or ""),
            "action": "nothing" if before == after else ("remove" if after is None else "write"),
            "backup": None,
        }
        if not dry_run:
            created = (state.get(str(p)) or {}).get("created_dirs") or []
            if before is None and after is not None:
                created = files._missing_dirs(p)
            if step["record"] is not None:
                step["record"]["created_dirs"] = created
            if before != after:
                if after is None:
                    p.unlink()
                    files.remove_dirs(created)
                elif step["backup"]:
                    saved = lib.apply_text(p, after)
                    rep["backup"] = str(saved) if saved else None
                    if step["record"] and step["record"]["original_sha"] and saved:
                        step["record"]["original_backup"] = str(saved)
                else:
                    safe_write.ensure_dir(p.parent, roots=lib.write_roots(p))
                    safe_write.write_file(p, after, roots=lib.write_roots(p))
            if step["record"]:
                state[str(p)] = step["record"]
            else:
                state.pop(str(p), None)
        reports.append(rep)
    if not dry_run:
        with store.transaction():
            if state:
                kvstate.put(store, STATE_KEY, state)
            else:
                kvstate.delete(store, STATE_KEY)
    return reports


def remove_all(store, *, dry_run: bool = False) -> list[dict]:
    """``uninstall``: every Stop check memory-cli added, taken back exactly (lessons stay)."""
    real = forms.paused(store)
    if dry_run:
        return [dict(r, action="remove") for r in _plan_paused(store)]
    if not real:
        kvstate.put(store, forms.PAUSED_KEY, {"since": "uninstall", "uninstalled": True})
    try:
        return sync(store)
    finally:
        if not real:
            kvstate.delete(store, forms.PAUSED_KEY)


def _plan_paused(store) -> list[dict]:
    with store.transaction():
        kvstate.put(store, forms.PAUSED_KEY, {"since": "dry-run"})
        try:
            return [r for r in sync(store, dry_run=True)]
        finally:
            kvstate.delete(store, forms.PAUSED_KEY)


def drift(store) -> list[str]:
    """Why a settings file no longer holds what memory-cli last wrote, one line each."""
    state = kvstate.get(store, STATE_KEY) or {}
    want = wanted(store)
    out = []
    for name, mine in state.items():
        p = Path(name)
        text = _read(p)
        if text is None:
            out.append(
                f"{p}: removed since memory-cli wrote its Stop checks; `memory-cli checks sync` writes them again"
            )
            continue
        if _sha(text) == mine.get("written_sha"):
            if len(want.get(name) or []) != mine.get("lessons"):
                out.append(f"{p}: the approved lessons changed since the last write; `memory-cli checks sync`")
            continue
        try:
            data = json.loads(text)
        except ValueError:
            out.append(f"{p}: not valid JSON any more")
            continue
        groups = (data.get("hooks") or {}).get("Stop") if isinstance(data.get("hooks"), dict) else None
        ours = [h for g in groups or [] if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h)]
        expected = [h["hooks"][0] for h in hook_entries(want.get(name) or [])]
        if ours != expected:
            out.append(f"{p}: memory-cli's Stop check edited by hand; `memory-cli checks sync` restores it")
    return out
