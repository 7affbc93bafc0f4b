"""Consent that holds, in the dashboard: a proposal approved in a real headless Chromium with a
pattern the person typed enforces exactly that pattern in the next PreToolUse hook process.
The browser, the server and the seeded store are those of ``tests/test_web_browser.py``."""

from __future__ import annotations

import pytest
from helpers.hooks import payload, run_hook
from test_web_browser import chromium, cli_json, page, server, shoot  # noqa: F401, F811 (fixtures)

pytestmark = pytest.mark.slow


def _gate(db, command: str) -> str | None:
    return run_hook(
        "PreToolUse", payload("PreToolUse", tool_name="Bash", tool_input={"command": command}), db=db
    ).decision


def test_a_pattern_typed_in_the_dashboard_is_exactly_what_is_enforced(page, server):  # noqa: F811
    [proposal] = [i for i in cli_json(server["db"], "review", "--list") if i["item"] == "proposal"]
    proposed = proposal["rule"]["pattern"]
    assert _gate(server["db"], f"{proposed} requests") is None  # proposed: it only warns
    page.goto(page.base + "/review")
    card = page.locator(f"#c-{proposal['id']}")
    card.locator("select[name=action]").select_option("block")
    card.locator("input[name=pattern]").fill("poetry add")
    card.get_by_role("button", name="Approve").click()
    page.wait_for_selector("article.item.done")
    shoot(page, "review-approved-typed-pattern")
    assert "approved" in page.locator("article.item.done").inner_text()
    assert _gate(server["db"], "poetry add requests") == "deny"
    assert _gate(server["db"], f"{proposed} requests") is None  # the pattern the person replaced
    assert page.problems == []
