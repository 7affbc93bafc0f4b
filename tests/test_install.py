"""install/uninstall: idempotent merges that keep every other setting and hook."""

import json
import subprocess
import sys
from pathlib import Path

from conftest import run_cli

OTHER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/other-guard", "timeout": 3}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


def test_install_merges_idempotently_and_uninstall_restores(claude_dir):
    settings = claude_dir / "settings.json"
    settings.write_text(json.dumps(OTHER, indent=2))
    r = run_cli("install", "--dry-run")
    assert r.returncode == 0 and "+" in r.stdout and json.loads(settings.read_text()) == OTHER
    r = run_cli("install")
    assert r.returncode == 0, r.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == OTHER["permissions"]
    assert data["hooks"]["Notification"] == OTHER["hooks"]["Notification"]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == OTHER["hooks"]["PreToolUse"][0]
    ours = pre[1]["hooks"][0]
    exe = ours["command"].split(" hook ")[0]
    assert Path(exe).is_absolute() and Path(exe).exists()
    assert ours["timeout"] <= 60 and "Bash" in pre[1]["matcher"]
    assert set(data["hooks"]) >= {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                                  "PostToolUseFailure", "PreCompact", "Stop", "SessionEnd"}
    backups = list(claude_dir.glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == OTHER
    again = run_cli("install")
    assert "nothing changed" in again.stdout
    assert json.loads(settings.read_text()) == data
    assert len(list(claude_dir.glob("settings.json.bak-*"))) == 1
    assert run_cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == OTHER


def test_installed_command_really_runs_the_hook(claude_dir):
    run_cli("install")
    cmd = json.loads((claude_dir / "settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    body = json.dumps({"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    proc = subprocess.run(cmd, shell=True, input=body, capture_output=True, text=True)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_invalid_settings_file_is_not_touched(claude_dir):
    settings = claude_dir / "settings.json"
    settings.write_text("{ this is: broken")
    r = run_cli("install")
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    assert settings.read_text() == "{ this is: broken"


def test_project_scope_writes_into_the_project(project):
    r = run_cli("install", "--scope", "project", cwd=project / "src")
    assert r.returncode == 0, r.stderr
    assert (project / ".claude" / "settings.json").exists()
    r = run_cli("install", "--scope", "local", cwd=project)
    assert (project / ".claude" / "settings.local.json").exists()


def test_plugin_and_example_files_match_install_table():
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, str(root / "scripts" / "gen_hooks_json.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    plugin = json.loads((root / "hooks" / "hooks.json").read_text())
    example = json.loads((root / "hooks.json.example").read_text())
    assert set(plugin["hooks"]) == set(example["hooks"]) == {
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
        "PreCompact", "Stop", "SessionEnd"}
    for groups in plugin["hooks"].values():
        for h in groups[0]["hooks"]:
            assert h["type"] == "command" and 1 <= h["timeout"] <= 60


def test_doctor_reports_registration_and_latency(claude_dir, db_path):
    run_cli("add", "x", db=db_path)
    r = run_cli("doctor", "--json", db=db_path)
    data = json.loads(r.stdout)
    names = {c["name"]: c for c in data["checks"]}
    assert names["hooks"]["status"] == "warn"
    assert names["database"]["status"] == "ok"
    assert "median" in names["hook latency"]["detail"]
    run_cli("install", db=db_path)
    data = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)
    names = {c["name"]: c for c in data["checks"]}
    assert names["hooks (user)"]["status"] == "ok"


def test_doctor_shows_recent_hook_errors(db_path):
    from conftest import run_hook

    run_hook("PreToolUse", "{broken", db=db_path)
    data = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)
    errors = [c for c in data["checks"] if c["name"] == "hook errors"][0]
    assert errors["status"] == "warn" and "not valid JSON" in errors["detail"]


def test_a_rule_for_a_tool_outside_the_hook_matcher_is_flagged_and_install_fixes_it(cli):
    assert cli("install").returncode == 0
    r = cli("rules", "add", "Never fetch the staging admin panel", "--pattern", "staging-admin",
            "--pattern-type", "regex", "--tools", "WebFetch", "--action", "block")
    assert r.returncode == 0
    assert "rules for WebFetch will not fire" in r.stderr and "memory-cli install" in r.stderr
    doctor = json.loads(cli("doctor", "--no-timing", "--json").stdout)
    coverage = next(c for c in doctor["checks"] if c["name"] == "rule coverage")
    assert coverage["status"] == "warn" and "WebFetch" in coverage["detail"]

    assert cli("install").returncode == 0  # adds the tools rules name to the matcher
    doctor = json.loads(cli("doctor", "--no-timing", "--json").stdout)
    assert next(c for c in doctor["checks"] if c["name"] == "rule coverage")["status"] == "ok"
    r = cli("rules", "add", "Never fetch the prod admin panel", "--pattern", "prod-admin",
            "--pattern-type", "regex", "--tools", "WebFetch")
    assert "will not fire" not in r.stderr


def test_install_registers_the_mcp_server_beside_everything_claude_code_keeps(cli, tmp_path):
    import os

    home_json = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    home_json.write_text(json.dumps({"numStartups": 7, "projects": {"/x": {"allowedTools": []}},
                                     "mcpServers": {"other": {"type": "stdio", "command": "other-server"}}}))
    os.chmod(home_json, 0o600)
    r = cli("install")
    assert r.returncode == 0, r.stderr
    data = json.loads(home_json.read_text())
    entry = data["mcpServers"]["memory-cli"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "mcp" and os.path.isabs(entry["command"])
    assert data["numStartups"] == 7 and data["projects"] == {"/x": {"allowedTools": []}}
    assert data["mcpServers"]["other"] == {"type": "stdio", "command": "other-server"}
    assert oct(home_json.stat().st_mode & 0o777) == "0o600"
    assert list(home_json.parent.glob(".claude.json.bak-*"))  # backed up before the change
    assert "already installed" in cli("install").stdout  # idempotent

    assert cli("uninstall").returncode == 0
    data = json.loads(home_json.read_text())
    assert "memory-cli" not in data["mcpServers"] and data["mcpServers"]["other"]
    assert data["numStartups"] == 7

    assert cli("install", "--no-mcp").returncode == 0
    assert "memory-cli" not in json.loads(home_json.read_text())["mcpServers"]


def test_a_new_claude_json_is_private_and_doctor_starts_the_server(cli):
    import os

    home_json = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    assert cli("install").returncode == 0
    assert oct(home_json.stat().st_mode & 0o777) == "0o600"
    checks = json.loads(cli("doctor", "--no-timing", "--json").stdout)["checks"]
    mcp = next(c for c in checks if c["name"] == "mcp server")
    assert mcp["status"] == "ok" and "9 tools" in mcp["detail"], mcp
