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


def _one_item(home, lesson_id: str, taught: int) -> None:
    """The queue holds one item for the lesson, taught ``taught`` times in as many sessions: the
    lesson itself or, once the session-end job has seen it said in two sessions, the recurring
    proposal that holds it alone, listing each time it was said."""
    [item] = _agent_items(home)
    assert (item["statement"], item["occurrences"], item["sessions"]) == (WORDED[0], taught, taught), item
    # the proposal lists every time the lesson was said
    assert item["id"] == lesson_id or [i["id"] for i in item["instances"]] == [lesson_id] * taught, item


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
    _one_item(fresh_home, lesson_id, 2)
    # Session 3: session start lists the lesson with its id; the agent uses it at once.
    third = _session(fresh_home, SAID[2], [{"quote": SAID[2], "lesson": WORDED[2], "same_as": lesson_id[:8]}])
    [start] = third.first_request.hook_contexts("SessionStart")
    assert f"- {lesson_id[:8]}: {WORDED[0]} (taught 2x)" in start, start
    [answer] = _answers(third)
    assert answer["counted_on"]["taught"] == 3 and answer["proposed_now"], answer
    [item] = _agent_items(fresh_home)
    assert (item["item"], item["occurrences"], item["sessions"]) == ("proposal", 3, 3), item


# -- the same through Codex CLI and Gemini CLI (their MCP registration: `install --agent`) ---------
from helpers.waiting import bound  # noqa: E402

from .agent_standins import WaitFor, codex_call, codex_exec, codex_tool_search, gemini_call  # noqa: E402
from .test_e2e_agents import agent_bins  # noqa: E402, F401  (a fixture)
from .test_e2e_agents import agents as agents  # noqa: E402  (a fixture: a HOME with both agents installed)

NS = "mcp__memory_cli"


def _codex(agents, said: str, calls: list[dict]):
    run = agents.codex(
        said,
        [
            # Codex lists MCP tools once the server is up, which it does not wait for.
            WaitFor(
                lambda body: f"- {NS}: " in json.dumps(body, ensure_ascii=False),
                [codex_exec("sleep 0.5")],
                limit=int(bound(60) / 0.5),
            ),
            [codex_tool_search("correction")],
            *[[codex_call("record_correction", c, namespace=NS)] for c in calls],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    return run


def _codex_runs_this_checkout(agents) -> None:
    """Codex starts its MCP server with its own environment; where the venv's editable install
    points at another checkout (a worktree sharing it), PYTHONPATH must be given to the server
    too, or Codex would talk to that checkout's code."""
    import os

    if os.environ.get("PYTHONPATH") and "PYTHONPATH" not in agents.codex_config:
        path = json.dumps(os.environ["PYTHONPATH"])
        agents.codex_config = agents.codex_config.replace("env = {}", f"env = {{ PYTHONPATH = {path} }}", 1)


def test_codex_and_gemini_see_the_closest_lesson_and_count_it_with_same_as(agents):
    home = agents.home
    _codex_runs_this_checkout(agents)
    _codex(agents, SAID[0], [{"quote": SAID[0], "lesson": WORDED[0]}])
    [item] = _agent_items(home)
    lesson_id = item["id"]
    run = agents.gemini(
        SAID[1],
        [
            [gemini_call("mcp_memory-cli_record_correction", {"quote": SAID[1], "lesson": WORDED[1]})],
            [
                gemini_call(
                    "mcp_memory-cli_record_correction", {"quote": SAID[1], "lesson": WORDED[1], "same_as": lesson_id}
                )
            ],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    recorded, joined = run.standin.tool_outputs()[:2]
    assert lesson_id in recorded and WORDED[0] in recorded and "closest" in recorded, run.describe()
    assert "counted_on" in joined and lesson_id in joined, run.describe()
    _one_item(home, lesson_id, 2)
    run = _codex(agents, SAID[2], [{"quote": SAID[2], "lesson": WORDED[2], "same_as": lesson_id[:8]}])
    assert "counted_on" in run.standin.tool_outputs()[-1], run.describe()
    [item] = _agent_items(home)
    assert (item["item"], item["occurrences"], item["sessions"]) == ("proposal", 3, 3), item
