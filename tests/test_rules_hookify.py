"""Reading hookify rule files (the format of Anthropic's hookify plugin)."""

from __future__ import annotations

import pytest

from memory_cli.rules.conditions import check_string_operator, field_value
from memory_cli.rules.hookify import HookifyError, find_rule_files, load_rules, parse_frontmatter, parse_rule_text

SIMPLE = """---
name: block-dangerous-rm
enabled: true
event: bash
pattern: rm\\s+-rf
action: block
---

⚠️ **Dangerous rm command detected!**

This command could delete important files.
"""

CONDITIONS = """---
# Example: warn on console.log, but not in test files
name: console-log-prod-only
enabled: true
event: file
action: warn
conditions:
  - field: file_path
    operator: regex_match
    pattern: \\.(tsx?|jsx?)$
  - field: file_path
    operator: not_regex_match
    pattern: (\\.test\\.|\\.spec\\.|__tests__)
  - field: new_text
    operator: regex_match
    pattern: console\\.(log|debug|info)\\(
---

**Console statement in production code!**
"""


def test_simple_pattern_rule():
    rule = parse_rule_text(SIMPLE, "/p/.claude/hookify.rm.local.md")
    assert rule.name == "block-dangerous-rm"
    assert rule.enabled is True and rule.event == "bash" and rule.action == "block"
    [c] = rule.conditions
    assert (c.field, c.operator, c.pattern) == ("command", "regex_match", r"rm\s+-rf")
    assert rule.tools == ["Bash"]
    assert rule.message.startswith("⚠️ **Dangerous rm command detected!**")
    assert rule.warnings == []


def test_conditions_rule_keeps_every_condition_in_order():
    rule = parse_rule_text(CONDITIONS)
    assert [(c.field, c.operator) for c in rule.conditions] == [
        ("file_path", "regex_match"),
        ("file_path", "not_regex_match"),
        ("new_text", "regex_match"),
    ]
    assert rule.conditions[2].pattern == r"console\.(log|debug|info)\("
    assert rule.action == "warn" and rule.tools == ["Edit", "Write", "MultiEdit"]
    assert rule.message == "**Console statement in production code!**"


@pytest.mark.parametrize(
    "event,field",
    [("bash", "command"), ("file", "new_text"), ("prompt", "prompt"), ("all", "content"), ("stop", "content")],
)
def test_simple_pattern_field_follows_the_event(event, field):
    rule = parse_rule_text(f"---\nname: x\nevent: {event}\npattern: foo\n---\nmsg")
    assert rule.conditions[0].field == field


def test_defaults_and_oddities():
    rule = parse_rule_text("---\nname: x\npattern: foo\n---\n")
    assert rule.action == "warn" and rule.enabled is True and rule.event == "all"
    assert rule.tools is None
    rule = parse_rule_text("---\nname: x\nevent: bash\naction: explode\npattern: a\n---\n")
    assert rule.action == "warn" and rule.warnings
    rule = parse_rule_text("---\nname: x\nenabled: false\nevent: bash\n---\nno pattern")
    assert rule.enabled is False and not rule.conditions and rule.warnings


def test_frontmatter_subset():
    fm, body = parse_frontmatter(
        "---\nname: \"a \\\\.env$ #x\"\nq: 'it''s'\nlist: [a, \"b, c\"]\n"
        "conditions:\n- field: command, operator: contains, pattern: x\n"
        "msg: |\n  line1\n  line2\nenabled: no\ntool_matcher: Bash|Edit\n---\nbody"
    )
    assert fm["name"] == "a \\.env$ #x"  # YAML double-quote escapes
    assert fm["q"] == "it's"
    assert fm["list"] == ["a", "b, c"]
    assert fm["conditions"] == [{"field": "command", "operator": "contains", "pattern": "x"}]
    assert fm["msg"] == "line1\nline2\n"
    assert fm["enabled"] is False
    assert body == "body"


def test_unquoted_values_are_kept_verbatim():
    fm, _ = parse_frontmatter("---\npattern: (eval|exec)\\( # not a comment\n---\n")
    assert fm["pattern"] == "(eval|exec)\\( # not a comment"


def test_no_frontmatter_is_an_error():
    with pytest.raises(HookifyError):
        parse_rule_text("just markdown", "x.md")


def test_tool_matcher_overrides_event_tools():
    rule = parse_rule_text("---\nname: x\nevent: all\ntool_matcher: Bash|Write\npattern: a\n---\n")
    assert rule.tools == ["Bash", "Write"]


def test_loading_a_project_directory(tmp_path):
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "hookify.rm.local.md").write_text(SIMPLE)
    (claude / "hookify.console.local.md").write_text(CONDITIONS)
    (claude / "hookify.broken.local.md").write_text("no frontmatter")
    (claude / "hookify.badregex.local.md").write_text("---\nname: bad\nevent: bash\npattern: a(\n---\n")
    (claude / "notes.md").write_text(SIMPLE)
    assert len(find_rule_files(tmp_path)) == 4
    assert find_rule_files(claude) == find_rule_files(tmp_path)
    rules, errors = load_rules(tmp_path)
    assert sorted(r.name for r in rules) == ["block-dangerous-rm", "console-log-prod-only"]
    assert len(errors) == 2
    assert any("no YAML frontmatter" in e for e in errors)
    assert any("missing ), unterminated subpattern" in e for e in errors)


def test_field_values_keep_hookify_meaning():
    write = {"file_path": "/p/a.ts", "content": "console.log(1)"}
    edit = {"file_path": "/p/a.ts", "old_string": "a", "new_string": "b"}
    assert field_value("new_text", "Write", write) == "console.log(1)"
    assert field_value("content", "Edit", edit) == "b"
    assert field_value("old_text", "Edit", edit) == "a"
    assert field_value("command", "Write", write) is None
    assert field_value("prompt", "", {}, {"prompt": "deploy it"}) == "deploy it"
    multi = {
        "file_path": "/p/a",
        "edits": [{"old_string": "x", "new_string": "y1"}, {"old_string": "z", "new_string": "y2"}],
    }
    assert field_value("new_text", "MultiEdit", multi) == "y1\ny2"


@pytest.mark.parametrize(
    "op,pattern,value,expected",
    [
        ("contains", "KEY", "API_KEY=1", True),
        ("contains", "key", "API_KEY=1", False),  # string operators are case-sensitive
        ("not_contains", "pytest", "npm test", True),
        ("equals", "ls", "ls", True),
        ("starts_with", "git", "git push", True),
        ("ends_with", ".env", "/p/.env", True),
        ("regex_match", r"RM\s+-rf", "rm -rf x", True),  # regexes are not
        ("not_regex_match", r"\.test\.", "a.test.ts", False),
        ("frobnicate", "x", "x", False),
        ("contains", "x", None, False),
    ],
)
def test_operators(op, pattern, value, expected):
    assert check_string_operator(op, pattern, value) is expected
