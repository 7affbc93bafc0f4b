"""One proposal per instruction, through the real Claude Code with a scripted model: one lesson
the agent words three ways in three sessions is grouped by the session-end job into one
proposal holding the three prompts; `record_correction` answers with the closest waiting lesson,
`same_as` counts the prompt there, and session start lists the lesson with its id."""

from __future__ import annotations

import json
import time

import pytest

from .standin import tool_use

pytestmark = pytest.mark.e2e

TOOL = "mcp__memory-cli__record_correction"
# The person says one instruction three times, in words the hook's detector does not take for
# a correction; the agent records it in other words each time.
SAID = [
    "we only deploy through the staging cluster",
    "staging gets every release before prod",
    "did you skip staging again? it goes there first",
]
WORDED = [
    "Deploy to the staging cluster before production",
    "Release to staging first, then prod",
    "Never skip staging when deploying",
]


def _session(home, prompt: str, calls: list[dict]):
    s = home.run_session(
        prompt,
        [tool_use(TOOL, c) for c in calls] + ["Noted."],
        allowed_tools=TOOL,
        env={"ENABLE_TOOL_SEARCH": "false"},
    )
    assert s.returncode == 0, s.describe()
    return s


def _answers(s) -> list[dict]:
    """What record_correction answered, call by call."""
    out = []
    for request in s.main_requests[1:]:
        result = request.tool_results()[-1]
        assert not result["is_error"], s.describe()
        out.append(json.loads(result["text"]))
    return out


def _agent_items(home) -> list[dict]:
    return [i for i in home.cli_json("review", "--list") if i.get("origin") == "agent"]


def test_one_lesson_worded_three_ways_in_three_sessions_becomes_one_proposal(fresh_home):
    for said, lesson in zip(SAID, WORDED):
        _session(fresh_home, said, [{"quote": said, "lesson": lesson, "kind": "standing"}])
    # The session-end job (detached, started by the real SessionEnd hook) groups them by meaning.
    deadline = time.monotonic() + 120
    items = _agent_items(fresh_home)
    while time.monotonic() < deadline and [i["item"] for i in items] != ["recurring"]:
        time.sleep(0.5)
        items = _agent_items(fresh_home)
    [item] = items
    assert (item["item"], item["occurrences"], item["sessions"]) == ("recurring", 3, 3), items
    assert sorted(i["quote"] for i in item["instances"]) == sorted(SAID), item
    shown = fresh_home.cli("review", "--list").stdout
    assert shown.splitlines()[0].startswith("1 instruction, 1 proposed, 0 waiting since last week"), shown
    for said in SAID:
        assert said in shown, shown
    # nothing of it applies before the person approves it
    assert "staging" not in json.dumps(fresh_home.cli_json("list")).lower()


def test_record_correction_shows_the_closest_lesson_and_same_as_counts_it(fresh_home):
    [first] = _answers(_session(fresh_home, SAID[0], [{"quote": SAID[0], "lesson": WORDED[0]}]))
    lesson_id = first["recorded"]["id"]
    assert first["closest"] == []
    # Session 2: the agent records the lesson in other words, reads the closest waiting lesson in
    # the answer and says it is that one again.
    second = _session(
        fresh_home,
        SAID[1],
        [{"quote": SAID[1], "lesson": WORDED[1]}, {"quote": SAID[1], "lesson": WORDED[1], "same_as": lesson_id}],
    )
    recorded, joined = _answers(second)
    assert [(c["id"], c["lesson"]) for c in recorded["closest"]] == [(lesson_id, WORDED[0])], recorded
    assert joined["counted_on"]["id"] == lesson_id and joined["counted_on"]["taught"] == 2, joined
    [item] = _agent_items(fresh_home)
    assert (item["id"], item["occurrences"], item["sessions"]) == (lesson_id, 2, 2), item
    # Session 3: session start lists the lesson with its id; the agent uses it at once.
    third = _session(fresh_home, SAID[2], [{"quote": SAID[2], "lesson": WORDED[2], "same_as": lesson_id[:8]}])
    [start] = third.first_request.hook_contexts("SessionStart")
    assert f"- {lesson_id[:8]}: {WORDED[0]} (taught 2x)" in start, start
    [answer] = _answers(third)
    assert answer["counted_on"]["taught"] == 3 and answer["proposed_now"], answer
    [item] = _agent_items(fresh_home)
    assert (item["item"], item["occurrences"], item["sessions"]) == ("proposal", 3, 3), item
