"""`install --agent codex|gemini` registers memory-cli's MCP server where each agent reads it
(Codex: a marked ``[mcp_servers.memory-cli]`` block in config.toml; Gemini: ``mcpServers`` in
settings.json), with the hooks' guarantees: the person's other settings kept, idempotent, a
dry run writes nothing, uninstall removes exactly ours, a file it cannot read safely is refused."""

from __future__ import annotations

import json

import pytest
import tomllib
from helpers.cli import run_cli

THEIR_CONFIG = (
    "# my Codex settings\n"
    'model = "o3"  # the fast one\n'
    "\n"
    "[mcp_servers.docs]\n"
    'command = "npx"\n'
    'args = ["-y", "docs-server"]\n'
    "\n"
    "[model_providers.local]\n"
    'base_url = "http://127.0.0.1:9/v1"\n'
)


@pytest.fixture
def codex_home(tmp_path, monkeypatch):
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def test_codex_install_adds_the_mcp_server_beside_the_persons_config_and_uninstall_restores_it(codex_home):
    config = codex_home / "config.toml"
    config.write_text(THEIR_CONFIG)
    done = run_cli("install", "--agent", "codex")
    assert done.returncode == 0, done.stderr
    text = config.read_text()
    assert text.startswith(THEIR_CONFIG), text
    data = tomllib.loads(text)
    ours = data["mcp_servers"]["memory-cli"]
    assert ours["args"][-1] == "mcp" and ours["command"].startswith("/") and ours["env"] == {}
    assert "MEMORY_CLI_DB" in ours["env_vars"]  # Codex passes the server only the variables it names
    assert data["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-server"]}
    assert data["model"] == "o3" and data["model_providers"]["local"]["base_url"] == "http://127.0.0.1:9/v1"
    assert "[mcp_servers.memory-cli]" in done.stdout and "backed up" in done.stdout
    assert (codex_home / "hooks.json").exists()

    again = run_cli("install", "--agent", "codex")
    assert f"{config}: already installed; nothing changed" in again.stdout
    assert config.read_text() == text

    gone = run_cli("uninstall", "--agent", "codex")
    assert gone.returncode == 0, gone.stderr
    assert config.read_text() == THEIR_CONFIG


def test_codex_dry_run_shows_the_mcp_block_and_writes_nothing(codex_home):
    config = codex_home / "config.toml"
    config.write_text(THEIR_CONFIG)
    dry = run_cli("install", "--agent", "codex", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+[mcp_servers.memory-cli]" in dry.stdout and f"(dry run: {config} not changed)" in dry.stdout
    assert config.read_text() == THEIR_CONFIG
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml"]


def test_codex_config_that_is_not_valid_toml_is_refused_with_nothing_written(codex_home):
    config = codex_home / "config.toml"
    config.write_text('model = "o3\n[broken\n')
    r = run_cli("install", "--agent", "codex")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "is not valid TOML" in r.stderr and "nothing was changed" in r.stderr
    assert config.read_text() == 'model = "o3\n[broken\n'
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml"]  # no hooks.json either


def test_a_memory_cli_server_the_person_wrote_in_codex_config_is_not_taken_over(codex_home):
    config = codex_home / "config.toml"
    theirs = '[mcp_servers.memory-cli]\ncommand = "/opt/my-memory-cli"\n'
    config.write_text(theirs)
    r = run_cli("install", "--agent", "codex")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "did not write" in r.stderr and "--no-mcp" in r.stderr
    assert config.read_text() == theirs
    assert run_cli("uninstall", "--agent", "codex").returncode == 0
    assert config.read_text() == theirs  # not ours: uninstall leaves it


def test_a_db_path_with_spaces_quotes_and_backslashes_reads_back_through_toml(codex_home, tmp_path):
    folder = tmp_path / 'my "memories" \\ here'
    folder.mkdir()
    db = folder / "store.db"
    assert run_cli("install", "--agent", "codex", db=db).returncode == 0
    ours = tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]["memory-cli"]
    assert ours["args"] == ["--db", str(db.resolve()), "mcp"]


@pytest.mark.parametrize("value", ['a "b" c', "back\\slash", "tab\there", "line\nbreak", "bell\x07\x7f", "ünï €"])
def test_every_string_memory_cli_writes_into_codex_config_reads_back_unchanged(value):
    from memory_cli.mcp.agent_registration import toml_string

    assert tomllib.loads(f"v = {toml_string(value)}\n")["v"] == value


def test_gemini_install_adds_the_mcp_server_to_settings_and_uninstall_removes_only_ours(tmp_path):
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = {"theme": "dark", "mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-server"]}}}
    settings.write_text(json.dumps(theirs))
    dry = run_cli("install", "--agent", "gemini", "--dry-run")
    assert dry.returncode == 0 and '"memory-cli": {' in dry.stdout
    assert json.loads(settings.read_text()) == theirs
    assert run_cli("install", "--agent", "gemini").returncode == 0
    data = json.loads(settings.read_text())
    assert data["mcpServers"]["docs"] == theirs["mcpServers"]["docs"]
    ours = data["mcpServers"]["memory-cli"]
    assert set(ours) == {"command", "args", "env"} and ours["args"][-1] == "mcp"
    assert "already installed" in run_cli("install", "--agent", "gemini").stdout
    assert run_cli("uninstall", "--agent", "gemini").returncode == 0
    assert json.loads(settings.read_text()) == theirs


def test_no_mcp_and_db_are_honoured_for_both_agents(tmp_path, db_path, codex_home):
    assert run_cli("install", "--agent", "codex", "--no-mcp").returncode == 0
    assert (codex_home / "hooks.json").exists() and not (codex_home / "config.toml").exists()
    assert run_cli("install", "--agent", "codex", db=db_path).returncode == 0
    ours = tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]["memory-cli"]
    assert ours["args"] == ["--db", str(db_path.resolve()), "mcp"]
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    assert run_cli("install", "--agent", "gemini", "--no-mcp").returncode == 0
    assert "mcpServers" not in json.loads(settings.read_text())
    assert run_cli("install", "--agent", "gemini", db=db_path).returncode == 0
    args = json.loads(settings.read_text())["mcpServers"]["memory-cli"]["args"]
    assert args == ["--db", str(db_path.resolve()), "mcp"]


def test_doctor_says_per_agent_whether_the_mcp_server_is_registered(codex_home, db_path):
    run_cli("install", "--agent", "codex")
    checks = {c["name"]: c for c in json.loads(run_cli("--json", "doctor", db=db_path).stdout)["checks"]}
    codex = checks["mcp server (codex) (user)"]
    assert codex["status"] == "ok" and str(codex_home / "config.toml") in codex["detail"], codex
    assert "with 10 tools" in codex["detail"], codex  # the registered command started and listed them
    assert "not registered" in checks["mcp server (gemini)"]["detail"]
