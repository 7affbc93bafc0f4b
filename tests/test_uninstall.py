"""`memory-cli uninstall` as a person reads it: one readable diff and one backup per file it
changed, no file left behind that install created and that holds nothing else, the embedding
daemon stopped, and where the memories and rules are kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.cli import run_cli
from helpers.store import add_rule
from test_daemon import NO_MODEL, _daemon_pids, _wait

from memory_cli.daemon import client, control, protocol

# The person's own settings, minified on one line with no final newline, as some editors save it.
THEIRS = '{"model":"opus","permissions":{"allow":["Bash(git status)"]}}'


def _ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r


def _backups(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}.bak-*"))


def test_one_diff_and_one_backup_per_file_when_several_parts_wrote_it(claude_dir, db_path):
    settings = claude_dir / "settings.json"
    settings.write_text(THEIRS)
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "claude", "--write", db=db_path))  # the native deny entries
    _ok(run_cli("install", "--no-model", db=db_path))  # and the hooks, in the same file
    assert "Bash(git push --force:*)" in settings.read_text()
    before = set(_backups(claude_dir, "settings.json"))

    out = _ok(run_cli("uninstall", db=db_path)).stdout
    assert out.count(f"--- {settings} (before)") == 1, out
    # Every message starts its own line: no diff line runs into the next message.
    lines = out.splitlines()
    assert any(ln.startswith(f"uninstalled from {settings} (previous file backed up to ") for ln in lines), out
    assert all(ln[:1] in "+- @\\" or ln.startswith(("uninstalled", "removed", "stopped", "memory-cli")) for ln in lines)
    new = set(_backups(claude_dir, "settings.json")) - before
    assert len(new) == 1, new
    # The one backup is the file as it was before this command, and the file is the person's again.
    assert "Bash(git push --force:*)" in next(iter(new)).read_text()
    assert json.loads(settings.read_text()) == json.loads(THEIRS)


def test_files_install_created_go_and_the_persons_files_stay(claude_dir, db_path, project):
    claude_json = claude_dir / ".claude.json"
    _ok(run_cli("install", "--no-model", db=db_path))
    _ok(run_cli("install", "--no-model", "--scope", "project", db=db_path, cwd=project))
    assert (claude_dir / "settings.json").exists() and claude_json.exists()
    assert (project / ".claude" / "settings.json").exists() and (project / ".mcp.json").exists()

    out = _ok(run_cli("uninstall", db=db_path)).stdout
    assert not (claude_dir / "settings.json").exists() and not claude_json.exists()
    assert f"removed {claude_json}: memory-cli created it and nothing else was in it" in out
    assert not _backups(claude_dir, "settings.json") and not _backups(claude_dir, ".claude.json")
    _ok(run_cli("uninstall", "--scope", "project", db=db_path, cwd=project))
    # The project's .claude folder, made by install for its settings file, goes with it.
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()

    # A file the person had stays, minus memory-cli's entries, even when nothing else is left.
    (claude_dir / "settings.json").write_text("{}\n")
    claude_json.write_text(json.dumps({"numStartups": 3}))
    _ok(run_cli("install", "--no-model", db=db_path))
    _ok(run_cli("uninstall", db=db_path))
    assert json.loads((claude_dir / "settings.json").read_text()) == {}
    assert json.loads(claude_json.read_text())["numStartups"] == 3
    # Claude Code wrote into a file install had created: it stays, without memory-cli's part.
    claude_json.unlink()
    _ok(run_cli("install", "--no-model", db=db_path))
    data = json.loads(claude_json.read_text())
    claude_json.write_text(json.dumps({**data, "numStartups": 1}))
    _ok(run_cli("uninstall", db=db_path))
    assert json.loads(claude_json.read_text()) == {"numStartups": 1}


def test_uninstall_says_where_the_store_is_kept_and_keeps_it(claude_dir, db_path):
    _ok(run_cli("add", "Run the tests with pytest -q", db=db_path))
    _ok(run_cli("install", "--no-model", db=db_path))
    out = _ok(run_cli("uninstall", db=db_path)).stdout
    assert f"your memories and rules are kept in {db_path.resolve()}" in out
    assert f"delete {db_path.resolve().parent}" in out
    assert "pytest -q" in _ok(run_cli("list", db=db_path)).stdout


@pytest.fixture
def rundir(claude_dir):
    rd = os.path.abspath(protocol.run_dir())
    yield rd
    control.stop(rd, timeout_s=5)
    assert _wait(lambda: not _daemon_pids(rd), 5), "a daemon survived the test"


def test_uninstall_stops_the_embedding_daemon(db_path, rundir):
    _ok(run_cli("install", "--no-model", db=db_path))
    control.start(model=NO_MODEL, idle_timeout_s=60, rundir=rundir)
    assert _wait(lambda: client.ping(1000, protocol.socket_path(rundir))), "daemon never answered"
    pid = _daemon_pids(rundir)[0]
    out = _ok(run_cli("uninstall", db=db_path)).stdout
    assert f"stopped the embedding daemon (pid {pid})" in out
    assert _wait(lambda: not _daemon_pids(rundir), 5)


def test_a_long_settings_file_comes_back_whole_after_install_native_and_uninstall(claude_dir, db_path):
    """The bytes kept from before the native copy's first write are checked before they are
    written back: the store cuts a long text, and a cut copy would replace the person's settings
    with a preview of them."""
    settings = claude_dir / "settings.json"
    theirs = {"model": "opus", "permissions": {"allow": [f"Bash(make target-{i})" for i in range(300)]}}
    settings.write_text(json.dumps(theirs, indent=2))
    assert len(settings.read_text()) > 8000
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("install", "--no-model", "--native", db=db_path))
    assert "Bash(git push --force:*)" in settings.read_text()
    _ok(run_cli("uninstall", db=db_path))
    assert json.loads(settings.read_text()) == theirs


def test_codex_files_install_created_go_with_the_folder_it_made(claude_dir, db_path, tmp_path, monkeypatch):
    codex = tmp_path / "fresh" / ".codex"  # no Codex folder yet: install makes it
    monkeypatch.setenv("CODEX_HOME", str(codex))
    _ok(run_cli("install", "--agent", "codex", "--no-model", db=db_path))
    assert (codex / "hooks.json").exists() and (codex / "config.toml").exists()
    out = _ok(run_cli("uninstall", "--agent", "codex", db=db_path)).stdout
    assert f"removed {codex / 'config.toml'}: memory-cli created it and nothing else was in it" in out
    assert not codex.exists()
    # Codex's own files in the folder keep it (and themselves) in place.
    _ok(run_cli("install", "--agent", "codex", "--no-model", db=db_path))
    (codex / "auth.json").write_text("{}")
    _ok(run_cli("uninstall", "--agent", "codex", db=db_path))
    assert sorted(p.name for p in codex.iterdir()) == ["auth.json"]
