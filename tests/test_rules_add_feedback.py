"""What adding a rule does and says: a rule that means what an existing rule means reinforces it
instead of adding a second; the action printed is the one the rule will take."""

from __future__ import annotations

import json

from memory_cli.capture.corrections import capture
from memory_cli.capture.wording import promotion_notice
from memory_cli.store.db import Store


def _rules(db_path):
    with Store.open(db_path) as s:
        return s.rows(
            "SELECT r.id, r.pattern, r.action, r.confirmed, e.confidence, e.reinforced_at FROM enforcement_rules r"
            " JOIN memory_entries e ON e.id = r.id WHERE e.status = 'active'"
        )


def test_a_promoted_correction_reinforces_the_rule_that_already_forbids_it(cli, db_path):
    rid = json.loads(cli("rules", "add", "Never use pythonw.exe", "--json").stdout)["id"]
    [before] = _rules(db_path)
    with Store.open(db_path) as s:
        for session in ("s1", "s2", "s3"):
            result = capture(s, "No, never use pythonw.exe, use python.exe", session_id=session)
    assert result["promoted_now"] and result["promoted_rule_id"] == rid
    assert rid[:8] in promotion_notice(result) and "already" in promotion_notice(result)
    [after] = _rules(db_path)
    assert after["id"] == rid and after["action"] == "block" and after["confirmed"] == 1
    assert after["reinforced_at"] and after["confidence"] > before["confidence"]
    post = cli("enforce", "--phase", "post", "--tool", "Bash", "--input", "pythonw.exe src/main.py")
    assert post.stdout.count("violated") == 1


def test_adding_the_same_rule_twice_reinforces_the_first_and_says_so(cli, db_path):
    first = cli("rules", "add", "Never use pythonw.exe")
    second = cli("rules", "add", "never use   PYTHONW.EXE")
    assert second.returncode == 0
    assert second.stdout.strip() == first.stdout.strip()  # the id of the rule that already exists
    assert "already" in second.stderr and "reinforced" in second.stderr
    [rule] = _rules(db_path)
    assert rule["reinforced_at"]
    other = cli("rules", "add", "Never use pythonw.exe", "--scope", "project:billing")
    assert other.stdout.strip() != first.stdout.strip()  # another scope is another rule
    assert len(_rules(db_path)) == 2


def test_an_intent_rule_added_with_block_says_at_once_that_it_will_only_warn(cli):
    r = cli(
        "rules",
        "add",
        "Do not reformat the whole repository",
        "--pattern",
        "reformat every file in the project",
        "--pattern-type",
        "intent",
        "--action",
        "block",
    )
    assert r.returncode == 0
    assert "-> warn" in r.stderr and "-> block" not in r.stderr
    assert "intent" in r.stderr and "never block" in r.stderr
    r = cli(
        "add",
        "--type",
        "rule",
        "Do not drop the production tables",
        "--pattern",
        "drop the production database",
        "--pattern-type",
        "intent",
        "--action",
        "block",
    )
    assert r.returncode == 0
    assert "-> warn" in r.stderr and "-> block" not in r.stderr
