"""Claude Code's ``permissions``: ``deny`` and ``ask`` entries in the user's settings.json.

``Bash(git push --force:*)`` denies every Bash command that begins with those words (Claude
Code splits compound commands and requires a word boundary after the prefix, so ``git push
--force-with-lease`` still runs); a deny holds with every hook off (``disableAllHooks``).
Plugins cannot ship permission rules, so memory-cli merges its entries into settings.json the
way ``install`` merges hooks: only its own entries are touched, the previous file is backed up,
the change is shown as a diff.

What memory-cli added is recorded in the store (``kv`` ``native.claude``): the entries, the
lists it created, and the file's bytes before its first write with the hash of its last write.
Removal takes back exactly those entries; when nobody changed the file since memory-cli last
wrote it, the earlier bytes come back byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import InvalidInput
from ..store import kvstate
from .select import NativeRule

AGENT = "claude"
STATE_KEY = "native.claude"
LISTS = ("deny", "ask")


def path() -> Path:
    from .. import paths

    return paths.claude_dir() / "settings.json"


def entry(rule: NativeRule) -> str:
    return f"Bash({rule.prefix}:*)"


def wanted(rules: list[NativeRule]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {k: [] for k in LISTS}
    for r in rules:
        e = entry(r)
        if e not in out[r.decision]:
            out[r.decision].append(e)
    return out


def render(rules: list[NativeRule]) -> str:
    """What the export prints: the ``permissions`` object memory-cli merges in."""
    return json.dumps({"permissions": {k: v for k, v in wanted(rules).items() if v}}, indent=2) + "\n"


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _read(p: Path) -> str | None:
    try:
        return p.read_bytes().decode("utf-8", "surrogateescape")  # line endings as they are
    except FileNotFoundError:
        return None


def _load(p: Path, text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InvalidInput(f"{p} is not valid JSON ({e}); nothing was changed") from None
    if not isinstance(data, dict) or not isinstance(data.get("permissions", {}), dict):
        raise InvalidInput(f"{p}: expected an object with a 'permissions' object; nothing was changed")
    return data


def _without(data: dict, state: dict) -> dict:
    """``data`` without the entries memory-cli recorded, and without the lists it created once
    they are empty."""
    data = json.loads(json.dumps(data))
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        return data
    ours = state.get("entries") or {}
    created = set(state.get("created") or [])
    for key in LISTS:
        items = perms.get(key)
        if isinstance(items, list):
            mine = set(ours.get(key) or [])
            perms[key] = [x for x in items if x not in mine]
            if not perms[key] and key in created:
                del perms[key]
    if not perms and "permissions" in created:
        del data["permissions"]
    return data


def plan(store, rules: list[NativeRule]) -> dict:
    """Before/after text of settings.json and the state to record; nothing written."""
    from .. import install as lib

    p = path()
    text = _read(p)
    state = kvstate.get(store, STATE_KEY) or {}
    data = _without(_load(p, text), state)
    want = wanted(rules)
    new_state = {"path": str(p), "entries": {}, "created": [c for c in state.get("created") or []]}
    if any(want.values()):
        perms = data.get("permissions")
        if perms is None:
            perms = data["permissions"] = {}
            if "permissions" not in new_state["created"]:
                new_state["created"].append("permissions")
        for key in LISTS:
            if not want[key]:
                continue
            items = perms.get(key)
            if not isinstance(items, list):
                items = perms[key] = []
                if key not in new_state["created"]:
                    new_state["created"].append(key)
            added = [e for e in want[key] if e not in items]
            items.extend(added)
            new_state["entries"][key] = added
        after = lib.render(data)
    else:
        new_state["created"] = []
        untouched = state and text is not None and _sha(text) == state.get("written_sha")
        if untouched and state.get("original_valid") and _kept_whole(state):
            after = state.get("original")  # None: memory-cli created the file; it goes again
        elif not state or text is None:
            after = text
        else:
            after = lib.render(data)
    if state and _sha(text) == state.get("written_sha"):
        new_state["original"], new_state["original_valid"] = state.get("original"), state.get("original_valid")
        new_state["original_sha"] = state.get("original_sha")
    elif state:
        new_state["original"], new_state["original_valid"] = None, False  # changed by someone else
    else:
        new_state["original"], new_state["original_valid"] = text, True
        new_state["original_sha"] = _sha(text)
    new_state["written_sha"] = _sha(after)
    return {"path": p, "before": text, "after": after, "state": new_state, "had_state": bool(state)}


def _kept_whole(state: dict) -> bool:
    """Whether the bytes kept from before memory-cli's first write are those bytes: the store
    cuts a long text it is given (a settings file with hooks in it is several KB), and a cut copy
    written back would replace the person's settings with a preview of them."""
    original = state.get("original")
    return original is None or _sha(original) == state.get("original_sha")


def apply(store, planned: dict, *, backup: bool = True) -> dict:
    """Write the planned file and record what memory-cli now owns in it. ``backup``: keep the
    previous file beside it (a person's ``--write`` or ``uninstall``; a rule change that only
    moves memory-cli's own entries does not leave a backup each time)."""
    from .. import install as lib
    from . import files

    p, before, after = planned["path"], planned["before"], planned["after"]
    out = {
        "path": str(p),
        "changed": before != after,
        "diff": files.diff(p, before or "", after or ""),
        "backup": None,
    }
    out["action"] = "nothing" if before == after else ("remove" if after is None else "write")
    if before != after:
        if after is None:
            p.unlink()  # memory-cli created it and nothing else was ever added
        elif backup:
            saved = lib.apply_text(p, after)
            out["backup"] = str(saved) if saved else None
        else:
            from ..files import safe_write

            safe_write.write_file(p, after, roots=lib.write_roots(p))
    with store.transaction():
        if planned["state"]["entries"]:
            kvstate.put(store, STATE_KEY, planned["state"])
        else:
            kvstate.delete(store, STATE_KEY)
    return out


def drift(store, rules: list[NativeRule] | None) -> str | None:
    """Why settings.json no longer holds what the store says, or None."""
    state = kvstate.get(store, STATE_KEY)
    if not state:
        return None
    p = path()
    try:
        data = _load(p, _read(p))
    except InvalidInput as err:
        return str(err)
    perms = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    missing = [e for key in LISTS for e in (state.get("entries") or {}).get(key, []) if e not in (perms.get(key) or [])]
    if missing:
        return f"{p}: {', '.join(missing)} removed by hand"
    if rules is None:
        return None
    want = wanted(rules)
    have = {key: [e for e in (perms.get(key) or [])] for key in LISTS}
    stale = [e for key in LISTS for e in want[key] if e not in have[key]]
    if stale:
        return f"{p}: {', '.join(stale)} missing (the store changed since the last write)"
    return None
