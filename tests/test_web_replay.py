"""The dashboard's review page shows each proposal's replay and re-runs it on an edited pattern;
its rule pages show each rule's proof; rules no hook fired in 90 days are listed for retiring."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from test_replay_proposals import Transcripts, _correct  # noqa: E402
from test_web_api import _ui, app, browser  # noqa: E402,F401

from memory_cli import (
    audit,  # noqa: E402
    review,  # noqa: E402
)
from memory_cli.rules import api as rules_api  # noqa: E402


def _newcomer(store, home):
    sessions = Transcripts(home)
    for sid, message in (("c1", "feat: login"), ("c2", "fix"), ("c3", "docs")):
        typed = sessions.session(sid, [("commit it", [f'git commit -m "{message}"']), ("never git commit on main", [])])
        _correct(store, "never git commit on main", sid, typed[1])
    sessions.session("ok1", [("commit it", ["git commit -m wip"])])
    [item] = [i for i in review.pending(store) if i["item"] == "proposal"]
    return item


def test_review_page_shows_the_replay_and_reruns_it_on_an_edited_pattern(browser, store, isolated_env):  # noqa: F811
    item = _newcomer(store, isolated_env.parent)
    page = browser.get("/review").text
    assert "fires on <strong>3</strong> of 3 corrected calls" in page
    assert "<strong>1</strong> you let pass" in page
    assert "Offered as a reminder, not a gate" in page
    assert 'name="pattern" value=""' in page  # the reminder: no pattern by default
    h = _ui(browser)
    r = browser.post(f"/ui/review/{item['id']}/replay", data={"pattern": "git commit -m"}, headers=h)
    assert r.status_code == 200 and "<code>git commit -m</code>" in r.text and "you let pass" in r.text
    r = browser.post(f"/ui/review/{item['id']}/replay", data={"pattern": "git commit --amend"}, headers=h)
    assert "fires on <strong>0</strong> of 3" in r.text
    r = browser.post(f"/ui/review/{item['id']}/approve", data={"action": "warn", "pattern": ""}, headers=h)
    assert r.status_code == 200 and "approved" in r.text
    assert store.value("SELECT active FROM enforcement_rules WHERE id = ?", (item["promoted_rule_id"],)) == 0


def test_rule_pages_show_the_proof_and_the_review_page_lists_idle_rules(browser, store):  # noqa: F811
    rule = rules_api.create_rule(
        store, "never force-push", pattern="git push --force", pattern_type="command", action="block"
    )
    idle = rules_api.create_rule(store, "no pythonw", pattern="pythonw", pattern_type="command", action="block")
    old = (datetime.now(timezone.utc) - timedelta(days=120)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    store.execute("UPDATE enforcement_rules SET created_at = ? WHERE id = ?", (old, idle["id"]))
    for action, event in (("enforce_block", "PreToolUse"), ("hook", "PreToolUse"), ("hook", "PreToolUse")):
        audit.record(
            store,
            action,
            entry_id=rule["id"] if action != "hook" else None,
            session_id="s1",
            hook_event=event,
            agent="claude",
            context="Bash",
            details={"subject": "git push --force"},
        )
    audit.record(store, "enforce_block", entry_id=rule["id"], context="cli Bash")  # `enforce`: a dry run
    rules_page = browser.get("/rules").text
    assert "fired 1 (block 1): obeyed 1" in rules_page
    assert "fired 1 (block 1): obeyed 1" in browser.get(f"/memories/{rule['id']}").text
    review = browser.get("/review").text
    assert "never fired in 90 days" in review and idle["id"][:8] in review and rule["id"][:8] not in review
