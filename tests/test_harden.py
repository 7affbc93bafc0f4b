"""`memory-cli install --harden`: Claude Code's sandbox turned on with memory-cli's state denied
to the agent's shell, shown as a diff, undone exactly by `uninstall`, checked by `doctor`."""

from __future__ import annotations

import json

import pytest
from helpers.cli import run_cli

from memory_cli import authority, harden
from memory_cli.rules.protected_state import targets

pytestmark = pytest.mark.skipif(
    authority.agent_ancestor() is not None,
    reason="run inside a coding agent's process tree: `uninstall` is the person's command and is refused there",
)


@pytest.fixture
def user_settings(claude_dir):
    return claude_dir / "settings.json"


def _sandbox(path) -> dict:
    return json.loads(path.read_text()).get("sandbox", {})


def test_harden_denies_every_protected_path_and_says_what_the_sandbox_also_limits(cli, db_path, user_settings, project):
    r = run_cli("--db", db_path, "install", "--harden", "--no-model", "--no-mcp", cwd=project)
    assert r.returncode == 0, r.stderr
    assert '"denyWrite"' in r.stdout and '"enabled": true' in r.stdout  # the diff shows it
    assert "limit" in r.stderr and "network" in r.stderr and "outside the project" in r.stderr
    sandbox = _sandbox(user_settings)
    assert sandbox["enabled"] is True and sandbox["allowUnsandboxedCommands"] is False
    write, read = sandbox["filesystem"]["denyWrite"], sandbox["filesystem"]["denyRead"]
    # everything the self-protection list knows, the hook code, the project's settings files
    for t in targets(str(db_path)):
        assert t.path in write or any(t.path.startswith(d + "/") for d in write), t.path
    import memory_cli

    assert str(__import__("os").path.dirname(memory_cli.__file__)) in write
    assert str(project / ".claude" / "settings.json") in write and "./.claude/settings.local.json" in write
    assert str(db_path) in read and str(db_path) + "-wal" in read
    # the hooks are registered in the same write, and the person's store stays readable to them
    assert "hook PreToolUse" in user_settings.read_text()


def test_uninstall_takes_out_exactly_what_harden_added(cli, db_path, user_settings, project):
    mine = {
        "sandbox": {
            "network": {"allowLocalBinding": True},
            "filesystem": {"denyRead": ["/home/u/.ssh"]},
            "enabled": True,
        },
        "model": "opus",
    }
    user_settings.write_text(json.dumps(mine))
    for _ in range(2):  # a second --harden changes nothing and records nothing twice
        r = run_cli("--db", db_path, "install", "--harden", "--no-model", "--no-mcp", cwd=project)
        assert r.returncode == 0, r.stderr
    assert "already installed" in r.stdout
    assert _sandbox(user_settings)["filesystem"]["denyRead"][0] == "/home/u/.ssh"
    r = run_cli("--db", db_path, "uninstall", cwd=project)
    assert r.returncode == 0, r.stderr
    assert json.loads(user_settings.read_text()) == mine
    assert not __import__("os").path.exists(harden.record_file())


def test_uninstall_without_harden_leaves_a_persons_own_sandbox_alone(cli, db_path, user_settings, project):
    mine = {"sandbox": {"enabled": True, "filesystem": {"denyWrite": ["/srv"]}}}
    user_settings.write_text(json.dumps(mine))
    assert run_cli("--db", db_path, "install", "--no-model", "--no-mcp", cwd=project).returncode == 0
    assert run_cli("--db", db_path, "uninstall", cwd=project).returncode == 0
    assert json.loads(user_settings.read_text()) == mine


def test_harden_is_for_claude_code_only(cli, db_path):
    r = run_cli("--db", db_path, "install", "--harden", "--agent", "codex", "--no-model")
    assert r.returncode == 2 and "docs/trust.md" in r.stderr


def _doctor_sandbox(db_path, project) -> dict:
    r = run_cli("--db", db_path, "doctor", "--json", cwd=project, process=True, timeout=300)
    return next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "sandbox")


def test_doctor_recommends_harden_where_off_and_checks_it_where_on(cli, db_path, user_settings, project):
    assert run_cli("--db", db_path, "install", "--no-model", "--no-mcp", cwd=project).returncode == 0
    off = _doctor_sandbox(db_path, project)
    assert off["status"] == "ok" and "install --harden" in off["detail"]
    assert run_cli("--db", db_path, "install", "--harden", "--no-model", "--no-mcp", cwd=project).returncode == 0
    on = _doctor_sandbox(db_path, project)
    if harden.missing_programs():
        assert on["status"] == "fail" and "bwrap" in on["detail"] + "socat"
        return
    assert on["status"] == "ok" and on["detail"].startswith("on:")
    # an entry taken out by hand, and the way out of the sandbox reopened
    data = json.loads(user_settings.read_text())
    data["sandbox"]["filesystem"]["denyRead"].remove(str(db_path))
    data["sandbox"]["allowUnsandboxedCommands"] = True
    user_settings.write_text(json.dumps(data))
    broken = _doctor_sandbox(db_path, project)
    assert broken["status"] == "warn"
    assert "allowUnsandboxedCommands" in broken["detail"] and str(db_path) in broken["detail"]


def test_doctor_fails_a_sandbox_that_cannot_run(monkeypatch, db_path, user_settings, claude_dir):
    user_settings.write_text(json.dumps({"sandbox": {"enabled": True}}))
    monkeypatch.setattr(harden, "missing_programs", lambda: ["bwrap", "socat"])

    class S:
        path = str(db_path)

    [check] = harden.doctor_checks(S(), {})
    assert check["status"] == "fail" and "bwrap and socat not installed" in check["detail"]
