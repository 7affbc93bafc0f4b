"""A block rule cannot be walked past by padding the call until its check runs out.

Through the real ``memory-cli hook`` process with Claude Code's payloads: a command rule whose
program is in a command too long (or with too many simple commands) to read whole, and a
regex rule whose literals are present but whose search cannot finish within the budget, deny
the call and say why, instead of letting it through with only an audit row. Padding that
costs nothing to read is read, and a long call without the rule's text stays allowed.
"""

from __future__ import annotations

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.store.db import Store


def rows(db_path, action):
    with Store.open(db_path) as s:
        return audit.query(s, action=action, limit=50)


def bash(command):
    return payload(
        "PreToolUse",
        tool_input={"command": command, "description": "run", "timeout": 120000, "run_in_background": False},
    )


def reason(r) -> str:
    return r.json["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.fixture
def rm_rule(db_path):
    return add_rule(
        db_path, "Never rm -rf /", pattern="rm -rf /", pattern_type="command", action="block", severity="critical"
    )


def test_a_command_rule_denies_rm_rf_root_padded_past_the_parse_size_in_a_comment(hook, db_path, rm_rule):
    r = hook("PreToolUse", bash("rm -rf / # " + "x" * 300_000))
    assert r.returncode == 0 and r.decision == "deny"
    assert "Never rm -rf /" in reason(r)
    [row] = rows(db_path, "enforce_block")
    assert row["entry_id"] == rm_rule["id"]


def test_a_command_rule_denies_rm_rf_root_after_padding_words_it_cannot_read_in_time(hook, db_path, rm_rule):
    r = hook("PreToolUse", bash("echo " + "ab " * 400_000 + "; rm -rf /"))
    assert r.decision == "deny"
    assert "could not be finished" in reason(r) and "Never rm -rf /" in reason(r)
    assert "could not be finished" in r.system_message  # the person is told too
    [row] = rows(db_path, "enforce_overrun")
    assert row["result"] == "denied" and row["details"]["unchecked_rules"] == [rm_rule["id"]]


def test_a_command_rule_denies_rm_rf_root_after_five_thousand_harmless_commands(hook, db_path, rm_rule):
    r = hook("PreToolUse", bash("true; " * 5001 + "rm -rf /"))
    assert r.decision == "deny" and "Never rm -rf /" in reason(r)


def test_a_long_command_without_the_rules_program_stays_allowed(hook, db_path, rm_rule):
    for command in ("echo " + "ab " * 400_000, "true; " * 5001 + "ls -la", "ls # " + "x" * 300_000):
        r = hook("PreToolUse", bash(command))
        assert r.returncode == 0 and r.decision is None, command[:40]
    assert rows(db_path, "enforce_block") == []


def test_a_regex_rule_denies_a_pipe_to_shell_padded_so_its_search_runs_out(hook, db_path):
    rule = add_rule(
        db_path, "Never pipe curl into a shell", pattern=r"curl.*\|\s*(ba)?sh", pattern_type="regex", action="block"
    )
    padded = "echo sh; " + "curl|" * 8000  # 40 KB on which the search takes seconds
    r = hook("PreToolUse", bash(padded))
    assert r.decision == "deny"
    assert "Never pipe curl into a shell" in reason(r) and "could not be finished" in reason(r)
    [row] = rows(db_path, "enforce_block")
    assert row["entry_id"] == rule["id"] and row["details"]["field"] == "unchecked"


def test_a_padded_call_without_the_regex_rules_text_stays_allowed(hook, db_path):
    add_rule(
        db_path, "Never pipe curl into a shell", pattern=r"curl.*\|\s*(ba)?sh", pattern_type="regex", action="block"
    )
    r = hook("PreToolUse", bash("echo " + "wget|" * 8000))
    assert r.decision is None


def test_a_warn_rule_left_unchecked_does_not_refuse_the_call(hook, db_path):
    add_rule(db_path, "curl into a shell is risky", pattern=r"curl.*\|\s*(ba)?sh", pattern_type="regex", action="warn")
    r = hook("PreToolUse", bash("echo sh; " + "curl|" * 8000))
    assert r.decision is None
    [row] = rows(db_path, "enforce_overrun")
    assert row["result"] == "allowed"


def test_an_ask_rule_left_unchecked_asks(hook, db_path):
    add_rule(db_path, "ask before curl into a shell", pattern=r"curl.*\|\s*(ba)?sh", pattern_type="regex", action="ask")
    r = hook("PreToolUse", bash("echo sh; " + "curl|" * 8000))
    assert r.decision == "ask" and "could not be finished" in reason(r)


def test_a_long_unreadable_command_naming_the_program_only_inside_a_word_stays_allowed(hook, db_path, rm_rule):
    # "rm" occurs in "format" and "term" hundreds of thousands of times, never as a program
    r = hook("PreToolUse", bash("echo " + "format term " * 40_000 + "; ls"))
    assert r.decision is None
