"""plugin/bin/run, the plugin's launcher: it runs only an environment that is the person's own,
asks rather than lets a tool call through unchecked, and pins the person's config."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import add_rule, payload

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "plugin" / "bin" / "run"
FORCE_PUSH = payload("PreToolUse", tool_input={"command": "git push --force origin main"})


def _plugin_data(tmp_path) -> tuple[Path, Path]:
    """A prepared plugin data folder whose environment's python is this test run's Python
    (a small script, so the test sees whether it ran)."""
    data = tmp_path / "plugin-data"
    env = data / "env-1-1"
    (env / "bin").mkdir(parents=True)
    ran = tmp_path / "python-ran"
    python = env / "bin" / "python"
    python.write_text(f'#!/bin/sh\n: >"{ran}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (data / "env").symlink_to("env-1-1")
    (env / ".requirements").write_bytes((ROOT / "plugin" / "requirements.txt").read_bytes())
    data.chmod(0o700)
    return data, ran


def _run(event: str, data: Path, body: dict, env: dict | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(ROOT / "plugin"), CLAUDE_PLUGIN_DATA=str(data), **(env or {}))
    return subprocess.run(
        ["sh", str(RUN), "hook", event], input=json.dumps(body), capture_output=True, text=True, env=full, timeout=60
    )


def _decision(proc) -> str | None:
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return (out.get("hookSpecificOutput") or {}).get("permissionDecision")


def test_the_plugin_hook_keeps_the_persons_store_whatever_memory_cli_db_says(claude_dir, tmp_path):
    store = claude_dir / "memory" / "memory.db"
    store.parent.mkdir(parents=True, exist_ok=True)
    add_rule(store, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    data, ran = _plugin_data(tmp_path)
    assert _decision(_run("PreToolUse", data, FORCE_PUSH)) == "deny"
    proc = _run("PreToolUse", data, FORCE_PUSH, {"MEMORY_CLI_DB": str(tmp_path / "empty.db")})
    assert _decision(proc) == "deny", proc.stdout + proc.stderr
    assert _decision(_run("PreToolUse", data, FORCE_PUSH, {"MEMORY_CLI_DB": ""})) == "deny"


def test_the_plugins_per_call_commands_pin_the_config_too(claude_dir, tmp_path):
    store = claude_dir / "memory" / "memory.db"
    store.parent.mkdir(parents=True, exist_ok=True)
    add_rule(store, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    data, _ran = _plugin_data(tmp_path)
    hooks = json.loads((ROOT / "plugin" / "hooks" / "hooks.json").read_text())["hooks"]
    command = hooks["PreToolUse"][0]["hooks"][0]["command"]
    env = dict(
        os.environ,
        CLAUDE_PLUGIN_ROOT=str(ROOT / "plugin"),
        CLAUDE_PLUGIN_DATA=str(data),
        MEMORY_CLI_DB=str(tmp_path / "empty.db"),
    )
    proc = subprocess.run(command, shell=True, input=json.dumps(FORCE_PUSH), capture_output=True, text=True, env=env)
    assert _decision(proc) == "deny", proc.stdout + proc.stderr


def test_a_group_writable_plugin_environment_is_refused_loudly(tmp_path):
    data, ran = _plugin_data(tmp_path)
    data.chmod(0o770)
    proc = _run("PreToolUse", data, FORCE_PUSH)
    assert _decision(proc) == "ask" and "writable by other users" in proc.stdout, proc.stdout
    start = _run("SessionStart", data, payload("SessionStart"))
    assert "refusing to run the environment" in json.loads(start.stdout)["systemMessage"]
    assert not ran.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_plugin_environment_owned_by_another_user_is_refused_loudly(tmp_path):
    data, ran = _plugin_data(tmp_path)
    os.chown(data / "env-1-1", 4242, 4242)
    proc = _run("PreToolUse", data, FORCE_PUSH)
    assert _decision(proc) == "ask" and "belongs to another user (uid 4242)" in proc.stdout, proc.stdout
    assert not ran.exists()
    # The per-tool-call command of hooks.json, with the whole data folder given away.
    os.chown(data, 4242, 4242)
    hooks = json.loads((ROOT / "plugin" / "hooks" / "hooks.json").read_text())["hooks"]
    command = hooks["PreToolUse"][0]["hooks"][0]["command"]
    env = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(ROOT / "plugin"), CLAUDE_PLUGIN_DATA=str(data))
    proc = subprocess.run(command, shell=True, input=json.dumps(FORCE_PUSH), capture_output=True, text=True, env=env)
    assert _decision(proc) == "ask" and "belongs to another user (uid 4242)" in proc.stdout, proc.stdout
    assert not ran.exists()


def test_with_no_environment_a_tool_call_is_asked_not_let_through(tmp_path):
    data = tmp_path / "plugin-data"
    data.mkdir(mode=0o700)
    for _ in range(2):  # every call, not only the first
        proc = _run("PreToolUse", data, FORCE_PUSH)
        assert proc.returncode == 0 and _decision(proc) == "ask", proc.stdout
        assert "not ready" in json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
