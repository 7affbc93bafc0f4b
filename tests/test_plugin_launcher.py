"""plugin/bin/run, the plugin's launcher: it runs only an environment that is the person's own,
asks rather than lets a tool call through unchecked, and pins the person's config."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

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


def _hooks_json_run(event: str, data: Path, body: dict, env: dict | None = None) -> subprocess.CompletedProcess:
    """EVENT's hook as plugin/hooks/hooks.json declares it, started the way Claude Code starts an
    exec-form hook: the program and its arguments, plugin placeholders substituted in each, no
    shell in between."""
    [group] = json.loads((ROOT / "plugin" / "hooks" / "hooks.json").read_text())["hooks"][event]
    [handler] = group["hooks"]
    root, where = str(ROOT / "plugin"), str(data)

    def sub(s: str) -> str:
        return s.replace("${CLAUDE_PLUGIN_ROOT}", root).replace("${CLAUDE_PLUGIN_DATA}", where)

    argv = [sub(handler["command"]), *map(sub, handler["args"])]
    full = dict(os.environ, CLAUDE_PLUGIN_ROOT=root, CLAUDE_PLUGIN_DATA=where, **(env or {}))
    return subprocess.run(argv, input=json.dumps(body), capture_output=True, text=True, env=full, timeout=60)


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
    data, ran = _plugin_data(tmp_path)
    proc = _hooks_json_run("PreToolUse", data, FORCE_PUSH, {"MEMORY_CLI_DB": str(tmp_path / "empty.db")})
    assert _decision(proc) == "deny", proc.stdout + proc.stderr
    assert ran.exists()


def test_a_group_writable_plugin_environment_is_refused_loudly(tmp_path):
    data, ran = _plugin_data(tmp_path)
    data.chmod(0o770)
    proc = _run("PreToolUse", data, FORCE_PUSH)
    assert _decision(proc) == "ask" and "writable by other users" in proc.stdout, proc.stdout
    start = _run("SessionStart", data, payload("SessionStart"))
    assert "refusing to run the environment" in json.loads(start.stdout)["systemMessage"]
    assert not ran.exists()


@pytest.mark.parametrize("writable", ["data folder", "environment"])
def test_every_tool_call_refuses_an_environment_others_can_write(tmp_path, writable):
    """The per-tool-call hooks as Claude Code runs them (hooks.json) check who may write into the
    data folder and into the environment it links to, not only who owns the data folder."""
    data, ran = _plugin_data(tmp_path)
    (data if writable == "data folder" else data / "env-1-1").chmod(0o777)
    for event in ("PreToolUse", "PostToolUse"):
        proc = _hooks_json_run(event, data, payload(event, tool_input={"command": "git push --force origin main"}))
        assert proc.returncode == 0 and "writable by other users" in proc.stdout, proc.stdout + proc.stderr
    assert _decision(_hooks_json_run("PreToolUse", data, FORCE_PUSH)) == "ask"
    assert not ran.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_plugin_environment_owned_by_another_user_is_refused_loudly(tmp_path):
    data, ran = _plugin_data(tmp_path)
    os.chown(data / "env-1-1", 4242, 4242)
    proc = _run("PreToolUse", data, FORCE_PUSH)
    assert _decision(proc) == "ask" and "belongs to another user (uid 4242)" in proc.stdout, proc.stdout
    assert not ran.exists()
    # The per-tool-call hook of hooks.json, with the whole data folder given away.
    os.chown(data, 4242, 4242)
    proc = _hooks_json_run("PreToolUse", data, FORCE_PUSH)
    assert _decision(proc) == "ask" and "belongs to another user (uid 4242)" in proc.stdout, proc.stdout
    assert not ran.exists()


def test_with_no_environment_a_tool_call_is_asked_not_let_through(tmp_path):
    data = tmp_path / "plugin-data"
    data.mkdir(mode=0o700)
    for _ in range(2):  # every call, not only the first
        proc = _hooks_json_run("PreToolUse", data, FORCE_PUSH)
        assert proc.returncode == 0 and _decision(proc) == "ask", proc.stdout
        assert "not ready" in json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]


def test_the_environment_is_made_private_whatever_the_umask(tmp_path):
    """With umask 002 (one group per user) the environment would come out group-writable, and
    then be refused by the launcher's own check: every tool call asked."""
    data = tmp_path / "plugin-data"
    base = tmp_path / "base-python"
    # A stand-in for the base Python: `-m venv DIR` makes DIR/bin/python (this run's Python),
    # `-m pip ...` succeeds without installing anything, anything else runs the real one.
    base.write_text(
        "#!/bin/sh\n"
        'if [ "$1 $2" = "-m venv" ]; then shift 2; [ "$1" = --without-pip ] && shift;'
        f' mkdir -p "$1/bin" && ln -s "{sys.executable}" "$1/bin/python"; exit; fi\n'
        '[ "$1 $2" = "-m pip" ] && exit 0\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    base.chmod(0o755)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists())
    proc = subprocess.run(
        ["sh", "-c", 'umask 002 && exec sh "$0" hook SessionStart', str(RUN)],
        input=json.dumps(payload("SessionStart")),
        capture_output=True,
        text=True,
        env=dict(
            os.environ,
            PATH=path,
            MEMORY_CLI_PYTHON=str(base),
            CLAUDE_PLUGIN_ROOT=str(ROOT / "plugin"),
            CLAUDE_PLUGIN_DATA=str(data),
        ),
        timeout=120,
    )
    made = [p for p in data.glob("env-*") if p.is_dir()]
    assert made, proc.stdout + proc.stderr + (data / "prepare.log").read_text()
    for folder in [data, *made]:
        assert folder.stat().st_mode & 0o022 == 0, oct(folder.stat().st_mode)
    assert "refusing" not in proc.stdout, proc.stdout
    assert _decision(_hooks_json_run("PreToolUse", data, FORCE_PUSH)) != "ask"
