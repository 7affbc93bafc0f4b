"""Shared fixtures: every test runs against a real SQLite file in its own temporary Claude
configuration directory, and hooks run through the real installed entry point with payloads
shaped exactly like Claude Code's (shared/reference/claude-code-hooks.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli import run_cli
from helpers.hooks import run_hook


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """No test may touch the real ~/.claude: config dir, HOME and project are all temporary."""
    home = tmp_path / "home"
    claude = home / ".claude"
    claude.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    for var in (
        "MEMORY_CLI_DB",
        "MEMORY_CLI_CONFIG",
        "CLAUDE_PROJECT_DIR",
        "MEMORY_CLI_BUDGET",
        "MEMORY_CLI_HOOK_DEBUG",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDECODE",  # the agents' markers: tests run the CLI as the person, even from an agent
        "CODEX_THREAD_ID",
        "CODEX_SANDBOX",
        "GEMINI_CLI",
    ):
        monkeypatch.delenv(var, raising=False)
    # SessionStart starts the embedding daemon; tests that want one turn this back on.
    monkeypatch.setenv("MEMORY_CLI_DAEMON_AUTOSTART", "0")
    return claude


@pytest.fixture
def claude_dir(isolated_env) -> Path:
    return isolated_env


@pytest.fixture
def detector_speaks(claude_dir) -> None:
    """The hook tells the agent of its own detections ("Recorded correction: ...") only when the
    agent is not recording lessons itself: turn ``capture.agent_lessons`` off for a test that
    reads that line."""
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def store(db_path):
    from memory_cli.store.db import Store

    s = Store.open(db_path)
    yield s
    s.close()


@pytest.fixture
def project(tmp_path) -> Path:
    """A git-looking project directory named 'whisperclick'."""
    p = tmp_path / "work" / "whisperclick"
    (p / ".git").mkdir(parents=True)
    (p / "src").mkdir()
    return p


@pytest.fixture
def cli(db_path):
    def _run(*args, **kw):
        kw.setdefault("db", db_path)
        return run_cli(*args, **kw)

    return _run


@pytest.fixture
def hook(db_path):
    """Run a hook against ``db_path``, created first as `memory-cli install` does (the gate
    refuses every call while the store is missing)."""

    def _run(event, body, **kw):
        kw.setdefault("db", db_path)
        if kw["db"] == db_path and not db_path.exists():
            from memory_cli.store.db import Store

            Store.open(db_path).close()
        return run_hook(event, body, **kw)

    return _run


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL server for the session, with the team roles and three members' logins."""
    from helpers.pgserver import ADMIN_PASSWORD, PASSWORDS, PgServer

    server = PgServer().init().start()
    try:
        from memory_cli.team import api

        api.init(server.url(password=ADMIN_PASSWORD))  # creates the cluster-wide team roles
        for user, pw in PASSWORDS.items():
            server.sql(f"CREATE ROLE {user} LOGIN PASSWORD '{pw}'")
        server.sql("GRANT memory_cli_member TO alice, carol")
        server.sql("GRANT memory_cli_maintainer TO bob")
        yield server
    finally:
        server.destroy()


@pytest.fixture
def team(pg, tmp_path, monkeypatch):
    """A fresh team database on the shared server, and the members' passwords in a pgpass file
    (the documented way: memory-cli never stores a password)."""
    import uuid

    from helpers.pgserver import ADMIN_PASSWORD, PASSWORDS, Team

    name = "t_" + uuid.uuid4().hex[:10]
    pg.sql(f"CREATE DATABASE {name}")
    passfile = tmp_path / "pgpass"
    passfile.write_text(
        "".join(f"127.0.0.1:{pg.port}:*:{u}:{p}\n" for u, p in PASSWORDS.items())
        + f"127.0.0.1:{pg.port}:*:postgres:{ADMIN_PASSWORD}\n"
    )
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    r = run_cli("team", "init", pg.url(db=name))
    assert r.returncode == 0, r.stderr
    return Team(pg, name, tmp_path)
