"""install/uninstall: idempotent merges that keep every other setting and hook."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from helpers.cli import run_cli
from helpers.hooks import payload

from memory_cli.mcp.permissions import ALLOWED

OTHER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/other-guard", "timeout": 3}]}
        ],
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
    # the recording MCP tools are allowed after what the person allowed (mcp/permissions.py)
    assert data["model"] == "opus" and data["permissions"] == {"allow": [*OTHER["permissions"]["allow"], *ALLOWED]}
    assert data["hooks"]["Notification"] == OTHER["hooks"]["Notification"]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == OTHER["hooks"]["PreToolUse"][0]
    ours = pre[1]["hooks"][0]
    # With the MCP server registered (the default), the running server answers the per-call
    # events, and the gate blocks while it cannot.
    assert ours["type"] == "mcp_tool" and ours["server"] == "memory-cli" and ours["tool"] == "hook"
    assert ours["onFailure"] == "block" and ours["input"]["tool_input"] == "${tool_input}"
    words = shlex.split(data["hooks"]["SessionStart"][0]["hooks"][0]["command"])
    # The lean launcher: this environment's Python, isolated, on the package's launcher script,
    # every path absolute and present.
    assert words[1:3] == ["-I", "-S"] and words[-2:] == ["hook", "SessionStart"]
    assert Path(words[0]).is_absolute() and Path(words[0]).exists()
    assert words[3].endswith("memory_cli/fasthook.py") and Path(words[3]).is_file()
    for i, w in enumerate(words):
        if w == "--path":
            assert Path(words[i + 1]).is_absolute() and Path(words[i + 1]).is_dir()
    assert ours["timeout"] <= 60 and "Bash" in pre[1]["matcher"]
    assert set(data["hooks"]) >= {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PreCompact",
        "Stop",
        "SessionEnd",
    }
    backups = list(claude_dir.glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == OTHER
    again = run_cli("install")
    assert "nothing changed" in again.stdout
    assert json.loads(settings.read_text()) == data
    assert len(list(claude_dir.glob("settings.json.bak-*"))) == 1
    assert run_cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == OTHER


def test_installed_command_really_runs_the_hook(claude_dir):
    run_cli("install", "--no-mcp")  # without the MCP server, the command route
    cmd = json.loads((claude_dir / "settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    body = json.dumps(
        {
            "session_id": "s",
            "cwd": "/tmp",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
    )
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
    r = subprocess.run(
        [sys.executable, str(root / "scripts" / "gen_hooks_json.py"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout
    plugin = json.loads((root / "plugin" / "hooks" / "hooks.json").read_text())
    example = json.loads((root / "hooks.json.example").read_text())
    assert (
        set(plugin["hooks"])
        == set(example["hooks"])
        == {
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "PermissionDenied",
            "PreCompact",
            "Stop",
            "SessionEnd",
        }
    )
    for event, groups in plugin["hooks"].items():
        for h in groups[0]["hooks"]:
            # SessionStart may prepare the plugin's environment on first use
            assert h["type"] == "command" and 1 <= h["timeout"] <= (120 if event == "SessionStart" else 60)


def test_plugin_requirements_and_version_follow_the_project():
    """The plugin's environment is made from plugin/requirements.txt (re-made when it changes):
    it must list every dependency of pyproject.toml, and the plugin's version must be the
    package's, or an update would not be seen as one."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    req = (root / "plugin" / "requirements.txt").read_text().splitlines()
    for dep in project["dependencies"]:
        assert dep.split("#")[0].strip() in req
    manifest = json.loads((root / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((root / ".claude-plugin" / "marketplace.json").read_text())
    assert manifest["version"] == project["version"] == market["plugins"][0]["version"]
    assert market["plugins"][0]["source"] == "./plugin"
    # The plugin folder carries the package and the slash commands (links, followed on copy).
    assert (root / "plugin" / "memory_cli" / "fasthook.py").is_file()
    assert (root / "plugin" / "commands" / "remember.md").is_file()
    assert os.access(root / "plugin" / "bin" / "run", os.X_OK)


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
    from helpers.hooks import run_hook

    run_hook("SessionStart", "{broken", db=db_path)
    data = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)
    errors = [c for c in data["checks"] if c["name"] == "hook errors"][0]
    assert errors["status"] == "warn" and "not valid JSON" in errors["detail"]


def test_a_rule_for_a_tool_outside_the_hook_matcher_is_flagged_and_install_fixes_it(cli):
    assert cli("install").returncode == 0
    r = cli(
        "rules",
        "add",
        "Never fetch the staging admin panel",
        "--pattern",
        "staging-admin",
        "--pattern-type",
        "regex",
        "--tools",
        "WebFetch",
        "--action",
        "block",
    )
    assert r.returncode == 0
    assert "rules for WebFetch will not fire" in r.stderr and "memory-cli install" in r.stderr
    doctor = json.loads(cli("doctor", "--no-timing", "--json").stdout)
    coverage = next(c for c in doctor["checks"] if c["name"] == "rule coverage")
    assert coverage["status"] == "warn" and "WebFetch" in coverage["detail"]

    assert cli("install").returncode == 0  # adds the tools rules name to the matcher
    doctor = json.loads(cli("doctor", "--no-timing", "--json").stdout)
    assert next(c for c in doctor["checks"] if c["name"] == "rule coverage")["status"] == "ok"
    r = cli(
        "rules",
        "add",
        "Never fetch the prod admin panel",
        "--pattern",
        "prod-admin",
        "--pattern-type",
        "regex",
        "--tools",
        "WebFetch",
    )
    assert "will not fire" not in r.stderr


def test_install_registers_the_mcp_server_beside_everything_claude_code_keeps(cli, tmp_path):
    import os

    home_json = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    home_json.write_text(
        json.dumps(
            {
                "numStartups": 7,
                "projects": {"/x": {"allowedTools": []}},
                "mcpServers": {"other": {"type": "stdio", "command": "other-server"}},
            }
        )
    )
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
    assert mcp["status"] == "ok" and "10 tools" in mcp["detail"], mcp


def _registered(claude_dir, event="PreToolUse"):
    data = json.loads((claude_dir / "settings.json").read_text())
    return [h["command"] for g in data["hooks"][event] for h in g["hooks"]]


def test_both_entries_decide_alike_and_reinstall_switches_entry(claude_dir, db_path):
    """The lean launcher and the console script give the same answers; installing one after
    the other leaves exactly one memory-cli handler per event."""
    r = run_cli(
        "rules",
        "add",
        "Never force-push",
        "--pattern",
        "git push --force",
        "--pattern-type",
        "command",
        "--action",
        "block",
        db=db_path,
    )
    assert r.returncode == 0, r.stderr
    body = json.dumps(payload("PreToolUse", tool_input={"command": "git push --force origin main"}))
    answers = {}
    for entry in ("console", "fast"):
        assert run_cli("install", "--entry", entry, "--no-mcp", db=db_path).returncode == 0
        cmds = _registered(claude_dir)
        assert len(cmds) == 1
        assert ("fasthook.py" in cmds[0]) == (entry == "fast")
        proc = subprocess.run(cmds[0], shell=True, input=body, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        answers[entry] = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]
    assert answers == {"console": "deny", "fast": "deny"}
    assert run_cli("install", "--entry", "turbo").returncode == 2


def test_doctor_warns_when_hooks_lose_the_lean_start(claude_dir, db_path):
    run_cli("add", "x", db=db_path)
    run_cli("install", "--entry", "console", db=db_path)
    checks = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)["checks"]
    start = [c for c in checks if c["name"] == "hook start"]
    assert start and start[0]["status"] == "warn" and "memory-cli install" in start[0]["detail"]
    run_cli("install", db=db_path)
    checks = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)["checks"]
    start = [c for c in checks if c["name"] == "hook start"]
    assert [c["status"] for c in start] == ["ok"], start
    # A launcher folder that disappeared (a deleted virtualenv) is a failure with the fix.
    settings = claude_dir / "settings.json"
    text = settings.read_text()
    python = shlex.split(_registered(claude_dir, "SessionStart")[0])[0]
    settings.write_text(text.replace(json.dumps(python)[1:-1], "/nonexistent/bin/python"))
    checks = json.loads(run_cli("doctor", "--json", "--no-timing", db=db_path).stdout)["checks"]
    names = {c["name"]: c for c in checks}
    assert names["hook start"]["status"] == "fail" and "memory-cli install" in names["hook start"]["detail"]


def test_doctor_bytecode_state_follows_the_source(tmp_path):
    import os
    import py_compile

    from memory_cli.hooks.doctor import _bytecode_state

    src = tmp_path / "mod.py"
    src.write_text("X = 1\n")
    assert _bytecode_state(str(src)) == "missing"
    py_compile.compile(str(src), doraise=True)
    assert _bytecode_state(str(src)) == "ok"
    src.write_text("X = 22\n")
    os.utime(src, (src.stat().st_atime, src.stat().st_mtime + 10))
    assert _bytecode_state(str(src)) == "stale"


def test_doctor_rebuilds_a_missing_rule_cache_and_reports_an_unwritable_one(db_path):
    from memory_cli.hooks.doctor import rule_cache_check
    from memory_cli.rules import api, ruleset
    from memory_cli.store.db import Store

    s = Store.open(db_path)
    api.create_rule(s, "no npm", pattern="npm", pattern_type="command", action="warn")
    path = Path(ruleset.cache_path(s))
    ruleset.forget()
    assert not path.exists()
    check = rule_cache_check(s)
    assert check["status"] == "ok" and "1 rules" in check["detail"] and "rebuilt now" in check["detail"]
    assert path.exists()
    assert "rebuilt" not in rule_cache_check(s)["detail"]
    path.unlink()
    path.mkdir()  # the cache file cannot be written: every hook would rebuild the set
    ruleset.forget()
    check = rule_cache_check(s)
    assert check["status"] == "warn" and "every hook rebuilds" in check["detail"]
    s.close()


def test_install_allows_the_recording_tools_shows_it_and_uninstall_takes_exactly_that_back(claude_dir, cli):
    """Recording a lesson must not stop the person with a permission prompt: install allows
    memory-cli's recording tools (shown in its diff), doctor says when they are not allowed,
    and uninstall removes those entries and nothing the person wrote."""
    settings = claude_dir / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(rm:*)"]}}))
    shown = cli("install", "--dry-run", "--no-model").stdout
    assert '+      "mcp__memory-cli__record_correction"' in shown, shown
    assert cli("install", "--no-model").returncode == 0
    data = json.loads(settings.read_text())
    assert data["permissions"]["allow"] == ["Bash(git status)", *ALLOWED]
    assert "mcp__memory-cli__record_correction" in ALLOWED and "mcp__memory-cli__query_memory" not in ALLOWED
    doctor = json.loads(cli("--json", "doctor").stdout)
    rows = doctor if isinstance(doctor, list) else doctor.get("checks", [])
    [check] = [c for c in rows if c.get("name") == "mcp permissions"]
    assert check["status"] == "ok", check
    data["permissions"]["allow"] = ["Bash(git status)"]  # the person took them out
    settings.write_text(json.dumps(data))
    rows = json.loads(cli("--json", "doctor").stdout)
    rows = rows if isinstance(rows, list) else rows.get("checks", [])
    [check] = [c for c in rows if c.get("name") == "mcp permissions"]
    assert check["status"] == "warn" and "record_correction" in check["detail"], check
    cli("install", "--no-model")
    assert cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(rm:*)"]}}
