"""``install --harden``: the agent's own sandbox around memory-cli's state.

A list of spellings cannot keep an agent that has a shell in the person's account away from
the store, the config or the hook entries. Claude Code's sandbox can: with
``sandbox.enabled`` its Bash tool runs in bubblewrap (Linux) or Seatbelt (macOS), and the paths
in ``sandbox.filesystem.denyWrite`` are read-only to it ("Read-only file system"), those in
``denyRead`` unreadable, while hooks and MCP servers run outside it. This module computes what
to deny from the places memory-cli already knows (:mod:`memory_cli.paths`, the self-protection
targets of :mod:`memory_cli.rules.protected_state`, the installed hook command's code and
environment), merges it into the user settings, and records exactly what it added
(``harden.json`` in memory-cli's folder, itself denied for writing) so that ``uninstall`` takes
out that and nothing else.

``sandbox.allowUnsandboxedCommands`` is set to false: otherwise the agent may ask to run one
command outside the sandbox, which is the whole way around it.
"""

from __future__ import annotations

import json
import os
import sys

from . import paths

RECORD_NAME = "harden.json"
# the project's own settings files, relative to the session's working folder (verified in
# Claude Code 2.1.328: "./" entries in the user settings resolve against the project)
PROJECT_RELATIVE = ("./.claude/settings.json", "./.claude/settings.local.json", "./.claude/memory-cli.toml")


def record_file() -> str:
    return os.path.join(paths.memory_dir_str(), RECORD_NAME)


def _real(p: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(p)))


def _code_and_environment() -> list[str]:
    """The hook's code and the environment it runs in: the package folder, the interpreter's
    environment (the venv or the plugin's data folder) and the folders the launcher adds."""
    from . import install

    package = os.path.dirname(os.path.abspath(__file__))
    out = [package, sys.prefix]
    try:
        out += install.launcher_paths()
    except Exception:
        pass
    plugin_data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if plugin_data:
        out.append(plugin_data)
    return out


def _pgpass() -> str:
    """Where libpq reads the team store's password (memory-cli keeps the connection string in
    the store, without it)."""
    return os.environ.get("PGPASSFILE") or os.path.join(os.path.expanduser("~"), ".pgpass")


def deny_write(store_path: str, cwd: str | None = None) -> list[str]:
    """Every path memory-cli's enforcement depends on, for ``sandbox.filesystem.denyWrite``."""
    from .rules.protected_state import targets

    out = [paths.memory_dir_str()]
    out += [t.path for t in targets(store_path)]  # store, WAL/SHM, caches, config, settings, native copies
    out += _code_and_environment()
    root = _project_root(cwd)
    if root:
        out += [os.path.join(root, ".claude", n) for n in ("settings.json", "settings.local.json", "memory-cli.toml")]
    out.append(_pgpass())
    return _unique([_real(p) for p in out]) + list(PROJECT_RELATIVE)


def deny_read(store_path: str) -> list[str]:
    """What the agent's shell may not read: the store and its companions, its backups and the
    team store's password file (the agent reads memories through the MCP tools)."""
    db = _real(store_path)
    out = [db, db + "-wal", db + "-shm", db + "-journal", os.path.join(paths.memory_dir_str(), "backups"), _pgpass()]
    return _unique([_real(p) for p in out])


def _project_root(cwd: str | None) -> str | None:
    try:
        from .scope import find_project_root

        return find_project_root(cwd or os.getcwd())
    except Exception:
        return None


def _unique(items: list[str]) -> list[str]:
    out: list[str] = []
    for p in items:
        if p and p not in out:
            out.append(p)
    return out


# -- settings -------------------------------------------------------------------------------------
def with_harden(settings: dict, write: list[str], read: list[str]) -> tuple[dict, dict]:
    """``settings`` with the sandbox on and memory-cli's paths denied, and the record of
    exactly what was added or changed (for :func:`without_harden`)."""
    data = json.loads(json.dumps(settings))
    sandbox = data.get("sandbox")
    record: dict = {"created_sandbox": not isinstance(sandbox, dict), "set": {}, "added": {}}
    if not isinstance(sandbox, dict):
        sandbox = data["sandbox"] = {}
    for key, want in (("enabled", True), ("allowUnsandboxedCommands", False)):
        if sandbox.get(key) != want:
            record["set"][key] = {"had": key in sandbox, "before": sandbox.get(key)}
            sandbox[key] = want
    fs = sandbox.get("filesystem")
    record["created_filesystem"] = not isinstance(fs, dict)
    if not isinstance(fs, dict):
        fs = sandbox["filesystem"] = {}
    for key, wanted in (("denyWrite", write), ("denyRead", read)):
        current = fs.get(key) if isinstance(fs.get(key), list) else []
        added = [p for p in wanted if p not in current]
        if added:
            record["added"][key] = {"entries": added, "created": key not in fs}
            fs[key] = list(current) + added
    return data, record


def without_harden(settings: dict, record: dict) -> dict:
    """``settings`` with exactly what :func:`with_harden` recorded taken out again."""
    data = json.loads(json.dumps(settings))
    sandbox = data.get("sandbox")
    if not isinstance(sandbox, dict):
        return data
    fs = sandbox.get("filesystem")
    if isinstance(fs, dict):
        for key, info in (record.get("added") or {}).items():
            current = fs.get(key)
            if not isinstance(current, list):
                continue
            kept = [p for p in current if p not in info.get("entries", [])]
            if kept or not info.get("created"):
                fs[key] = kept
            else:
                del fs[key]
        if not fs and record.get("created_filesystem"):
            del sandbox["filesystem"]
    for key, info in (record.get("set") or {}).items():
        if info.get("had"):
            sandbox[key] = info.get("before")
        else:
            sandbox.pop(key, None)
    if not sandbox and record.get("created_sandbox"):
        del data["sandbox"]
    return data


def load_record() -> dict | None:
    try:
        with open(record_file(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def save_record(settings_path: str, record: dict) -> None:
    """Keep what ``--harden`` added, merged with an earlier record for the same file (a second
    ``--harden`` adds only what is new, and ``uninstall`` takes out both)."""
    from .files.private_file import replace as write_private

    old = load_record() or {}
    prev = old.get(settings_path)
    if isinstance(prev, dict):
        record = _merge(prev, record)
    old[settings_path] = record
    paths.ensure_private_dir(paths.memory_dir_str())
    write_private(record_file(), (json.dumps(old, indent=2) + "\n").encode())


def _merge(prev: dict, new: dict) -> dict:
    out = json.loads(json.dumps(prev))
    for key, info in (new.get("set") or {}).items():
        out.setdefault("set", {}).setdefault(key, info)
    for key, info in (new.get("added") or {}).items():
        slot = out.setdefault("added", {}).setdefault(key, {"entries": [], "created": info.get("created")})
        slot["entries"] += [p for p in info.get("entries", []) if p not in slot["entries"]]
    return out


def forget_record(settings_path: str) -> None:
    old = load_record()
    if not old or settings_path not in old:
        return
    del old[settings_path]
    if old:
        from .files.private_file import replace as write_private

        write_private(record_file(), (json.dumps(old, indent=2) + "\n").encode())
    else:
        try:
            os.remove(record_file())
        except OSError:
            pass


# -- what doctor checks ----------------------------------------------------------------------------
def missing_programs() -> list[str]:
    """What Claude Code's sandbox needs on this system and is not there (Linux: bubblewrap and
    socat; macOS has Seatbelt built in)."""
    if not sys.platform.startswith("linux"):
        return []
    import shutil

    return [name for name in ("bwrap", "socat") if shutil.which(name) is None]


def state(settings: dict, store_path: str, cwd: str | None = None) -> dict:
    """How hardened the user settings are: ``on`` (sandbox enabled), what of memory-cli's
    paths the sandbox does not deny, and whether the agent may leave the sandbox."""
    sandbox: dict = settings["sandbox"] if isinstance(settings.get("sandbox"), dict) else {}
    fs: dict = sandbox["filesystem"] if isinstance(sandbox.get("filesystem"), dict) else {}
    denied_w = set(fs.get("denyWrite") or []) if isinstance(fs.get("denyWrite"), list) else set()
    denied_r = set(fs.get("denyRead") or []) if isinstance(fs.get("denyRead"), list) else set()
    return {
        "on": sandbox.get("enabled") is True,
        "escape": sandbox.get("allowUnsandboxedCommands") is not False,
        "missing_write": [p for p in deny_write(store_path, cwd) if p not in denied_w and not _covered(p, denied_w)],
        "missing_read": [p for p in deny_read(store_path) if p not in denied_r and not _covered(p, denied_r)],
    }


def _covered(path: str, denied: set) -> bool:
    """Whether a denied folder holds ``path``."""
    return any(isinstance(d, str) and d.startswith("/") and path.startswith(d.rstrip("/") + "/") for d in denied)


def doctor_checks(store, settings) -> list[dict]:
    """``sandbox``: recommended where off (a fresh install is not a fault), checked where on:
    every path of memory-cli's denied, no way out of the sandbox, its programs installed."""
    from . import install

    path = install.settings_file("user")
    try:
        data = install.load_settings(path)
    except Exception as e:
        return [{"name": "sandbox", "status": "warn", "detail": str(e)}]
    found = state(data, getattr(store, "path", None) or "", None)
    if not found["on"]:
        return [
            {
                "name": "sandbox",
                "status": "ok",
                "detail": "off: `memory-cli install --harden` puts memory-cli's state out of the agent's reach "
                "(Claude Code's sandbox; see docs/trust.md)",
            }
        ]
    problems = []
    missing = missing_programs()
    if missing:
        problems.append(f"{' and '.join(missing)} not installed, so Claude Code cannot sandbox Bash")
    if found["escape"]:
        problems.append("sandbox.allowUnsandboxedCommands is not false: the agent may run a command outside it")
    if found["missing_write"]:
        problems.append(
            f"{len(found['missing_write'])} path(s) not in denyWrite: " + ", ".join(found["missing_write"][:3])
        )
    if found["missing_read"]:
        problems.append(
            f"{len(found['missing_read'])} path(s) not in denyRead: " + ", ".join(found["missing_read"][:3])
        )
    if problems:
        return [
            {
                "name": "sandbox",
                "status": "fail" if missing else "warn",
                "detail": "; ".join(problems) + " (`memory-cli install --harden` puts them back)",
            }
        ]
    return [
        {"name": "sandbox", "status": "ok", "detail": f"on: memory-cli's state is out of the agent's reach ({path})"}
    ]
