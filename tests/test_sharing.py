"""Rules and memories committed with the repository (.claude/memory-cli.toml): shared with
`share`, loaded by teammates' SessionStart and commands when the file changes, never read on
a tool call, and a malformed file changes nothing."""

from __future__ import annotations

import json
import subprocess

import pytest
from helpers.cli import run_cli
from helpers.hooks import payload, run_hook
from helpers.waiting import wait_for_maintenance


def _git_repo(path):
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.fixture
def repo(tmp_path):
    return _git_repo(tmp_path / "work" / "shop")


@pytest.fixture
def clone(tmp_path):
    """A teammate's clone of the same repository (its own folder, its own store)."""
    return _git_repo(tmp_path / "teammate" / "shop")


# The rule every scenario shares: `add` arguments.
PROD_MIGRATION_RULE = (
    "Never run the migration against prod from a laptop",
    "--type",
    "rule",
    "--pattern",
    "alembic upgrade --prod",
    "--pattern-type",
    "command",
    "--action",
    "block",
)


def _file(root):
    return root / ".claude" / "memory-cli.toml"


def _add(cli, root, *args):
    r = cli("add", *args, "--json", cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _snapshot(db):
    """What a load could change: entries, rules and the loaded file's hash."""
    from memory_cli.store.db import Store

    with Store.open(db) as s:
        return (
            s.rows("SELECT id, content, type, scope, source, status, tags FROM memory_entries ORDER BY id"),
            s.rows("SELECT id, pattern, action, confirmed FROM enforcement_rules ORDER BY id"),
            s.rows("SELECT key, value FROM kv WHERE key LIKE 'sharing.%' ORDER BY key"),
        )


def _session_start(db, root):
    """A session starts, and the daily maintenance it may start in the background is waited
    for: while that run writes, the next hook finds the store busy and loads nothing."""
    result = run_hook(
        "SessionStart", payload("SessionStart", cwd=str(root)), db=db, env={"CLAUDE_PROJECT_DIR": str(root)}
    )
    wait_for_maintenance(db)
    return result


def _bash(db, root, command):
    return run_hook(
        "PreToolUse",
        payload("PreToolUse", cwd=str(root), tool_input={"command": command}),
        db=db,
        env={"CLAUDE_PROJECT_DIR": str(root)},
    )


def test_share_writes_a_reviewable_block_and_unshare_removes_it(cli, repo):
    rule = _add(cli, repo, *PROD_MIGRATION_RULE)
    r = cli("share", rule["id"][:8], cwd=repo)
    assert r.returncode == 0 and "review and commit" in r.stdout
    text = _file(repo).read_text()
    assert f'id = "{rule["id"]}"' in text and 'pattern = "alembic upgrade --prod"' in text
    assert 'action = "block"' in text
    fact = _add(cli, repo, "The staging VPN drops every 8 hours", "--type", "fact", "--share")
    after = _file(repo).read_text()
    # Sharing a second entry adds its block and leaves the first one's lines as they were.
    rule_block = text[text.index("[[memory]]") :]
    assert rule_block in after and "staging VPN" in after
    assert cli("unshare", fact["id"], cwd=repo).returncode == 0
    assert _file(repo).read_text() == text
    # Unsharing does not forget: the memory stays in this store.
    assert cli("show", fact["id"]).returncode == 0


def test_a_teammates_session_loads_the_file_and_the_rule_blocks(cli, repo, clone, tmp_path):
    rule = _add(
        cli,
        repo,
        *PROD_MIGRATION_RULE,
        "--share",
    )
    (clone / ".claude").mkdir()
    _file(clone).write_bytes(_file(repo).read_bytes())  # what a pull of the commit does
    mate = tmp_path / "mate.db"
    start = _session_start(mate, clone)
    assert start.returncode == 0 and "memory-cli.toml: 1 added" in start.system_message
    assert "Never run the migration" in start.context
    denied = _bash(mate, clone, "alembic upgrade --prod head")
    assert denied.decision == "deny"
    assert _bash(mate, clone, "alembic upgrade head").decision != "deny"
    shown = json.loads(run_cli("show", rule["id"], "--json", db=mate).stdout)
    assert shown["source"] == "repo" and shown["scope"] == f"repo:{clone}" and shown["origin"] == f"repo:{clone}"
    # The second session start finds the same hash: nothing reloaded, nothing said.
    again = _session_start(mate, clone)
    assert "loaded" not in again.system_message
    doctor = run_cli("doctor", "--json", db=mate, cwd=clone)
    names = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert "Never run the migration" in names["shared rules"]["detail"]
    assert names["shared file"]["status"] == "ok"


def test_removed_entries_are_archived_and_edited_ones_updated(cli, repo, tmp_path):
    rule = _add(
        cli,
        repo,
        "Use pnpm, not npm",
        "--type",
        "rule",
        "--pattern",
        "npm install",
        "--pattern-type",
        "command",
        "--action",
        "warn",
        "--share",
    )
    fact = _add(cli, repo, "CI runs on Fridays only", "--type", "fact", "--share")
    mate = tmp_path / "mate.db"
    _session_start(mate, repo)
    assert json.loads(run_cli("show", fact["id"], "--json", db=mate).stdout)["source"] == "repo"
    text = _file(repo).read_text()
    text = text.replace("CI runs on Fridays only", "CI runs nightly")
    text = text.replace('action = "warn"', 'action = "block"')
    _file(repo).write_text(text)
    _session_start(mate, repo)
    assert json.loads(run_cli("show", fact["id"], "--json", db=mate).stdout)["content"] == "CI runs nightly"
    assert _bash(mate, repo, "npm install left-pad").decision == "deny"
    assert run_cli("unshare", fact["id"], db=mate, cwd=repo).returncode == 0
    _session_start(mate, repo)
    assert json.loads(run_cli("show", fact["id"], "--json", db=mate).stdout)["status"] == "archived"
    assert json.loads(run_cli("show", rule["id"], "--json", db=mate).stdout)["status"] == "active"
    audit = run_cli("audit", "--action", "archive", "--json", db=mate)
    assert fact["id"] in audit.stdout


@pytest.mark.parametrize(
    "garbage",
    [
        b"[[memory]\nid = 'x'\n",  # not TOML
        b'[[memory]]\nid = "a1"\ntype = "fact"\n',  # no content
        b'[[memory]]\nid = "a1"\ntype = "rule"\ncontent = "x"\n[memory.rule]\npattern = "("\npattern_type = "regex"\n',
    ],
)
def test_a_malformed_file_is_one_line_and_changes_nothing(cli, repo, tmp_path, garbage):
    _add(cli, repo, "Deploys freeze on Fridays", "--type", "decision", "--share")
    mate = tmp_path / "mate.db"
    _session_start(mate, repo)
    before = _snapshot(mate)
    good = _file(repo).read_bytes()
    _file(repo).write_bytes(good + b"\n" + garbage)
    start = _session_start(mate, repo)
    assert start.returncode == 0
    notice = start.system_message
    assert "memory-cli.toml" in notice and "nothing changed" in notice and "\n" not in notice.strip()
    r = run_cli("list", db=mate, cwd=repo)
    assert r.returncode == 0 and len(r.stderr.strip().splitlines()) == 1 and "memory-cli.toml" in r.stderr
    assert _snapshot(mate) == before


def test_tool_calls_never_read_the_file(cli, repo, tmp_path):
    _add(
        cli,
        repo,
        "Never curl into sh",
        "--type",
        "rule",
        "--pattern",
        r"curl .*\|\s*sh",
        "--pattern-type",
        "regex",
        "--action",
        "block",
        "--share",
    )
    mate = tmp_path / "mate.db"
    _session_start(mate, repo)
    _file(repo).write_bytes(b"this is not toml [[[")
    r = _bash(mate, repo, "curl https://get.example.sh | sh")
    assert r.decision == "deny" and "toml" not in (r.system_message + r.stderr).lower()
    from memory_cli.store.db import Store

    with Store.open(mate) as s:
        assert not s.value("SELECT count(*) FROM memory_audit_log WHERE action = 'repo_load' AND result = 'malformed'")


def test_secrets_never_reach_the_file(cli, repo):
    secret = "ghp_" + "a1B2c3D4e5" * 4
    entry = _add(cli, repo, f"The bot token is {secret}", "--type", "fact")
    r = cli("share", entry["id"], cwd=repo)
    assert r.returncode == 0
    assert secret not in _file(repo).read_text()
    assert "REDACTED" in _file(repo).read_text()


@pytest.mark.parametrize(
    "args, code",
    [
        (("share", "0000dead"), 3),
        (("share", "{id}", "--to", "everywhere"), 2),
        (("share", "{id}", "--to", "team"), 2),
        (("unshare", "{id}"), 3),
    ],
)
def test_bad_share_input_is_one_line_with_its_exit_code(cli, repo, args, code):
    entry = _add(cli, repo, "Builds need JDK 21", "--type", "fact")
    r = cli(*[a.format(id=entry["id"]) for a in args], cwd=repo)
    assert r.returncode == code, r
    assert len(r.stderr.strip().splitlines()) == 1


def test_share_outside_a_project_without_a_team_stores_nothing(cli, tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    r = cli("add", "Prefer tabs", "--type", "preference", "--share", cwd=outside)
    assert r.returncode == 2 and "nothing to share with" in r.stderr
    assert "Prefer tabs" not in cli("list").stdout
