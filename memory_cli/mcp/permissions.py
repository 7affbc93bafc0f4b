"""memory-cli's recording tools in Claude Code's ``permissions.allow``.

In Claude Code's default permission mode an MCP tool call asks the person first, and in print
mode (``claude -p``) a call nobody allowed is refused. Recording costs the person nothing it
has not agreed to: ``record_correction`` stores a lesson that waits for the person in
``memory-cli review``, and the other recording tools write only into memory-cli's own store
(an agent's memory is kept in its checkout and a wider scope waits for review). So ``install``
allows exactly these tools (shown in its diff), ``uninstall`` removes exactly these entries, and
``doctor`` says when they are not allowed. Tools that read (``query_memory``, ...) are not
listed: the person may want to see those calls, and refusing one loses nothing.

Claude Code names an MCP tool ``mcp__<server>__<tool>``; the server is registered as
``memory-cli`` (:mod:`.registration`).
"""

from __future__ import annotations

import json

from .registration import SERVER as NAME

RECORDING = ("record_correction", "remember", "record_incident", "save_report", "record_metric")
ALLOWED = tuple(f"mcp__{NAME}__{tool}" for tool in RECORDING)


def with_allowed(settings: dict) -> dict:
    """``settings`` with the recording tools in ``permissions.allow`` (each once, after what the
    person listed)."""
    data = json.loads(json.dumps(settings))
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        permissions = data["permissions"] = {}
    allow = permissions.get("allow")
    if not isinstance(allow, list):
        allow = permissions["allow"] = []
    for name in ALLOWED:
        if name not in allow:
            allow.append(name)
    return data


def without_allowed(settings: dict) -> dict:
    """``settings`` without the entries :func:`with_allowed` adds; an emptied list or object goes."""
    data = json.loads(json.dumps(settings))
    permissions = data.get("permissions")
    if not isinstance(permissions, dict) or not isinstance(permissions.get("allow"), list):
        return data
    permissions["allow"] = [a for a in permissions["allow"] if a not in ALLOWED]
    if not permissions["allow"]:
        del permissions["allow"]
    if not permissions:
        del data["permissions"]
    return data


def not_allowed(settings_files: list[dict]) -> list[str]:
    """The recording tools none of these settings (user, project, local) allows."""
    allowed: set[str] = set()
    for s in settings_files:
        p = s.get("permissions") if isinstance(s, dict) else None
        if isinstance(p, dict) and isinstance(p.get("allow"), list):
            allowed.update(a for a in p["allow"] if isinstance(a, str))
    if f"mcp__{NAME}" in allowed or f"mcp__{NAME}__*" in allowed:  # the whole server allowed
        return []
    return [name for name in ALLOWED if name not in allowed]


def doctor_check(cwd: str | None = None) -> dict:
    """doctor's line: are the recording tools allowed where Claude Code reads permissions?"""
    from .. import install as lib

    files = []
    for scope in ("user", "project", "local"):
        try:
            files.append(lib.load_settings(lib.settings_file(scope, cwd)))
        except Exception:  # an unreadable file: install reports it
            continue
    missing = not_allowed(files)
    if not missing:
        return {"name": "mcp permissions", "status": "ok", "detail": "the recording tools are allowed"}
    names = ", ".join(m.split("__")[-1] for m in missing)
    return {
        "name": "mcp permissions",
        "status": "warn",
        "detail": f"not allowed: {names}; each call asks first (refused in print mode): run `memory-cli install`",
    }
