"""Rules in the store: creation, derivation, validation, editing, trust, violations."""

from __future__ import annotations

import pytest

from memory_cli import audit, entries
from memory_cli.errors import InvalidInput, NotFound
from memory_cli.rules import api, ruleset


def test_create_rule_stores_entry_and_enforcement_row(store):
    rule = api.create_rule(
        store,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="block",
        severity="high",
        alternative="use python.exe",
    )
    entry = entries.get(store, rule["id"])
    assert entry["type"] == "rule" and entry["content"] == "Never use pythonw.exe"
    assert rule["tools"] == ["Bash"] and rule["enabled"] and rule["confirmed"]
    assert rule["effective_action"] == "block" and rule["alternative"] == "use python.exe"
    assert "analysis" not in rule


def test_a_rule_spec_is_stored_as_the_keywords_would_be(store):
    wanted = api.RuleSpec("Never use yarn here", pattern="yarn", pattern_type="command", action="warn", scope="global")
    rule = api.new_rule(store, wanted)
    assert (rule["content"], rule["pattern"], rule["action"], rule["severity"]) == (
        "Never use yarn here",
        "yarn",
        "warn",
        "medium",
    )
    assert rule["tools"] == ["Bash"] and rule["enabled"] and rule["confirmed"]


def test_a_misspelt_rule_field_is_refused_before_anything_is_stored(store):
    with pytest.raises(TypeError):
        api.create_rule(store, "Never use yarn", pattern="yarn", pattern_type="command", action="warn", severty="high")
    assert api.list_rules(store) == []


def test_invalid_regex_is_refused_with_the_regex_error_and_nothing_is_stored(store):
    with pytest.raises(InvalidInput) as e:
        api.create_rule(store, "bad", pattern="a(", pattern_type="regex", action="block")
    assert "missing ), unterminated subpattern at position 1" in str(e.value)
    assert store.value("SELECT count(*) FROM memory_entries") == 0


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"pattern": "-rf", "pattern_type": "command"}, "flag, not a program"),
        ({"pattern": "x", "pattern_type": "glob"}, "unknown pattern type"),
        ({"pattern": "x", "pattern_type": "regex", "action": "nuke"}, "unknown action"),
        ({"pattern": "x", "pattern_type": "regex", "severity": "urgent"}, "unknown severity"),
        ({"pattern": "x", "pattern_type": "regex", "conditions": ["file_path:like:x"]}, "unknown operator"),
        ({"pattern": "x", "pattern_type": "regex", "conditions": ["file_path:regex_match:("]}, "missing )"),
    ],
)
def test_malformed_rules_are_refused(store, kwargs, fragment):
    kwargs.setdefault("action", "warn")
    with pytest.raises(InvalidInput) as e:
        api.create_rule(store, "x", **kwargs)
    assert fragment in str(e.value)


def test_attach_rule_derives_the_pattern_and_blocks_on_prohibitive_wording(store):
    with store.transaction():
        entry = entries.add(store, "Never use pythonw.exe", "rule", confidence=1.0)
        rule = api.attach_rule(store, entry)
    assert (rule["pattern"], rule["pattern_type"], rule["action"]) == ("pythonw.exe", "command", "block")
    assert rule["provenance"] == "derived" and rule["confirmed"]


def test_attach_rule_with_soft_wording_uses_the_default_action(store):
    with store.transaction():
        entry = entries.add(store, "prefer uv over pip", "rule")
        rule = api.attach_rule(store, entry)
    assert rule["pattern"] == "pip" and rule["action"] == "warn"
    assert rule["alternative"] == "use uv"


def test_attach_rule_without_anything_concrete_stays_a_reminder(store):
    with store.transaction():
        entry = entries.add(store, "be more careful", "rule")
        assert api.attach_rule(store, entry) is None
    assert store.value("SELECT count(*) FROM enforcement_rules") == 0
    assert any("reminder" in w for w in store.warnings)


def test_explicit_pattern_type_is_guessed_when_omitted(store):
    with store.transaction():
        e1 = entries.add(store, "no force pushes", "rule")
        r1 = api.attach_rule(store, e1, pattern="git push --force")
        e2 = entries.add(store, "no secrets", "rule")
        r2 = api.attach_rule(store, e2, pattern=r"AKIA[0-9A-Z]{16}")
    assert r1["pattern_type"] == "command" and r2["pattern_type"] == "regex"


def test_promoted_rules_start_unconfirmed_and_only_warn_until_confirmed(store):
    rule = api.create_rule(
        store,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="warn",
        provenance="promoted",
        confirmed=False,
        source="promoted",
    )
    assert not rule["confirmed"] and rule["effective_action"] == "warn"
    confirmed = api.confirm_rule(store, rule["id"])
    assert confirmed["confirmed"] and confirmed["action"] == "block"
    kept = api.create_rule(
        store,
        "x",
        pattern="x",
        pattern_type="regex",
        action="warn",
        provenance="promoted",
        confirmed=False,
        source="promoted",
    )
    assert api.confirm_rule(store, kept["id"], action="warn")["action"] == "warn"


def test_unconfirmed_block_rule_is_downgraded(store):
    rule = api.create_rule(store, "x", pattern="x", pattern_type="regex", action="block", confirmed=False)
    assert rule["effective_action"] == "warn"


def test_edit_revalidates_and_reanalyses(store):
    rule = api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn")
    with pytest.raises(InvalidInput):
        api.edit_rule(store, rule["id"], pattern="(", pattern_type="regex")
    assert api.get_rule(store, rule["id"])["pattern"] == "npm"  # unchanged
    edited = api.edit_rule(
        store,
        rule["id"][:8],
        pattern=r"\bnpm\s+install",
        pattern_type="regex",
        action="block",
        alternative="pnpm install",
        scope="project:web",
    )
    assert (edited["pattern_type"], edited["action"], edited["scope"]) == ("regex", "block", "project:web")
    history = audit.query(store, entry_id=rule["id"], action="update")
    assert history and "pattern" in history[0]["details"]


def test_enable_disable_and_delete(store):
    rule = api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn")
    assert not api.set_enabled(store, rule["id"], False)["enabled"]
    assert api.list_rules(store, enabled=True) == []
    assert [r["id"] for r in api.list_rules(store, enabled=False)] == [rule["id"]]
    api.delete_rule(store, rule["id"])
    with pytest.raises(NotFound):
        api.get_rule(store, rule["id"])
    assert store.value("SELECT count(*) FROM memory_entries") == 0


def test_violations_count_and_escalate_severity(store):
    rule = api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn", severity="medium")
    seen = [api.record_violation(store, rule["id"]) for _ in range(8)]
    assert [s["violation_count"] for s in seen] == list(range(1, 9))
    assert [s["severity"] for s in seen] == ["medium"] * 3 + ["high"] * 4 + ["critical"]
    assert [s["escalated"] for s in seen].count(True) == 2
    assert api.get_rule(store, rule["id"])["violation_count"] == 8


def test_rule_changes_bump_the_generation_but_violations_do_not(store):
    gen = lambda: int(store.value("SELECT generation FROM rules_state WHERE id = 1"))  # noqa: E731
    g0 = gen()
    rule = api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn")
    g1 = gen()
    assert g1 > g0
    api.record_violation(store, rule["id"])
    entries.mark_used(store, [rule["id"]])
    assert gen() == g1
    api.set_enabled(store, rule["id"], False)
    g2 = gen()
    assert g2 > g1
    entries.update(store, rule["id"], scope="project:x")
    assert gen() > g2


def test_compiled_rule_set_is_reused_until_something_changes(store):
    ruleset.forget()
    api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn")
    rs1 = ruleset.load(store)
    assert ruleset.load(store) is rs1  # same process: same object
    ruleset.forget()
    rs2 = ruleset.load(store)  # new process: read back from the cache file
    assert rs2.key == rs1.key and len(rs2) == 1
    api.create_rule(store, "no yarn", pattern="yarn", pattern_type="command", action="warn")
    rs3 = ruleset.load(store)
    assert rs3.key != rs1.key and len(rs3) == 2


def test_a_corrupt_cache_file_is_rebuilt(store):
    api.create_rule(store, "no npm", pattern="npm", pattern_type="command", action="warn")
    ruleset.forget()
    ruleset.load(store)
    path = ruleset.cache_path(store)
    with open(path, "wb") as f:
        f.write(b"\x00garbage")
    ruleset.forget()
    assert len(ruleset.load(store)) == 1
