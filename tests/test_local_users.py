"""What another local user, or a repository's settings, could do to the person's gate and
dashboard: a token file others can read, a token used from another account, a login lockout
another user triggers, and HOME/CODEX_HOME moved by a repository's settings `env`."""

from __future__ import annotations

import json
import os
import pwd

import pytest
from helpers.cli import run_cli
from helpers.hooks import payload, run_hook
from helpers.store import add_rule


def test_serve_refuses_a_token_file_others_can_read(db_path, tmp_path):
    tok = tmp_path / "tok"
    tok.write_text("a-token-of-twenty-four-chars\n")
    tok.chmod(0o644)
    r = run_cli("serve", "--token-file", str(tok), "--port", "0", db=db_path)
    assert r.returncode == 2, r.stderr
    assert f"chmod 600 {tok}" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    tok.chmod(0o640)
    assert run_cli("serve", "--token-file", str(tok), "--port", "0", db=db_path).returncode == 2


fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from memory_cli.web import peer  # noqa: E402
from memory_cli.web.app import ServerConfig, create_app  # noqa: E402

TOKEN = "test-token-0123456789abcdef"
ME, OTHER = os.getuid(), os.getuid() + 1000


@pytest.fixture
def two_users(db_path, monkeypatch):
    """Loopback clients: port 40001 is the person's process, port 40002 another user's."""
    from memory_cli.store.db import Store

    Store.open(db_path).close()
    monkeypatch.setattr(peer, "owner", lambda client, server: {40001: ME, 40002: OTHER}.get(int(client[1])))
    monkeypatch.setattr(peer, "readable", lambda: True)
    peer._cache.clear()
    app = create_app(ServerConfig(db_path=str(db_path), token=TOKEN, extra_hosts=("testserver",)))
    mine = TestClient(app, client=("127.0.0.1", 40001))
    theirs = TestClient(app, client=("127.0.0.1", 40002))
    with mine, theirs:
        yield mine, theirs


def test_another_users_bad_logins_do_not_lock_the_person_out(two_users):
    mine, theirs = two_users
    for i in range(12):
        r = theirs.get("/api/memories", headers={"Authorization": f"Bearer wrong-token-{i:016d}"})
        assert r.status_code in (401, 403, 429)
    ok = mine.get("/api/memories", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200, ok.text


def test_the_persons_own_bad_logins_still_lock_them_for_a_minute(two_users):
    mine, _ = two_users
    for i in range(10):
        assert mine.get("/api/memories", headers={"Authorization": f"Bearer wrong-{i:020d}"}).status_code == 401
    r = mine.get("/api/memories", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 429 and "too many failed logins" in r.json()["detail"]


def test_the_bearer_token_works_only_from_the_persons_account(two_users):
    _, theirs = two_users
    r = theirs.get("/api/memories", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 403


# -- a repository's settings `env` moving HOME / CODEX_HOME -------------------------------------------
@pytest.mark.parametrize("var", ["HOME", "CODEX_HOME"])
def test_home_moved_by_a_repositorys_env_still_protects_the_native_copies(db_path, tmp_path, var):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    real = pwd.getpwuid(os.getuid()).pw_dir
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command in (f"rm -f {real}/.codex/rules/memory-cli.rules", f"rm -rf {real}/.gemini/policies"):
        body = payload("PreToolUse", tool_name="Bash", tool_input={"command": command})
        r = run_hook("PreToolUse", body, db=db_path, env={var: str(elsewhere)})
        assert r.decision == "ask", (var, command, json.dumps(r.json))
