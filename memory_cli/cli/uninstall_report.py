"""What ``uninstall`` tells the person: one diff per file changed, where its backup is, that the
embedding daemon was stopped, and where the memories and rules stay (uninstall never deletes
them)."""

from __future__ import annotations

import sys
from pathlib import Path

from .common import emit_json, want_json


def touched_files(scope: str, agent: str) -> list[Path]:
    """The files several parts of ``uninstall`` may write (noted before the first of them)."""
    from .. import install as lib

    if agent != "claude":
        from .. import install_agents as agents
        from ..mcp import agent_registration as agent_mcp

        out = [agents.settings_file(agent, scope)]
        if agent == "codex":
            out.append(agent_mcp.codex_config_file(scope))
        return out
    from ..mcp import registration

    out = [lib.settings_file(scope), lib.settings_file("user")]
    if scope == "project":
        out.append(lib.settings_file("project").parent.parent / ".mcp.json")
    else:
        out.append(registration.claude_json())
    return out


def _stop_daemon() -> dict:
    """The embedding daemon goes with the hooks that start it (as `memory-cli daemon stop`)."""
    try:
        from ..daemon import control

        return control.stop()
    except Exception as e:  # noqa: BLE001 - said, never a failed uninstall
        return {"was_running": False, "error": f"{type(e).__name__}: {e}"}


def _store_line() -> tuple[str | None, str]:
    from .common import db_path

    try:
        db = str(Path(db_path()).expanduser().resolve())
    except Exception:  # noqa: BLE001 - memory switched off: there is no store to name
        return None, "memory-cli: memory is disabled; no store to keep"
    if not Path(db).exists():
        return db, f"memory-cli: no store at {db}; nothing else to remove"
    folder = str(Path(db).parent)
    return db, (
        f"memory-cli: your memories and rules are kept in {db} (`memory-cli export` saves them as JSON); "
        f"to remove them for good, delete {folder}"
    )


def show(files: list[dict], others: list[dict], json_: bool) -> None:
    daemon = _stop_daemon()
    db, store_line = _store_line()
    if want_json(json_):
        rows = [
            {"settings_file": f["path"], "changed": True, "removed": f["removed"], "backup": f["backup"]}
            | {"diff": f["diff"], "dry_run": False}
            for f in files
        ]
        rows += [
            {"settings_file": r["path"], "changed": True, "removed": r.get("action") == "remove", "backup": None}
            | {"diff": r.get("diff") or "", "dry_run": False}
            for r in others
        ]
        first = rows[0] if rows else {"changed": False}
        emit_json({**first, "files": rows, "store": db, "daemon_stopped": bool(daemon.get("stopped"))})
        return
    for f in files:
        sys.stdout.write(f["diff"])
        if f["removed"]:
            print(f"removed {f['path']}: memory-cli created it and nothing else was in it")
        else:
            print(
                f"uninstalled from {f['path']}"
                + (f" (previous file backed up to {f['backup']})" if f["backup"] else "")
            )
    for r in others:
        diff = r.get("diff") or ""
        sys.stdout.write(diff if not diff or diff.endswith("\n") else diff + "\n")
        print(f"removed memory-cli's part of {r['path']}")
    if not files and not others:
        print("memory-cli was not installed here; nothing changed")
    if daemon.get("was_running"):
        print(f"stopped the embedding daemon (pid {daemon.get('pid') or '?'})")
    print(store_line)
