"""Without ``install --harden``, every route of the battery is refused, asked, or said.

Each route runs against its own install of memory-cli, as the agent's shell would run it: the
installed PreToolUse hook is asked first (what Claude Code does), and a call it allows really
runs. Then the next session starts, and the person must have been told, or the gate must still
hold: the block rule on ``git push --force`` still denies, or the gate refuses every call with
the reason. Routes that need the agent's own process tree (``memory-cli rules disable`` from
its shell) are in tests/e2e/test_e2e_without_harden.py, in the real Claude Code; the code and
bytecode routes are in tests/test_outside_seals.py (they need an installed, non-checkout copy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.attack_routes import Where, prepare, routes
from helpers.cli import run_cli
from helpers.hooks import payload, run_agent_hook, run_hook
from helpers.mcp_handshake import instructions as mcp_instructions

# What the next session says for a route whose call the hook let run.
SAID = {
    "rule": "turned off by a process that was not memory-cli",
    "store": "by a process that was not memory-cli",
    "config": "was changed outside memory-cli (enforcement.enabled",
    "cache": "rule cache",
}
# Where no hook of memory-cli runs any more (every hook switched off), its MCP server says it.
SAID_BY_MCP = {"user": "disableAllHooks: true", "local": "disableAllHooks: true"}
HERE_ONLY = [r.name for r in routes(Where(*(Path("/x"),) * 4, "memory-cli", "/pkg"), "id") if (r.aims_at in SAID or r.aims_at in SAID_BY_MCP or r.aims_at == "read") and "rules disable" not in r.name]  # fmt: skip


def bash(command: str, cwd: Path) -> dict:
    call = payload("PreToolUse", cwd=str(cwd))
    call["tool_input"] = {"command": command, "description": "run"}
    return call


@pytest.mark.parametrize("name", HERE_ONLY)
def test_each_route_is_refused_asked_or_said_at_the_next_session(name, claude_dir, project, tmp_path):
    import memory_cli

    r = run_cli("install", "--no-model", cwd=project)
    assert r.returncode == 0, r.stderr
    db = claude_dir / "memory" / "memory.db"
    rule = run_cli(
        "--json", "rules", "add", "Never force-push", "-p", "git push --force", "-T", "command", "-a", "block"
    )
    assert rule.returncode == 0, rule.stderr
    push = bash("git push --force origin main", project)
    assert run_hook("PreToolUse", push).decision == "deny"  # the gate has read the store once
    where = Where(db, claude_dir / "memory" / "config.json", claude_dir, project, str(Path(sys.executable).parent / "memory-cli"), memory_cli.__path__[0])  # fmt: skip
    battery = routes(where, json.loads(rule.stdout)["id"])
    prepare(where, battery)
    [route] = [r for r in battery if r.name == name]

    decided = run_hook("PreToolUse", bash(route.command, project)).decision
    if decided in ("deny", "ask"):
        return  # refused or asked by the hook: the person decides
    ran = subprocess.run(
        ["/bin/sh", "-c", route.command],
        cwd=str(project),
        env=dict(os.environ, CLAUDECODE="1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, (route.name, ran.stderr)  # the call really ran
    if route.aims_at == "read":
        assert "memory_entries" not in ran.stderr  # a read changes nothing: --harden's job
        assert run_hook("PreToolUse", push).decision == "deny"
        return

    if route.aims_at in SAID_BY_MCP:  # Claude Code runs none of memory-cli's hooks now
        said = mcp_instructions(project)
        assert said.startswith("IMPORTANT") and SAID_BY_MCP[route.aims_at] in said, (route.name, said)
        return
    start = run_hook("SessionStart", payload("SessionStart", cwd=str(project), source="startup"))
    said = start.system_message
    assert SAID[route.aims_at] in said, (route.name, said)
    after = run_hook("PreToolUse", push)
    if route.aims_at == "config":  # enforcement switched off: said, with the way back
        assert "memory-cli config unset enforcement.enabled" in said
        assert run_cli("config", "unset", "enforcement.enabled").returncode == 0
        after = run_hook("PreToolUse", push)
    assert after.decision == "deny", (route.name, after)  # the rule, or the gate's own refusal


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_codex_and_gemini_sessions_say_it_too(agent, claude_dir, project, tmp_path):
    """Codex CLI and Gemini CLI run memory-cli's SessionStart as well: the same changes made
    outside memory-cli are said there, in each agent's own answer."""
    db = claude_dir / "memory" / "memory.db"
    assert run_cli("install", "--agent", agent, "--no-model", cwd=project).returncode == 0
    rule = run_cli(
        "--json", "rules", "add", "Never force-push", "-p", "git push --force", "-T", "command", "-a", "block"
    )
    assert rule.returncode == 0, rule.stderr
    subprocess.run(["sqlite3", str(db), "UPDATE enforcement_rules SET active = 0"], check=True, timeout=30)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"enabled": False}}))
    body = {"session_id": f"s-{agent}", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(project),
            "hook_event_name": "SessionStart", "source": "startup"}  # fmt: skip
    said = json.dumps(run_agent_hook(db, agent, "SessionStart", body))
    assert "1 rule turned off by a process that was not memory-cli" in said, said
    assert "was changed outside memory-cli (enforcement.enabled" in said, said
