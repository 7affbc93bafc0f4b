"""One store and one gate for Codex CLI and Gemini CLI, through the real pinned binaries.

Each agent is installed from ``.e2e-agents/`` (``scripts/setup_agents.sh``), registered with
``memory-cli install --agent NAME`` into the throwaway HOME that Claude Code's tests use, and
driven headless (``codex exec``, ``gemini -p``) against a scripted stand-in of its model API
on 127.0.0.1 (:mod:`tests.e2e.agent_standins`). Each scenario checks what ran on the machine
and what the agent showed its model.

Headless runs need the agent's consent to run hooks, which an interactive person gives once:
``codex exec --dangerously-bypass-hook-trust`` (Codex otherwise skips hooks it has not been
told to trust) and ``GEMINI_CLI_TRUST_WORKSPACE=true`` (Gemini runs no hooks in an untrusted
folder).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from helpers.waiting import bound

from .agent_standins import (
    CodexStandIn,
    GeminiStandIn,
    WaitFor,
    codex_call,
    codex_exec,
    codex_patch,
    codex_tool_search,
    gemini_call,
)
from .sessions import SESSION_TIMES, _check_no_hook_failures, _make_home

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
AGENTS_DIR = REPO / ".e2e-agents"
SETUP_SCRIPT = REPO / "scripts" / "setup_agents.sh"
CODEX_VERSION = "0.169.0"
GEMINI_VERSION = "0.61.0"
BINS = {
    "codex": AGENTS_DIR / "node_modules" / ".bin" / "codex",
    "gemini": AGENTS_DIR / "node_modules" / ".bin" / "gemini",
}
_SCRUB = ("OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_")


def _version_ok(name: str, version: str) -> bool:
    pkg = {"codex": "@openai/codex", "gemini": "@google/gemini-cli"}[name]
    try:
        meta = json.loads((AGENTS_DIR / "node_modules" / pkg / "package.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("version") == version and BINS[name].exists()


@pytest.fixture(scope="session")
def agent_bins() -> dict[str, Path]:
    """The pinned Codex CLI and Gemini CLI; installed once by scripts/setup_agents.sh."""
    wanted = {"codex": CODEX_VERSION, "gemini": GEMINI_VERSION}
    if not all(_version_ok(n, v) for n, v in wanted.items()):
        proc = subprocess.run(["bash", str(SETUP_SCRIPT)], capture_output=True, text=True, timeout=900, check=False)
        if not all(_version_ok(n, v) for n, v in wanted.items()):
            pytest.skip(
                "the agents could not be installed by scripts/setup_agents.sh: " + (proc.stderr or proc.stdout)[-300:]
            )
    return BINS


class AgentRun:
    def __init__(self, proc: subprocess.CompletedProcess, standin, elapsed: float):
        self.proc = proc
        self.standin = standin
        self.elapsed = elapsed

    def describe(self) -> str:
        return (
            f"rc={self.proc.returncode}\nstdout: {self.proc.stdout[-1500:]}\nstderr: {self.proc.stderr[-2500:]}\n"
            f"tool outputs: {self.standin.tool_outputs()}"
        )


class Agents:
    """Codex and Gemini sessions in the HOME of an :class:`E2EHome`."""

    def __init__(self, home, bins):
        self.home = home
        self.bins = bins
        for agent in ("codex", "gemini"):
            home.cli("install", "--agent", agent)
        settings = home.home / ".gemini" / "settings.json"
        data = json.loads(settings.read_text())
        data["security"] = {"auth": {"selectedType": "gemini-api-key"}}  # the stand-in takes any key
        settings.write_text(json.dumps(data, indent=2))
        # What `install --agent codex` wrote into config.toml (its MCP server), kept under the
        # stand-in provider each Codex run puts first.
        config = home.home / ".codex" / "config.toml"
        self.codex_config = config.read_text() if config.exists() else ""

    def _env(self, extra: dict) -> dict:
        env = {k: v for k, v in self.home.env().items() if not k.startswith(_SCRUB)}
        env.update(extra)
        return env

    def _run(self, name, cmd, env, standin, timeout) -> AgentRun:
        started = time.monotonic()
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=env,
            cwd=str(self.home.project),
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
        elapsed = time.monotonic() - started
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        SESSION_TIMES.append((f"{test} [{name}]", cmd[-1], elapsed, len(standin.main_requests), proc.returncode))
        return AgentRun(proc, standin, elapsed)

    def codex(self, prompt: str, script, timeout: float = 120) -> AgentRun:
        with CodexStandIn(script) as standin:
            config = self.home.home / ".codex" / "config.toml"
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(
                'model = "gpt-5.5"\nmodel_provider = "standin"\n'
                "[model_providers.standin]\n"
                f'name = "standin"\nbase_url = "{standin.url}/v1"\nwire_api = "responses"\n\n' + self.codex_config
            )
            cmd = [
                str(self.bins["codex"]),
                "exec",
                "--dangerously-bypass-hook-trust",
                "--dangerously-bypass-approvals-and-sandbox",
                "--skip-git-repo-check",
                prompt,
            ]
            return self._run("codex", cmd, self._env({}), standin, timeout)

    def gemini(self, prompt: str, script, timeout: float = 120) -> AgentRun:
        with GeminiStandIn(script) as standin:
            env = self._env(
                {
                    "GOOGLE_GEMINI_BASE_URL": standin.url,
                    "GEMINI_API_KEY": "e2e-standin",
                    "GEMINI_CLI_TRUST_WORKSPACE": "true",
                }
            )
            cmd = [str(self.bins["gemini"]), "-m", "gemini-2.5-pro", "--yolo", "-p", prompt]
            return self._run("gemini", cmd, env, standin, timeout)


@pytest.fixture(scope="module")
def agents(claude_bin, agent_bins, tmp_path_factory):
    home = _make_home(tmp_path_factory.mktemp("e2e-agents"), claude_bin)
    home.cli("rules", "add", "Never use pythonw.exe", "--alternative", "use python.exe")
    yield Agents(home, agent_bins)
    _check_no_hook_failures(home)


def _audit(home, action: str) -> list[dict]:
    return home.cli_json("audit", "--action", action, "--limit", "200")


def test_codex_denies_a_blocked_command_which_does_not_run_and_runs_a_look_alike(agents):
    project = agents.home.project
    run = agents.codex(
        "launch the app, then look for pythonw",
        [
            [codex_exec("touch denied.txt && pythonw.exe src/main.py")],
            [codex_exec("touch lookalike.txt && grep -rn pythonw.exe src || true")],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert not (project / "denied.txt").exists(), run.describe()
    assert (project / "lookalike.txt").exists(), run.describe()
    outputs = run.standin.tool_outputs()
    assert "Never use pythonw.exe" in outputs[0] and "use python.exe" in outputs[0], run.describe()
    blocks = [r for r in _audit(agents.home, "enforce_block") if r["agent"] == "codex"]
    assert blocks and blocks[0]["context"] == "Bash", blocks


def test_gemini_denies_a_blocked_command_which_does_not_run_and_runs_a_look_alike(agents):
    project = agents.home.project
    run = agents.gemini(
        "launch the app, then look for pythonw",
        [
            [gemini_call("run_shell_command", {"command": "touch gdenied.txt && pythonw.exe src/main.py"})],
            [gemini_call("run_shell_command", {"command": "touch glookalike.txt && grep -rn pythonw.exe src || true"})],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert not (project / "gdenied.txt").exists(), run.describe()
    assert (project / "glookalike.txt").exists(), run.describe()
    outputs = run.standin.tool_outputs()
    assert "Never use pythonw.exe" in outputs[0], run.describe()
    blocks = [r for r in _audit(agents.home, "enforce_block") if r["agent"] == "gemini"]
    assert blocks and blocks[0]["context"] == "Bash", blocks


def test_a_file_rule_sees_every_file_a_codex_patch_touches(agents):
    """The patch adds a harmless file and edits a .env file: the file rule denies the whole
    patch, so neither file is written."""
    project = agents.home.project
    agents.home.cli("rules", "add", "Never edit .env files", "--pattern", r"\.env$", "--fields", "file_path")
    (project / "config").mkdir(exist_ok=True)
    (project / "config" / ".env").write_text("TOKEN=old\n")
    patch = (
        "*** Begin Patch\n*** Add File: notes.txt\n+harmless\n"
        "*** Update File: config/.env\n@@\n-TOKEN=old\n+TOKEN=new\n*** End Patch\n"
    )
    run = agents.codex("rotate the token", [[codex_patch(patch)]])
    assert run.proc.returncode == 0, run.describe()
    assert (project / "config" / ".env").read_text() == "TOKEN=old\n", run.describe()
    assert not (project / "notes.txt").exists(), run.describe()
    assert "Never edit .env files" in run.standin.tool_outputs()[0], run.describe()


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_a_memory_reaches_the_agents_model_at_session_start(agents, agent):
    agents.home.cli("add", "The whisperclick staging database listens on port 6543", "--type", "fact")
    run = getattr(agents, agent)("hello", [])  # a prompt no memory is relevant to: only the start injects
    assert run.proc.returncode == 0, run.describe()
    first = run.standin.main_requests[0]
    assert "port 6543" in run.standin.shown(first), run.describe()


def test_a_correction_twice_in_codex_and_once_in_claude_code_promotes_one_rule(agents):
    home = agents.home
    first = agents.codex("No, use pnpm, not npm. Install the dependencies.", [])
    second = agents.codex("I already told you: use pnpm, not npm", [])
    assert first.proc.returncode == 0 and second.proc.returncode == 0, first.describe() + second.describe()
    assert not [r for r in home.cli_json("rules", "list", "--all") if r.get("pattern") == "npm"]
    third = home.run_session("For the third time, use pnpm, not npm!", ["Noted."])
    assert third.returncode == 0, third.describe()
    npm_rules = [r for r in home.cli_json("rules", "list", "--all") if r.get("pattern") == "npm"]
    assert len(npm_rules) == 1, npm_rules
    prompts = [r for r in _audit(home, "hook") if r["hook_event"] == "UserPromptSubmit"]
    assert {"codex", "claude"} <= {r["agent"] for r in prompts}, prompts


def test_a_correction_typed_in_gemini_is_acknowledged_to_its_model_at_once(agents):
    agents.home.write_config({"capture": {"agent_lessons": False}})  # the detector speaks
    try:
        run = agents.gemini("No, use yarn, not npm. Install the dependencies.", [])
    finally:
        agents.home.write_config({})
    assert run.proc.returncode == 0, run.describe()
    assert "Recorded correction: use yarn, not npm." in run.standin.shown(run.standin.main_requests[0]), run.describe()


def test_codex_offers_memory_clis_mcp_tools_and_query_memory_returns_a_stored_memory(agents):
    """Codex lists MCP servers as deferred namespaces in its requests; its model finds the tools
    with ``tool_search`` and calls one in its namespace (``mcp__memory_cli``)."""
    agents.home.cli("add", "The zephyrquill deploy key rotates every 90 days", "--type", "fact")
    ask = {"query": "zephyrquill deploy key"}
    # Codex does not wait for MCP servers before the first turn: a real model takes seconds to
    # answer, the stand-in none, and on a loaded machine the server's tools are not listed yet
    # (Codex answers "unsupported call"). The scripted model pauses (short commands) until
    # Codex's requests name the server's namespace, within a bound scaled to the machine's load.
    run = agents.codex(
        "when does the deploy key rotate?",
        [
            WaitFor(
                lambda body: "- mcp__memory_cli: " in json.dumps(body, ensure_ascii=False),
                [codex_exec("sleep 0.5")],
                limit=int(bound(60) / 0.5),
            ),
            [codex_tool_search("memory")],
            [codex_call("query_memory", ask, namespace="mcp__memory_cli")],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    # Named as a deferred namespace once the server has started (the first request, on an idle
    # machine; a later one under load).
    shown = [run.standin.shown(r) for r in run.standin.main_requests]
    assert any("Deferred tool namespaces" in t and "- mcp__memory_cli: " in t for t in shown), run.describe()
    found = [
        item
        for request in run.standin.main_requests
        for item in request.get("input") or []
        if isinstance(item, dict) and item.get("type") == "tool_search_output"
    ]
    offered = [t["name"] for ns in found[0]["tools"] if ns.get("name") == "mcp__memory_cli" for t in ns["tools"]]
    assert "query_memory" in offered and "remember" in offered, found
    outputs = run.standin.tool_outputs()
    assert "rotates every 90 days" in outputs[-1] and "memories" in outputs[-1], run.describe()


def test_gemini_offers_memory_clis_mcp_tools_and_query_memory_returns_a_stored_memory(agents):
    agents.home.cli("add", "The quillborn staging bucket is emptied every Sunday", "--type", "fact")
    run = agents.gemini(
        "when is the staging bucket emptied?",
        [[gemini_call("mcp_memory-cli_query_memory", {"query": "quillborn staging bucket"})]],
    )
    assert run.proc.returncode == 0, run.describe()
    first = run.standin.main_requests[0]
    offered = [d["name"] for t in first["tools"] for d in t.get("functionDeclarations", [])]
    assert "mcp_memory-cli_query_memory" in offered and "mcp_memory-cli_remember" in offered, offered
    outputs = run.standin.tool_outputs()
    assert "emptied every Sunday" in outputs[0] and "memories" in outputs[0], run.describe()


def _rule_active(home, pattern: str) -> bool:
    return any(
        r.get("pattern") == pattern and r.get("active", True) in (True, 1) for r in home.cli_json("rules", "list")
    )


def test_codex_cannot_switch_the_gate_off_with_sqlite3(agents):
    """Codex has no ask: memory-cli's protection of its own store is a denial there, and the
    UPDATE never runs."""
    home = agents.home
    home.cli("rules", "add", "Never force-push", "--pattern", "git push --force", "--pattern-type", "command",
             "--action", "block")  # fmt: skip
    run = agents.codex(
        "switch the gate off",
        [[codex_exec(f'sqlite3 {home.db} "UPDATE enforcement_rules SET active = 0"')]],
    )
    assert run.proc.returncode == 0, run.describe()
    assert "memory-cli protects its own state" in run.standin.tool_outputs()[0], run.describe()
    assert _rule_active(home, "git push --force")
    denied = [r for r in _audit(home, "protect_deny") if r["agent"] == "codex"]
    assert denied and denied[0]["context"] == "Bash", denied


def test_gemini_cannot_switch_the_gate_off_with_memory_cli(agents):
    """A headless Gemini would wait forever on an ask, so memory-cli denies; the command does
    not run (and, run from Gemini's shell anyway, memory-cli itself would refuse: GEMINI_CLI=1)."""
    from .sessions import MEMORY_CLI

    home = agents.home
    home.cli("rules", "add", "Never rebase main", "--pattern", "git rebase main", "--pattern-type", "command",
             "--action", "block")  # fmt: skip
    [rule] = [r for r in home.cli_json("rules", "list") if r.get("pattern") == "git rebase main"]
    run = agents.gemini(
        "switch the rule off",
        [[gemini_call("run_shell_command", {"command": f"{MEMORY_CLI} rules disable {rule['id']}"})]],
    )
    assert run.proc.returncode == 0, run.describe()
    assert _rule_active(home, "git rebase main"), run.describe()
    assert "memory-cli protects its own state" in run.standin.tool_outputs()[0], run.describe()
    denied = [r for r in _audit(home, "protect_deny") if r["agent"] == "gemini"]
    assert denied and denied[0]["context"] == "Bash", denied


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_the_agents_shell_carries_the_marker_memory_cli_refuses_under(agents, agent):
    """memory-cli's weakening commands refuse in a shell whose environment has an agent's marker
    (rules/self_protect.AGENT_MARKERS): each agent really sets one."""
    from memory_cli.rules.self_protect import AGENT_MARKERS

    command = "env | grep -E '^(CLAUDECODE|CODEX_THREAD_ID|CODEX_SANDBOX|GEMINI_CLI)=' || echo none"
    if agent == "codex":
        run = agents.codex("show the environment", [[codex_exec(command)]])
    else:
        run = agents.gemini("show the environment", [[gemini_call("run_shell_command", {"command": command})]])
    assert run.proc.returncode == 0, run.describe()
    output = run.standin.tool_outputs()[0]
    names = {name for name, who in AGENT_MARKERS if who.lower().startswith(agent)}
    assert any(f"{name}=" in output for name in names), output
