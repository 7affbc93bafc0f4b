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


ENTRY_HELP = ("fast: this Python started isolated on memory_cli/fasthook.py (default; several times "
              "quicker per tool call); console: the memory-cli console script")


def install(scope: str = typer.Option("user", "--scope", help=SCOPE_HELP),
            dry_run: bool = typer.Option(False, "--dry-run", help="Show the change without writing."),
            entry: str = typer.Option("fast", "--entry", help=ENTRY_HELP),
            json_: JsonOpt = False):
    """Merge memory-cli's hooks into a Claude Code settings file (idempotent, backed up, shown as a diff)."""
    from .. import install as lib
    from ..errors import InvalidInput

    if entry not in ("fast", "console"):
        raise InvalidInput(f"unknown --entry {entry!r}: use fast or console")
    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    launcher = lib.hook_launcher() if entry == "fast" else lib.console_launcher()
    after = lib.with_ours(before, launcher, state.db, _rule_tools())
    _report(lib, path, before, after, dry_run, json_, "installed")


def uninstall(scope: str = typer.Option("user", "--scope", help=SCOPE_HELP),
              dry_run: bool = typer.Option(False, "--dry-run", help="Show the change without writing."),
              json_: JsonOpt = False):
    """Remove memory-cli's hooks from a settings file; everything else stays as it was."""
    from .. import install as lib

    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    after = lib.without_ours(before)
    _report(lib, path, before, after, dry_run, json_, "uninstalled")


def _report(lib, path, before, after, dry_run, json_, verb):
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
                   "backup": str(backup) if backup else None, "diff": diff})
        return
    if not changed:
        print(f"{path}: already {verb}; nothing changed")
        return
    print(diff, end="")
    if dry_run:
        print(f"(dry run: {path} not changed)")
    else:
        print(f"{verb} in {path}" + (f" (previous file backed up to {backup})" if backup else ""))
