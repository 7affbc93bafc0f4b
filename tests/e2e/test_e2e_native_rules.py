"""The second line of defence: with every hook off, the exported native rule alone stops the call.

memory-cli is installed into Claude Code, Codex CLI and Gemini CLI as a person would, a
confirmed block rule on ``git push --force`` is written natively (``rules export --to AGENT
--write``), and then each agent runs with its hooks switched off (Claude Code
``disableAllHooks``, Codex ``--disable hooks``, Gemini ``hooksConfig.enabled = false``). The
scripted model tries the forbidden push and then a look-alike (``git push origin main``): the
first never runs, the second does, so the native rule is not wider than memory-cli's. No hook
call reaches memory-cli's audit log during these runs: the native rule did it alone.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from .agent_standins import CodexStandIn, GeminiStandIn, codex_exec, gemini_call
from .sessions import _check_no_hook_failures, _make_home
from .standin import bash
from .test_e2e_agents import _SCRUB, agent_bins  # noqa: F401  (the fixture)

pytestmark = pytest.mark.e2e

FORCE = "git push --force origin main; touch forced.txt"
FORCE_F = "git push -f origin main; touch forced-f.txt"  # git's own short spelling, exported too
LOOKALIKE = "git push origin main; touch lookalike.txt"


@pytest.fixture(scope="module")
def home(claude_bin, agent_bins, tmp_path_factory):  # noqa: F811
    h = _make_home(tmp_path_factory.mktemp("e2e-native"), claude_bin)
    for agent in ("codex", "gemini"):
        h.cli("install", "--agent", agent, "--no-mcp")
    h.cli("rules", "add", "Never force-push", "--pattern", "git push --force", "-T", "command", "-a", "block")
    for agent in ("claude", "codex", "gemini"):
        h.cli("rules", "export", "--to", agent, "--write")
    # Every hook off, in each agent's own way.
    settings = json.loads((h.claude_dir / "settings.json").read_text())
    settings["disableAllHooks"] = True
    (h.claude_dir / "settings.json").write_text(json.dumps(settings, indent=2))
    gemini = h.home / ".gemini" / "settings.json"
    data = json.loads(gemini.read_text())
    data["security"] = {"auth": {"selectedType": "gemini-api-key"}}
    data["hooksConfig"] = {"enabled": False}
    gemini.write_text(json.dumps(data, indent=2))
    h.bins = agent_bins
    yield h
    _check_no_hook_failures(h)


def _hook_calls(home) -> int:
    return len(home.cli_json("audit", "--action", "hook", "--limit", "10000"))


def _clean(home):
    for name in ("forced.txt", "forced-f.txt", "lookalike.txt"):
        (home.project / name).unlink(missing_ok=True)


def _agent_env(home, extra: dict) -> dict:
    env = {k: v for k, v in home.env().items() if not k.startswith(_SCRUB)}
    env.update(extra)
    return env


def test_claude_code_with_hooks_disabled_denies_the_force_push_from_its_permissions_alone(home):
    _clean(home)
    assert "Bash(git push --force:*)" in json.dumps(home.settings()["permissions"]["deny"])
    calls = _hook_calls(home)
    run = home.run_session("push it", [bash(FORCE), bash(FORCE_F), bash(LOOKALIKE)])
    assert run.returncode == 0, run.describe()
    assert not run.hook_responses(), run.describe()
    assert not (home.project / "forced.txt").exists(), run.describe()
    assert not (home.project / "forced-f.txt").exists(), run.describe()
    assert (home.project / "lookalike.txt").exists(), run.describe()
    denied = run.tool_results()[0]
    assert denied["is_error"] and "denied" in denied["text"], run.describe()
    assert _hook_calls(home) == calls


def test_codex_with_hooks_disabled_forbids_the_force_push_from_its_rules_file_alone(home):
    _clean(home)
    rules = home.home / ".codex" / "rules" / "memory-cli.rules"
    check = subprocess.run(
        [str(home.bins["codex"]), "execpolicy", "check", "--rules", str(rules), "git", "push", "--force"],
        capture_output=True,
        text=True,
        env=_agent_env(home, {}),
        timeout=60,
    )
    assert json.loads(check.stdout)["decision"] == "forbidden", check.stderr
    calls = _hook_calls(home)
    with CodexStandIn([[codex_exec(FORCE)], [codex_exec(FORCE_F)], [codex_exec(LOOKALIKE)]]) as standin:
        config = home.home / ".codex" / "config.toml"
        config.write_text(
            'model = "gpt-5.5"\nmodel_provider = "standin"\n[model_providers.standin]\n'
            f'name = "standin"\nbase_url = "{standin.url}/v1"\nwire_api = "responses"\n'
        )
        cmd = [
            str(home.bins["codex"]),
            "exec",
            "--disable",
            "hooks",
            "--dangerously-bypass-approvals-and-sandbox",
            "--skip-git-repo-check",
            "push it",
        ]
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=_agent_env(home, {}),
            cwd=str(home.project),
            stdin=subprocess.DEVNULL,
            timeout=180,
            check=False,
        )
    describe = f"rc={proc.returncode}\n{proc.stderr[-2000:]}\noutputs: {standin.tool_outputs()}"
    assert proc.returncode == 0, describe
    assert not (home.project / "forced.txt").exists(), describe
    assert not (home.project / "forced-f.txt").exists(), describe
    assert (home.project / "lookalike.txt").exists(), describe
    assert "rejected: Never force-push" in standin.tool_outputs()[0], describe  # the justification
    assert _hook_calls(home) == calls


def test_gemini_with_hooks_disabled_denies_the_force_push_from_its_policy_alone(home):
    _clean(home)
    calls = _hook_calls(home)
    script = [
        [gemini_call("run_shell_command", {"command": FORCE})],
        [gemini_call("run_shell_command", {"command": FORCE_F})],
        [gemini_call("run_shell_command", {"command": LOOKALIKE})],
    ]
    with GeminiStandIn(script) as standin:
        env = _agent_env(
            home,
            {
                "GOOGLE_GEMINI_BASE_URL": standin.url,
                "GEMINI_API_KEY": "e2e-standin",
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
            },
        )
        proc = subprocess.run(
            [str(home.bins["gemini"]), "-m", "gemini-2.5-pro", "--yolo", "-p", "push it"],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(home.project),
            stdin=subprocess.DEVNULL,
            timeout=180,
            check=False,
        )
    describe = f"rc={proc.returncode}\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}\noutputs: {standin.tool_outputs()}"
    assert proc.returncode == 0, describe
    assert not (home.project / "forced.txt").exists(), describe
    assert not (home.project / "forced-f.txt").exists(), describe
    assert (home.project / "lookalike.txt").exists(), describe
    assert "Never force-push" in standin.tool_outputs()[0], describe
    assert _hook_calls(home) == calls
