"""Through the real Claude Code, memory-cli's protection of its own state leaves the agent's
ordinary work alone: a Python query that only reads the store runs and its answer reaches the
model, a test file of this repository written into the project (it names the store and the
settings throughout) is written, while a Python snippet that deletes the person's rules is
refused and the rule still denies."""

from __future__ import annotations

from pathlib import Path

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e

OWN_TEST = Path(__file__).parent.parent / "test_sharing.py"  # names .claude/memory-cli.toml


def test_reading_the_store_and_writing_tests_run_deleting_rules_does_not(fresh_home):
    home = fresh_home
    rule = home.cli_json(
        "rules", "add", "Never force-push", "--pattern", "git push --force", "--pattern-type", "command",
        "--action", "block",
    )  # fmt: skip
    if not rule.get("confirmed", True):
        home.cli("rules", "confirm", rule["id"])
    db = home.db
    count = f"import sqlite3; c = sqlite3.connect('{db}'); print('rules:', c.execute('SELECT count(*) FROM enforcement_rules').fetchone()[0])"
    delete = f"import sqlite3; c = sqlite3.connect('{db}'); c.execute('DELETE FROM enforcement_rules'); c.commit()"
    target = home.project / "tests" / OWN_TEST.name
    content = OWN_TEST.read_text(encoding="utf-8")
    s = home.run_session(
        "count the rules, add the sharing tests, then clear the rules and force-push",
        [
            bash(f'python3 -c "{count}"', "count the rules"),
            tool_use("Write", {"file_path": str(target), "content": content}),
            bash(f'python3 -c "{delete}"', "clear the rules"),
            bash("git push --force origin main", "force-push"),
            "Stopped.",
        ],
    )
    assert s.returncode == 0, s.describe()
    results = [r.tool_results()[-1] for r in s.main_requests[1:]]
    assert len(results) == 4, s.describe()
    counted, written, deleted, pushed = results
    assert not counted["is_error"] and "rules: 1" in counted["text"], counted
    assert not written["is_error"], written
    assert target.read_text(encoding="utf-8") == content
    assert deleted["is_error"] and "memory-cli protects its own state" in deleted["text"], deleted
    assert pushed["is_error"] and "Never force-push" in pushed["text"], pushed
    asked = home.cli_json("audit", "--action", "protect_ask")
    assert len(asked) == 1 and "python3 code that changes the memory-cli store" in str(asked[0]), asked
