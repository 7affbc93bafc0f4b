"""memory-cli in Claude Code's plugin form (``plugin/``), loaded by the real binary with
--plugin-dir: its hooks run, its slash commands are listed, its MCP server connects."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from .sessions import REPO
from .standin import bash, tool_use

pytestmark = pytest.mark.e2e


def prepared_plugin(folder: Path, home) -> Path:
    """The repository's plugin folder as Claude Code copies it (links followed) into ``folder``,
    with its environment already prepared in the plugin's data folder: an environment whose
    packages are this test run's (``tests/e2e/test_e2e_marketplace.py`` covers preparing a real
    one)."""
    shutil.copytree(REPO / "plugin", folder, symlinks=False)
    data = home.claude_dir / "plugins" / "data" / "memory-cli-inline"
    env = data / "env-test"
    (env / "bin").mkdir(parents=True)
    os.symlink(sys.executable, env / "bin" / "python")
    venv = Path(sys.executable).parent.parent
    (env / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text())
    site = Path(sysconfig.get_paths()["purelib"]).relative_to(venv)
    (env / site).parent.mkdir(parents=True)
    os.symlink(venv / site, env / site)
    shutil.copy(REPO / "plugin" / "requirements.txt", env / ".requirements")
    os.symlink("env-test", data / "env")
    return folder


@pytest.fixture
def plugin_dir(tmp_path, fresh_home):
    return prepared_plugin(tmp_path / "memory-cli-plugin", fresh_home)


def test_the_plugin_loads_its_hooks_commands_and_mcp_server(fresh_home, plugin_dir):
    fresh_home.cli("uninstall")  # only the plugin registers memory-cli in this HOME
    fresh_home.cli("add", "Deploys go through `make deploy`, never kubectl apply", "--type", "rule")
    s = fresh_home.run_session(
        "what do you remember?",
        [
            tool_use("mcp__plugin_memory-cli_memory-cli__query_memory", {"query": "how do deploys work"}),
            "Deploys go through make deploy.",
        ],
        extra_args=["--plugin-dir", str(plugin_dir)],
        allowed_tools="mcp__plugin_memory-cli_memory-cli__query_memory",
    )
    assert s.returncode == 0, s.describe()
    init = next(e for e in s.events if e.get("type") == "system" and e.get("subtype") == "init")
    assert any(p.get("name") == "memory-cli" for p in init.get("plugins", [])), init.get("plugins")
    commands = set(init.get("slash_commands", []))
    assert {"memory-cli:remember", "memory-cli:forget", "memory-cli:memories", "memory-cli:review"} <= commands, (
        commands
    )
    servers = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
    assert servers.get("plugin:memory-cli:memory-cli") in ("connected", "pending"), servers  # still starting
    assert any("make deploy" in c for c in s.first_request.hook_contexts("SessionStart")), s.describe()
    answer = s.main_requests[1].tool_results()[-1]
    assert not answer["is_error"] and "make deploy" in answer["text"], s.describe()


def test_plugin_remember_is_allowed_to_call_the_plugins_own_tool(fresh_home, plugin_dir):
    """In plugin form the server's tools are mcp__plugin_memory-cli_memory-cli__*: /remember's own
    allowed-tools must cover that name, or a plugin-only user is refused (print mode) or asked."""
    fresh_home.cli("uninstall")
    tool = "mcp__plugin_memory-cli_memory-cli__remember"
    s = fresh_home.run_session(
        "/memory-cli:remember the API listens on 8081",
        [tool_use(tool, {"content": "The API listens on port 8081", "type": "fact"}), "Stored."],
        extra_args=["--plugin-dir", str(plugin_dir)],
        allowed_tools="Read",
    )
    assert s.returncode == 0, s.describe()
    assert "the API listens on 8081" in s.first_request.shown_text()  # $ARGUMENTS expanded
    [result] = s.last_request.tool_results()
    assert not result["is_error"], result
    assert [e["content"] for e in fresh_home.cli_json("list")] == ["The API listens on port 8081"]


def force_push_session(home, plugin: Path, marker: str):
    s = home.run_session(
        "push it",
        [bash(f"git push --force origin main || touch {marker}"), "Done."],
        extra_args=["--plugin-dir", str(plugin)],
    )
    assert s.returncode == 0, s.describe()
    assert not (home.project / marker).exists(), "the force-push ran: " + s.describe()
    [result] = s.tool_results()
    return s, result


def test_the_plugins_hooks_run_from_a_folder_whose_name_a_shell_would_misread(fresh_home, tmp_path):
    """The hooks are in exec form (a program and its arguments): the plugin folder's path reaches
    the launcher as one plain argument, whatever quotes, dollars or spaces it holds."""
    fresh_home.cli("uninstall")
    fresh_home.cli("add", "Never force-push", "--type", "rule", "--pattern", "git push --force", "--action", "block")
    plugin = prepared_plugin(tmp_path / 'it\'s a "$HOME" `plugin`', fresh_home)
    s, result = force_push_session(fresh_home, plugin, "pushed")
    assert result["is_error"] and "Blocked by memory-cli" in result["text"], s.describe()
    assert any("Never force-push" in c for c in s.first_request.hook_contexts("SessionStart")), s.describe()


def test_an_environment_others_can_write_is_not_run_and_each_tool_call_is_asked(fresh_home, plugin_dir):
    fresh_home.cli("uninstall")
    data = fresh_home.claude_dir / "plugins" / "data" / "memory-cli-inline"
    (data / "env-test").chmod(0o777)
    s, result = force_push_session(fresh_home, plugin_dir, "pushed")
    assert result["is_error"] and "writable by other users" in result["text"], s.describe()
