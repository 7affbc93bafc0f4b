"""Lessons the agent records, through the real Claude Code with a scripted model: session start
teaches it; a `record_correction` call quoting what the person typed lands in review as the
agent's, with the quote and the lesson; an invented quote is refused and audited; the same
lesson in three sessions is one proposal that applies nothing before the person approves it;
and a `[LESSON: ...]` line in the reply does the same where the agent has no MCP tools."""

from __future__ import annotations

import json

import pytest

from .standin import tool_use

pytestmark = pytest.mark.e2e

TOOL = "mcp__memory-cli__record_correction"
# None of these reads as a correction to the hook's own detector: only the agent's reading counts.
SAID = ["we're a pnpm shop", "pnpm here, remember?", "hmm, pnpm is what we use"]
LESSON = {"lesson": "Use pnpm, not npm", "wrong": "npm", "right": "pnpm", "kind": "standing"}
NO_MCP = ["--strict-mcp-config"]  # Claude Code without any MCP server: the agent has no tools of ours
SAID_PLAIN = ["makefiles here use tabs", "the makefile wants tabs", "tabs, it's a makefile"]
MARKER = '[LESSON: "{quote}" -> Indent the Makefile with tabs, never spaces]'


def _mcp_session(home, prompt: str, calls: list[dict]):
    return home.run_session(
        prompt,
        [tool_use(TOOL, c) for c in calls] + ["Noted."],
        allowed_tools=TOOL,
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


@pytest.fixture(scope="module")
def mcp_sessions(e2e_home):
    """Three sessions, each quoting what the person typed in it; the first also invents a quote."""
    first = _mcp_session(
        e2e_home,
        SAID[0],
        [{"quote": SAID[0], **LESSON}, {"quote": "never run npm install here", **LESSON}],
    )
    e2e_home.after_first = e2e_home.cli("review", "--list").stdout
    rest = [_mcp_session(e2e_home, said, [{"quote": said.upper(), **LESSON}]) for said in SAID[1:]]
    return [first, *rest]


def test_session_start_teaches_the_agent_to_record_lessons(e2e_home, mcp_sessions):
    first = mcp_sessions[0]
    assert first.returncode == 0, first.describe()
    [start] = first.first_request.hook_contexts("SessionStart")
    assert (
        "record_correction" in start
        and "`quote` (their words for it, verbatim)" in start
        and "once per instruction" in start
    ), start
    assert '[LESSON: "<their words>" -> <what to do instead>]' in start


def test_a_lesson_quoting_the_person_lands_in_review_as_the_agents(e2e_home, mcp_sessions):
    first = mcp_sessions[0]
    ok = first.main_requests[1].tool_results()[-1]
    assert not ok["is_error"], first.describe()
    recorded = json.loads(ok["text"])["recorded"]
    assert recorded["statement"] == "Use pnpm, not npm" and recorded["occurrences"] == 1
    queue = e2e_home.after_first
    assert "Use pnpm, not npm" in queue and f'recorded by the agent, quoting you: "{SAID[0]}"' in queue, queue
    # Nothing the hook said told the model it had been corrected.
    assert not first.first_request.hook_contexts("UserPromptSubmit") or not any(
        "Recorded correction" in c for c in first.first_request.hook_contexts("UserPromptSubmit")
    )


def test_an_invented_quote_is_refused_and_audited(e2e_home, mcp_sessions):
    first = mcp_sessions[0]
    refused = first.main_requests[2].tool_results()[-1]
    assert refused["is_error"] and "refused: the quote is not in anything the person typed" in refused["text"]
    rows = e2e_home.cli_json("audit", "--action", "lesson")
    assert [r["result"] for r in rows] == ["refused"], rows
    assert "never run npm install here" in json.dumps(rows[0]["details"])


def test_the_same_lesson_in_three_sessions_is_one_proposal_that_waits_for_the_person(e2e_home, mcp_sessions):
    for s in mcp_sessions:
        assert s.returncode == 0, s.describe()
    assert len({s.result["session_id"] for s in mcp_sessions}) == 3
    items = [i for i in e2e_home.cli_json("review", "--list") if i["origin"] == "agent"]
    assert [(i["item"], i["occurrences"], i["sessions"]) for i in items] == [("proposal", 3, 3)], items
    [rule] = [r for r in e2e_home.cli_json("rules", "list", "--all") if r.get("pattern") == "npm"]
    assert not rule["enabled"] and not rule["confirmed"], rule  # nothing enforces before approval


def test_a_lesson_line_does_the_same_without_mcp(e2e_home):
    sessions = []
    for said in SAID_PLAIN:
        reply = "Tabs it is.\n\n" + MARKER.format(quote=said)
        if said == SAID_PLAIN[0]:
            reply += '\n[LESSON: "spaces are banned everywhere" -> Never use spaces]'
        s = e2e_home.run_session(said, [reply], extra_args=NO_MCP)
        assert s.returncode == 0, s.describe()
        init = next(e for e in s.events if e.get("type") == "system" and e.get("subtype") == "init")
        assert not init.get("mcp_servers"), init.get("mcp_servers")
        sessions.append(s)
    items = [i for i in e2e_home.cli_json("review", "--list") if "Makefile" in (i["statement"] or "")]
    assert [(i["item"], i["origin"], i["occurrences"], i["sessions"]) for i in items] == [
        ("proposal", "agent", 3, 3)
    ], items
    assert items[0]["user_message"] in SAID_PLAIN
    refused = [r for r in e2e_home.cli_json("audit", "--action", "lesson") if "spaces are banned" in json.dumps(r)]
    assert refused and refused[0]["result"] == "refused" and refused[0]["details"]["via"] == "marker"


# -- the same through Codex CLI and Gemini CLI (their MCP registration: `install --agent`) ---------
from helpers.waiting import bound  # noqa: E402

from .agent_standins import WaitFor, codex_call, codex_exec, codex_tool_search, gemini_call, gemini_text  # noqa: E402
from .test_e2e_agents import agent_bins  # noqa: E402, F401  (a fixture)
from .test_e2e_agents import agents as agents  # noqa: E402  (a fixture: a HOME with both agents installed)

CODEX_SAID = "deploys go through the staging cluster first"
GEMINI_SAID = "the staging cluster sees every deploy first"
MARKER_SAID = "staging gets it before prod, always"
DEPLOY = {"lesson": "Deploy to staging before production", "kind": "standing"}


def _lessons(home) -> list[dict]:
    return [i for i in home.cli_json("review", "--list") if i.get("origin") == "agent"]


def test_codex_and_gemini_record_lessons_through_the_mcp_tool(agents):
    home = agents.home
    run = agents.codex(
        CODEX_SAID,
        [
            # Codex lists MCP tools once the server is up, which it does not wait for (see
            # test_e2e_agents): pause until its requests name the server's namespace.
            WaitFor(
                lambda body: "- mcp__memory_cli: " in json.dumps(body, ensure_ascii=False),
                [codex_exec("sleep 0.5")],
                limit=int(bound(60) / 0.5),
            ),
            [codex_tool_search("correction")],
            [codex_call("record_correction", {"quote": CODEX_SAID, **DEPLOY}, namespace="mcp__memory_cli")],
            [
                codex_call(
                    "record_correction", {"quote": "never deploy on fridays", **DEPLOY}, namespace="mcp__memory_cli"
                )
            ],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert "record_correction" in run.standin.shown(run.standin.main_requests[0]), run.describe()  # taught
    outputs = run.standin.tool_outputs()
    assert "Deploy to staging before production" in outputs[-2], run.describe()
    assert "refused" in outputs[-1], run.describe()
    run = agents.gemini(
        GEMINI_SAID,
        [[gemini_call("mcp_memory-cli_record_correction", {"quote": GEMINI_SAID.upper(), **DEPLOY})]],
    )
    assert run.proc.returncode == 0, run.describe()
    assert "record_correction" in run.standin.shown(run.standin.main_requests[0]), run.describe()  # taught
    assert "Deploy to staging" in run.standin.tool_outputs()[0], run.describe()
    # One lesson, said in two sessions of two agents: counted once per session (and, said in
    # two sessions, also shown as a recurring instruction with each instance).
    [item] = _lessons(home)
    assert item["statement"] == "Deploy to staging before production" and item["sessions"] == 2, item
    counted = [i for i in home.cli_json("review", "--list", "--all") if i.get("kind") == "explicit"]
    assert [(i["origin"], i["occurrences"]) for i in counted] == [("agent", 2)], counted
    refused = home.cli_json("audit", "--action", "lesson")
    assert [r["result"] for r in refused] == ["refused"] and "never deploy on fridays" in json.dumps(refused)


def test_a_lesson_line_in_geminis_reply_counts_and_three_sessions_make_one_held_proposal(agents):
    """The reply's `[LESSON: ...]` line, read by Gemini's AfterAgent hook as Claude Code's Stop
    hook reads it (the path where the agent has no MCP tools): the third session of the same
    lesson, across Codex and Gemini, makes one proposal that applies nothing before approval."""
    home = agents.home
    line = f'[LESSON: "{MARKER_SAID}" -> Deploy to staging before production]'
    run = agents.gemini(MARKER_SAID, [[gemini_text(f"Understood: staging first.\n{line}")]])
    assert run.proc.returncode == 0, run.describe()
    [item] = _lessons(home)
    assert (item["item"], item["statement"], item["sessions"]) == (
        "proposal",
        "Deploy to staging before production",
        3,
    ), item
    assert item["user_message"] in (CODEX_SAID, GEMINI_SAID, MARKER_SAID), item
    entry = home.cli_json("show", item["promoted_entry_id"])
    assert entry["status"] == "archived", entry  # held back until the person approves
    assert "Deploy to staging" not in json.dumps(home.cli_json("list")), "applied before approval"
