"""Proof after approval: what each rule did in real hook calls, read back from the audit log.

Hook calls go through the real ``memory-cli hook`` process; dry runs (``enforce``, ``rules
test``, ``rules replay``) must never count."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli.rules import proof
from memory_cli.store.db import Store


def pre(command, session):
    return payload("PreToolUse", session_id=session, tool_input={"command": command, "description": "run"})


def post(command, session):
    return payload("PostToolUse", session_id=session, tool_input={"command": command, "description": "run"})


def proofs(db_path):
    with Store.open(db_path) as s:
        return proof.collect(s)


def test_a_block_the_agent_moved_on_from_is_obeyed_and_one_it_tried_again_is_repeated(hook, db_path):
    rule = add_rule(db_path, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    assert hook("PreToolUse", pre("git push --force origin main", "s1")).decision == "deny"
    hook("PreToolUse", pre("git push origin main", "s1"))
    assert hook("PreToolUse", pre("git push --force origin main", "s2")).decision == "deny"
    assert hook("PreToolUse", pre("git push --force origin main", "s2")).decision == "deny"
    hook("Stop", payload("Stop", session_id="s2"))
    p = proofs(db_path)[rule["id"]]
    assert p["fired"] == 3 and p["by_action"] == {"block": 3}
    assert (p["obeyed"], p["repeated"]) == (2, 1)  # s1's; s2's second try was followed by Stop
    assert p["agents"] == ["claude"] and p["first_fired"] <= p["last_fired"]


def test_an_ask_the_person_allowed_is_overridden_and_one_that_never_ran_is_declined(hook, db_path):
    rule = add_rule(db_path, "ask before rm -rf", pattern="rm -rf", pattern_type="command", action="ask")
    assert hook("PreToolUse", pre("rm -rf build", "a1")).decision == "ask"
    hook("PostToolUse", post("rm -rf build", "a1"))
    assert hook("PreToolUse", pre("rm -rf dist", "a2")).decision == "ask"
    hook("PreToolUse", pre("ls", "a2"))
    p = proofs(db_path)[rule["id"]]
    assert (p["fired"], p["overridden"], p["declined"], p["obeyed"]) == (2, 1, 1, 0)


def test_a_violation_after_the_fact_is_counted(hook, db_path):
    rule = add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="warn")
    hook("PostToolUse", post("npm install left-pad", "v1"))
    p = proofs(db_path)[rule["id"]]
    assert p["violated"] == 1 and p["fired"] == 0


def test_dry_runs_are_never_counted(cli, db_path):
    rule = add_rule(db_path, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    assert "blocked" in cli("enforce", "--tool", "Bash", "--input", "git push --force").stdout
    cli("rules", "test", rule["id"], "--input", "git push --force")
    cli("rules", "replay", rule["id"])
    assert rule["id"] not in proofs(db_path)
    # a dry run marked as such by whoever writes it is not counted either
    with Store.open(db_path) as s:
        from memory_cli import audit

        audit.record(s, "enforce_block", entry_id=rule["id"], hook_event="PreToolUse", details={"dry_run": True})
        assert rule["id"] not in proof.collect(s)


def test_rules_show_and_list_and_stats_show_the_proof(hook, cli, db_path):
    rule = add_rule(db_path, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    hook("PreToolUse", pre("git push --force", "p1"))
    hook("PreToolUse", pre("git status", "p1"))
    shown = cli("rules", "show", rule["id"]).stdout
    assert "fired 1 (block 1): obeyed 1" in shown
    listed = cli("--json", "rules", "list").stdout
    assert '"obeyed": 1' in listed
    assert "1 (1 obeyed)" in cli("rules", "list").stdout
    stats = cli("--json", "stats").stdout
    assert '"obeyed": 1' in stats


def test_rules_that_never_fired_in_90_days_are_retire_candidates(hook, cli, db_path):
    old = add_rule(db_path, "no pythonw", pattern="pythonw", pattern_type="command", action="block")
    used = add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    fresh = add_rule(db_path, "no yarn", pattern="yarn", pattern_type="command", action="block")
    long_ago = (datetime.now(timezone.utc) - timedelta(days=200)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    with Store.open(db_path) as s:
        s.execute("UPDATE enforcement_rules SET created_at = ? WHERE id IN (?, ?)", (long_ago, old["id"], used["id"]))
    hook("PreToolUse", pre("npm i", "r1"))
    with Store.open(db_path) as s:
        ids = [r["id"] for r in proof.retire_candidates(s)]
    assert ids == [old["id"]] and fresh["id"] not in ids
    out = cli("doctor", "--no-timing").stdout
    assert old["id"][:8] in out
