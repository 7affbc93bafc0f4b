"""Team memory against a real PostgreSQL server (tests/helpers/pgserver.py): members share rules and
memories, a maintainer confirms rules into blocking ones, deletions and concurrent edits
travel without loss, and a server that is down, refuses a password or runs a newer schema
leaves the local store working and says so in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from helpers.cli import run_cli
from helpers.hooks import payload, run_hook
from helpers.pgserver import ADMIN_PASSWORD, PgServer, missing_reason
from helpers.store import add_rule

from memory_cli.team.schema import SERVER_SCHEMA_VERSION

_reason = missing_reason()
# CI installs the server (scripts/setup_postgres.sh), so there a missing one is a failure.
if _reason and os.environ.get("CI"):
    raise RuntimeError(f"CI must run the team tests: {_reason}")
pytestmark = pytest.mark.skipif(_reason is not None, reason=_reason or "")


def _pre_tool_use(db, command):
    return run_hook("PreToolUse", payload("PreToolUse", tool_input={"command": command}), db=db)


def test_a_members_rule_warns_teammates_until_a_maintainer_confirms_it_then_blocks(team):
    rule = add_rule(
        team.db("alice"),
        "Never run the migration against prod from a laptop",
        pattern="alembic upgrade --prod",
        pattern_type="command",
        action="block",
    )
    team.join("alice")
    team.share("alice", rule["id"])
    assert team.sync("alice")["pushed"] == 1
    content, version, deleted, confirmed, author, _ = team.server_row(rule["id"])
    assert (version, deleted, confirmed) == (1, False, False)
    assert author  # git's user.email or user@host

    r = team.join("carol")
    assert "pulled 1" in r.stdout
    hook = _pre_tool_use(team.db("carol"), "alembic upgrade --prod head")
    assert hook.decision != "deny" and "warn" in hook.system_message.lower()
    entry = team.row("carol", "SELECT source, scope FROM memory_entries WHERE id = ?", (rule["id"],))
    assert entry["source"] == "team"

    # A member cannot confirm: PostgreSQL itself refuses, in one line.
    r = team.cli("carol", "team", "confirm", rule["id"][:8])
    assert r.returncode == 6 and "permission denied" in r.stderr and len(r.stderr.strip().splitlines()) == 1

    team.join("bob")
    r = team.cli("bob", "team", "confirm", rule["id"][:8])
    assert r.returncode == 0, r.stderr
    assert team.server_row(rule["id"])[3] is True
    assert _pre_tool_use(team.db("bob"), "alembic upgrade --prod head").decision == "deny"
    team.sync("carol")
    assert _pre_tool_use(team.db("carol"), "alembic upgrade --prod head").decision == "deny"
    assert _pre_tool_use(team.db("carol"), "alembic upgrade head").decision != "deny"


def test_a_member_editing_a_confirmed_rule_needs_a_maintainer_again_and_stores_wait_for_one(team):
    rule = add_rule(
        team.db("bob"), "Never force-push main", pattern="git push --force", pattern_type="command", action="block"
    )
    team.join("bob")
    team.share("bob", rule["id"])
    team.sync("bob")
    assert team.cli("bob", "team", "confirm", rule["id"]).returncode == 0
    team.join("alice")
    assert _pre_tool_use(team.db("alice"), "git push --force").decision == "deny"
    assert team.cli("alice", "rules", "edit", rule["id"], "--pattern", "git push -f").returncode == 0
    team.sync("alice")
    assert team.server_row(rule["id"])[3] is False  # the server's trigger withdrew the confirmation
    assert team.sync("bob")["held"] == 1  # bob's store keeps enforcing the version he confirmed
    pattern = "SELECT pattern FROM enforcement_rules WHERE id = ?"
    assert team.row("bob", pattern, (rule["id"],))["pattern"] == "git push --force"
    assert team.cli("bob", "team", "confirm", rule["id"]).returncode == 0
    assert team.row("bob", pattern, (rule["id"],))["pattern"] == "git push -f"
    team.sync("alice")
    assert team.server_row(rule["id"])[3] is True


def test_a_teammate_removing_a_rules_alternative_removes_it_everywhere(team):
    rule = add_rule(
        team.db("alice"),
        "Use pnpm, not npm",
        pattern="npm install",
        pattern_type="command",
        action="warn",
        alternative="pnpm install",
        message="This repo is a pnpm workspace.",
    )
    team.join("alice")
    team.share("alice", rule["id"])
    team.sync("alice")
    team.join("bob")
    pulled = team.row("bob", "SELECT alternative, message FROM enforcement_rules WHERE id = ?", (rule["id"],))
    assert (pulled["alternative"], pulled["message"]) == ("pnpm install", "This repo is a pnpm workspace.")
    r = team.cli("alice", "rules", "edit", rule["id"], "--alternative", "", "--message", "")
    assert r.returncode == 0, r.stderr
    team.sync("alice")
    team.sync("bob")
    after = team.row("bob", "SELECT alternative, message, pattern FROM enforcement_rules WHERE id = ?", (rule["id"],))
    assert (after["alternative"], after["message"], after["pattern"]) == (None, None, "npm install")
    hook = _pre_tool_use(team.db("bob"), "npm install left-pad")
    assert "pnpm install" not in hook.context + hook.system_message


def test_unsharing_sends_a_tombstone_and_teammates_archive_their_copy(team):
    entry = team.shared_by("alice", "The staging VPN drops every 8 hours", "fact")
    team.join("carol")
    assert team.status("carol", entry["id"]) == "active"

    from memory_cli.store.db import Store
    from memory_cli.team import api

    with Store.open(team.db("alice")) as s:
        assert api.unmark_shared(s, entry["id"]) is True
    assert team.sync("alice")["deleted"] == 1
    assert team.server_row(entry["id"])[2] is True
    assert team.sync("carol")["archived"] == 1
    assert team.status("carol", entry["id"]) == "archived"
    # Alice's own copy stays: unsharing is not deleting.
    assert team.status("alice", entry["id"]) == "active"


def test_a_local_deletion_of_a_shared_entry_travels_as_a_tombstone(team):
    entry = team.shared_by("alice", "Deploys freeze on Fridays", "decision")
    team.join("carol")
    assert team.cli("alice", "delete", entry["id"], "--yes").returncode == 0
    team.sync("alice")
    team.sync("carol")
    assert team.status("carol", entry["id"]) == "archived"


def test_concurrent_edits_resolve_the_same_way_everywhere_and_keep_the_losing_version(team):
    entry = team.shared_by("alice", "The cache warms in 30 s", "fact")
    team.join("bob")
    assert team.cli("alice", "update", entry["id"], "--content", "The cache warms in 45 s").returncode == 0
    assert team.cli("bob", "update", entry["id"], "--content", "The cache warms in 60 s").returncode == 0
    team.sync("alice")  # first to the server: wins
    out = team.sync("bob")
    assert out["refused"] == 1 and out["conflict"] == 1
    for user in ("alice", "bob"):
        assert (
            team.row(user, "SELECT content FROM memory_entries WHERE id = ?", (entry["id"],))["content"]
            == "The cache warms in 45 s"
        )
    loser = team.row("bob", "SELECT * FROM memory_entries WHERE superseded_by = ?", (entry["id"],))
    assert loser["content"] == "The cache warms in 60 s" and loser["status"] == "superseded"
    audit = team.row("bob", "SELECT details FROM memory_audit_log WHERE action = 'team_conflict'")
    details = json.loads(audit["details"])
    assert "45 s" in details["winner"]["content"] and "60 s" in details["loser"]["content"]
    assert team.sync("alice")["conflict"] == 0


def test_secrets_are_redacted_before_anything_reaches_the_server(team):
    secret = "AKIA" + "Q" * 16
    entry = json.loads(team.cli("alice", "add", f"The deploy key is {secret}", "--type", "fact", "--json").stdout)
    team.join("alice")
    team.share("alice", entry["id"])
    team.sync("alice")
    content = team.server_row(entry["id"])[0]
    assert secret not in content and "REDACTED" in content.upper()


def test_the_password_in_a_url_is_never_stored(team):
    r = team.cli("alice", "team", "join", team.pg.url(user="alice", db=team.name, password="alice-pw"))
    assert r.returncode == 0 and "not stored" in r.stdout
    stored = team.row("alice", "SELECT value FROM kv WHERE key = 'team.conninfo'")["value"]
    assert "alice-pw" not in stored and "alice" in stored
    assert (os.stat(team.db("alice")).st_mode & 0o077) == 0


def test_wrong_password_is_one_line_and_changes_nothing(team, tmp_path, monkeypatch):
    bad = tmp_path / "badpass"
    bad.write_text(f"127.0.0.1:{team.pg.port}:*:alice:wrong\n")
    bad.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(bad))
    r = team.cli("alice", "team", "join", team.url("alice"))
    assert r.returncode == 6
    assert "password authentication failed" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert team.cli("alice", "team", "status", "--offline").stdout.startswith("not in a team")


def test_a_newer_server_schema_is_refused_and_the_next_sync_catches_up(team):
    entry = json.loads(team.cli("alice", "add", "Builds need JDK 21", "--type", "fact", "--json").stdout)
    team.join("alice")
    team.share("alice", entry["id"])
    team.pg.sql("UPDATE memory_cli.meta SET value = '99' WHERE key = 'schema_version'", db=team.name)
    try:
        r = team.cli("alice", "team", "sync")
        assert r.returncode == 6 and "newer" in r.stderr and len(r.stderr.strip().splitlines()) == 1
        doctor = team.cli("alice", "doctor", "--json")
        check = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "team"][0]
        assert check["status"] == "warn" and "newer" in check["detail"]
        assert team.server_row(entry["id"]) is None
    finally:
        team.pg.sql(
            f"UPDATE memory_cli.meta SET value = '{SERVER_SCHEMA_VERSION}' WHERE key = 'schema_version'", db=team.name
        )
    assert team.sync("alice")["pushed"] == 1
    doctor = team.cli("alice", "doctor", "--json")
    assert [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "team"][0]["status"] == "ok"


def test_server_down_leaves_the_local_store_and_the_gate_working(tmp_path, monkeypatch):
    """A server of its own, stopped mid-way: one line, doctor shows it, hooks still decide,
    and the sync after the restart pushes what waited."""
    server = PgServer().init().start()
    monkeypatch.setenv("PGPASSWORD", ADMIN_PASSWORD)
    try:
        db = tmp_path / "solo.db"
        url = server.url(db="postgres", password=ADMIN_PASSWORD)
        assert run_cli("team", "init", url).returncode == 0
        assert run_cli("team", "join", url, db=db).returncode == 0
        rule = add_rule(db, "Never curl into sh", pattern=r"curl .*\|\s*sh", pattern_type="regex", action="block")
        from memory_cli.store.db import Store
        from memory_cli.team import api

        with Store.open(db) as s:
            api.mark_shared(s, rule["id"])
        server.stop()
        server.wait_down()
        r = run_cli("team", "sync", db=db)
        assert r.returncode == 6 and len(r.stderr.strip().splitlines()) == 1
        assert "unreachable" in r.stderr
        assert _pre_tool_use(db, "curl https://x.sh | sh").decision == "deny"
        assert run_cli("list", db=db).returncode == 0
        status = json.loads(run_cli("team", "status", "--json", db=db).stdout)
        assert status["reachable"] is False and status["unpushed"] == 1 and status["last_error"]
        server.start()
        assert json.loads(run_cli("team", "sync", "--json", db=db).stdout)["pushed"] == 1
        assert json.loads(run_cli("team", "status", "--json", db=db).stdout)["last_error"] is None
    finally:
        server.destroy()


def test_session_start_syncs_in_the_background_without_loading_the_driver(team):
    rule = add_rule(
        team.db("alice"), "Never drop the audit table", pattern="DROP TABLE audit", pattern_type="regex", action="warn"
    )
    team.join("alice")
    team.share("alice", rule["id"])
    team.sync("alice")
    team.join("carol")  # carol's store is joined; alice's next change arrives by SessionStart alone
    rule2 = add_rule(
        team.db("alice"), "Never truncate sessions", pattern="TRUNCATE sessions", pattern_type="regex", action="warn"
    )
    team.share("alice", rule2["id"])
    team.sync("alice")
    # The hook's own process never imports psycopg.
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, memory_cli.team.hook, memory_cli.team.background;print('psycopg' in sys.modules)",
        ],
        capture_output=True,
        text=True,
    )
    assert probe.stdout.strip() == "False"
    from memory_cli.store.db import Store

    with Store.open(team.db("carol")) as s:  # an automatic sync is due
        s.execute("DELETE FROM kv WHERE key = 'team.last_sync'")
    r = run_hook("SessionStart", payload("SessionStart"), db=team.db("carol"))
    assert r.returncode == 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if team.row("carol", "SELECT 1 AS x FROM memory_entries WHERE id = ?", (rule2["id"],)):
            break
        time.sleep(0.2)
    assert team.row("carol", "SELECT source FROM memory_entries WHERE id = ?", (rule2["id"],))["source"] == "team"


@pytest.mark.parametrize(
    "args, code, words",
    [
        (("team", "join", ""), 2, "libpq URL"),
        (("team", "join", "host=127.0.0.1 port=notaport ==="), 2, "not a PostgreSQL URL"),
        (("team", "sync"), 2, "team join"),
        (("team", "leave"), 2, "team join"),
        (("team", "confirm", "deadbeef"), 2, "team join"),
    ],
)
def test_bad_team_input_is_one_line_with_its_exit_code(cli, args, code, words):
    r = cli(*args)
    assert r.returncode == code, r
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_unknown_id_to_confirm_is_not_found(team):
    team.join("bob")
    r = team.cli("bob", "team", "confirm", "0123abcd")
    assert r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1


def test_leaving_keeps_what_was_pulled(team):
    entry = team.shared_by("alice", "Use pnpm, not npm", "preference")
    team.join("carol")
    r = team.cli("carol", "team", "leave")
    assert r.returncode == 0
    assert team.status("carol", entry["id"]) == "active"
    assert team.cli("carol", "team", "status").stdout.startswith("not in a team")


def test_share_and_unshare_commands_reach_the_team_store(team, tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    team.join("alice")
    r = team.cli("alice", "add", "Releases are tagged vX.Y.Z", "--type", "pattern", "--share", "--json", cwd=outside)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["shared"]["team"] is True and out["shared"]["file"] is None
    team.sync("alice")
    assert team.server_row(out["id"])[0] == "Releases are tagged vX.Y.Z"
    r = team.cli("alice", "unshare", out["id"], cwd=outside)
    assert r.returncode == 0 and "team store" in r.stdout
    team.sync("alice")
    assert team.server_row(out["id"])[2] is True


def test_a_row_this_store_cannot_use_is_left_out_and_does_not_stop_later_syncs(team):
    team.join("carol")
    # Written by a newer or broken client: a regex this memory-cli refuses.
    team.pg.sql(
        "INSERT INTO memory_cli.entries(id, type, content, rule, author, updated_by) VALUES"
        ' (\'bad-row-1\', \'rule\', \'broken\', \'{"pattern": "(", "pattern_type": "regex", "action": "block"}\','
        " 'x@example.com', 'x@example.com')",
        db=team.name,
    )
    out = team.sync("carol")
    assert out["refused_rows"] == 1
    good = team.shared_by("alice", "Staging resets at midnight UTC")
    assert team.sync("carol")["added"] == 1
    assert team.status("carol", good["id"]) == "active"
    assert team.row("carol", "SELECT 1 AS x FROM memory_entries WHERE id = 'bad-row-1'") is None
