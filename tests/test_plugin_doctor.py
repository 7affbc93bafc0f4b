"""`memory-cli doctor` as a plugin user runs it: through the plugin's own command line, right
after the plugin's hooks ran. The plugin registers its hooks (hooks.json) and MCP server
(plugin.json) itself, so doctor must recognise them and never advise `memory-cli install`
(which would run every hook twice)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLUGIN_ROOT = REPO / "plugin"


def prepared_data_dir(tmp_path: Path) -> Path:
    """A CLAUDE_PLUGIN_DATA whose environment is complete, as `plugin/bin/run` leaves it after
    both stages: here a virtual environment sharing this checkout's installed packages."""
    data = tmp_path / "plugin-data"
    env = data / "env-1"
    (env / "bin").mkdir(parents=True)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", env / "pyvenv.cfg")
    os.symlink(os.path.realpath(sys.executable), env / "bin" / "python")
    os.symlink(Path(sys.prefix) / "lib", env / "lib")
    shutil.copy(PLUGIN_ROOT / "requirements.txt", env / ".requirements")
    os.symlink("env-1", data / "env")
    # the second stage's last step: the plugin folder's bytecode
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(PLUGIN_ROOT / "memory_cli")], check=True)
    return data


def plugin_env(claude_dir: Path, data: Path) -> dict:
    return dict(
        os.environ,
        CLAUDE_PLUGIN_ROOT=str(PLUGIN_ROOT),
        CLAUDE_PLUGIN_DATA=str(data),
        CLAUDE_CONFIG_DIR=str(claude_dir),
    )


def test_doctor_recognises_the_plugins_hooks_and_mcp_server(claude_dir, tmp_path):
    data = prepared_data_dir(tmp_path)
    env = plugin_env(claude_dir, data)
    body = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}
    started = subprocess.run(
        ["sh", str(PLUGIN_ROOT / "bin" / "run"), "hook", "SessionStart"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert started.returncode == 0, started.stderr
    r = subprocess.run(
        ["sh", str(PLUGIN_ROOT / "bin" / "run"), "run-cli", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    advice = [c for c in checks.values() if "memory-cli install`" in c["detail"] and c["status"] != "ok"]
    assert advice == [], advice
    assert checks["hooks (plugin)"]["status"] == "ok", checks["hooks (plugin)"]
    assert checks["mcp server"]["status"] == "ok", checks["mcp server"]
    assert "by the plugin" in checks["mcp server"]["detail"]
    assert "the plugin's command" in checks["hook latency"]["detail"]  # timed as Claude Code runs it
    assert [c for c in checks.values() if c["status"] != "ok"] == []  # a correct install: no warning


def test_doctor_warns_when_the_plugin_and_a_settings_file_both_register(cli, claude_dir, tmp_path):
    """The plugin found in Claude Code's record of installed plugins (doctor run from another
    route), and the hooks also in settings.json: the warning says how to drop the second copy."""
    plugins = claude_dir / "plugins"
    plugins.mkdir()
    (plugins / "installed_plugins.json").write_text(
        json.dumps({"version": 2, "plugins": {"memory-cli@memory-cli": [{"installPath": str(PLUGIN_ROOT)}]}})
    )
    cli("install", "--no-model")
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--no-timing", "--json").stdout)["checks"]}
    assert checks["hooks (plugin)"]["status"] == "warn"
    assert "runs twice" in checks["hooks (plugin)"]["detail"]
    assert "memory-cli uninstall" in checks["hooks (plugin)"]["detail"]
