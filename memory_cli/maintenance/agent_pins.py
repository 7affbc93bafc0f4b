"""Pinned entries in the standing instructions of the other agents: AGENTS.md (Codex CLI) and
GEMINI.md (Gemini CLI), written exactly as the CLAUDE.md block is.

The block, its markers, the refusal to write through a link that leads out of the project and
the exact removal are :mod:`memory_cli.maintenance.claudemd`'s; this module only decides where.
Each CLAUDE.md target (see :mod:`memory_cli.maintenance.pins`) has one sibling per agent that
memory-cli is installed into: the global target ``$CODEX_HOME/AGENTS.md`` and
``~/.gemini/GEMINI.md``, a project's ``<project>/AGENTS.md`` and ``<project>/GEMINI.md``.
Which files hold a block is remembered in ``kv`` (``pins.agentfile.<path>``), so uninstalling
the agent removes every block it got, wherever the pins were.
"""

from __future__ import annotations

from pathlib import Path

from memory_cli.maintenance import claudemd
from memory_cli.store import kvstate

AGENT_FILES = {"codex": "AGENTS.md", "gemini": "GEMINI.md"}
FILE_KEY = "pins.agentfile."


def installed_agents(store) -> list[str]:
    """Agents whose hooks memory-cli registered (user scope), or that already hold a block."""
    from memory_cli import install_agents

    holding = {v.get("agent") for v in kvstate.with_prefix(store, FILE_KEY).values() if isinstance(v, dict)}
    return [a for a in AGENT_FILES if a in holding or install_agents.registered(a, "user")]


def sibling(agent: str, target: str) -> Path:
    from memory_cli import install_agents

    name = AGENT_FILES[agent]
    if target == claudemd.GLOBAL_TARGET:
        return (install_agents.codex_home() if agent == "codex" else Path.home() / ".gemini") / name
    parent = Path(target).parent
    root = parent.parent if parent.name == ".claude" else parent
    return root / name


def _diff(path: Path, before: bytes | None, after: bytes | None) -> str:
    from memory_cli.native.files import diff

    dec = lambda b: (b or b"").decode("utf-8", "replace")  # noqa: E731
    return diff(path, dec(before), dec(after))


def _sync_file(store, agent: str, path: Path, target: str, body: str | None, dry_run: bool) -> dict:
    try:
        plan = claudemd.plan_sync(path, body)
    except claudemd.UnsafeTarget as err:
        return {"agent": agent, "path": str(path), "action": claudemd.CONFLICT, "reason": str(err), "changed": False}
    changed = plan.changes_file
    if changed and not dry_run:
        try:
            claudemd.apply_sync(plan)
        except claudemd.ChangedSincePlan:
            plan = claudemd.plan_sync(path, body)
            changed = plan.changes_file
            if changed:
                claudemd.apply_sync(plan)
        with store.transaction():
            if plan.action in (claudemd.REMOVE, claudemd.DELETE_FILE):
                kvstate.delete(store, FILE_KEY + str(path))
            else:
                kvstate.put(store, FILE_KEY + str(path), {"agent": agent, "target": target})
    return {
        "agent": agent,
        "path": str(plan.path),
        "action": plan.action,
        "reason": plan.reason,
        "changed": changed,
        "conflict": plan.conflict,
        "diff": _diff(plan.path, plan.before, plan.after) if changed else "",
    }


def sync_target(store, target: str, body: str | None, *, dry_run: bool = False) -> list[dict]:
    """Give each installed agent's sibling of ``target`` the same pinned block."""
    return [
        _sync_file(store, agent, sibling(agent, target), target, body, dry_run) for agent in installed_agents(store)
    ]


def remove_agent(store, agent: str, *, dry_run: bool = False) -> list[dict]:
    """Every pinned block ``agent``'s files got, removed exactly (``uninstall --agent``)."""
    out = []
    for path, info in kvstate.with_prefix(store, FILE_KEY).items():
        if isinstance(info, dict) and info.get("agent") == agent:
            out.append(_sync_file(store, agent, Path(path), info.get("target") or "", None, dry_run))
    return out
