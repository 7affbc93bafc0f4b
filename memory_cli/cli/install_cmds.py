"""`memory-cli install` / `uninstall`: register the hooks in a Claude Code settings file."""

from __future__ import annotations

import typer

from .common import JsonOpt, emit_json, state, want_json

SCOPE_HELP = "user (~/.claude/settings.json), project (.claude/settings.json) or local (.claude/settings.local.json)"


def register(app: typer.Typer) -> None:
    app.command("install")(install)
    app.command("uninstall")(uninstall)


def _rule_tools() -> list[str]:
    """Tools named by enabled rules beyond the default matcher, so their calls reach the hook."""
    try:
        import json

        from .common import open_store

        with open_store() as store:
            tools: list[str] = []
            for r in store.rows("SELECT tools FROM enforcement_rules WHERE active = 1"):
                for t in json.loads(r["tools"] or "[]"):
                    if isinstance(t, str) and t and t not in tools and t.replace("_", "").isalnum():
                        tools.append(t)
            return tools
    except Exception:
        return []


def install(scope: str = typer.Option("user", "--scope", help=SCOPE_HELP),
            dry_run: bool = typer.Option(False, "--dry-run", help="Show the change without writing."),
            mcp: bool = typer.Option(True, "--mcp/--no-mcp",
                                     help="Also register the MCP server in ~/.claude.json (user scope)."),
            json_: JsonOpt = False):
    """Merge memory-cli's hooks into a Claude Code settings file (idempotent, backed up, shown as a diff)."""
    from .. import install as lib

    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    after = lib.with_ours(before, lib.executable(), state.db, _rule_tools())
    mcp_change = _mcp_change(True, dry_run) if mcp else None
    _report(lib, path, before, after, dry_run, json_, "installed", mcp_change)


def uninstall(scope: str = typer.Option("user", "--scope", help=SCOPE_HELP),
              dry_run: bool = typer.Option(False, "--dry-run", help="Show the change without writing."),
              mcp: bool = typer.Option(True, "--mcp/--no-mcp",
                                       help="Also remove the MCP server from ~/.claude.json."),
              json_: JsonOpt = False):
    """Remove memory-cli's hooks from a settings file; everything else stays as it was."""
    from .. import install as lib

    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    after = lib.without_ours(before)
    mcp_change = _mcp_change(False, dry_run) if mcp else None
    _report(lib, path, before, after, dry_run, json_, "uninstalled", mcp_change)


def _mcp_change(install: bool, dry_run: bool) -> dict:
    """Register or remove the MCP server at user scope (memory_cli.mcp.register)."""
    from .. import install as lib
    from ..mcp import register

    return register.change(install, lib.executable(), state.db, dry_run=dry_run)


def _print_mcp(mcp_change: dict | None, verb: str) -> None:
    if mcp_change is None:
        return
    where = mcp_change["file"]
    if not mcp_change["changed"]:
        print(f"{where}: MCP server memory-cli already {verb}; nothing changed")
    elif mcp_change["dry_run"]:
        print(f"(dry run: MCP server memory-cli would be {verb} in {where})")
    else:
        print(f"MCP server memory-cli {verb} in {where}"
              + (f" (previous file backed up to {mcp_change['backup']})" if mcp_change["backup"] else ""))


def _report(lib, path, before, after, dry_run, json_, verb, mcp_change=None):
    changed = lib.render(before) != lib.render(after) if (before or path.exists()) else bool(after)
    diff = lib.diff(path, before, after) if changed else ""
    backup = None
    if changed and not dry_run:
        if verb == "uninstalled" and not path.exists():
            changed = False
        else:
            backup = lib.apply(path, before, after)
    if want_json(json_):
        emit_json({"settings_file": str(path), "changed": changed, "dry_run": dry_run,
                   "backup": str(backup) if backup else None, "diff": diff, "mcp": mcp_change})
        return
    _print_mcp(mcp_change, verb)
    if not changed:
        print(f"{path}: already {verb}; nothing changed")
        return
    print(diff, end="")
    if dry_run:
        print(f"(dry run: {path} not changed)")
    else:
        print(f"{verb} in {path}" + (f" (previous file backed up to {backup})" if backup else ""))
