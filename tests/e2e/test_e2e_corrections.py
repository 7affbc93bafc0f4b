"""Corrections through the real Claude Code, the hook's detector speaking (the agent not asked to
record lessons): a correction typed as a prompt is acknowledged to the model at once; said in three sessions it becomes a proposed rule, which warns on the next
matching tool call."""

from __future__ import annotations

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e

PROMPTS = [
    "No, use pnpm, not npm. Install the dependencies.",
    "I already told you: use pnpm, not npm",
    "For the third time, use pnpm, not npm!",
]


@pytest.fixture(scope="module", autouse=True)
def detector_speaks(e2e_home):
    """The detector's own line to the model is said only when the agent does not record lessons
    itself (``capture.agent_lessons`` off; tests/e2e/test_e2e_lessons.py runs the default)."""
    e2e_home.write_config({"capture": {"agent_lessons": False}})


@pytest.fixture(scope="module")
def three_sessions(e2e_home):
    """The same correction in three sessions; the third session then runs npm."""
    sessions = [
        e2e_home.run_session(PROMPTS[0], ["Understood, pnpm from now on."]),
        e2e_home.run_session(PROMPTS[1], ["Sorry, pnpm it is."]),
    ]
    e2e_home.rules_before_third = e2e_home.cli_json("rules", "list", "--all")
    sessions.append(
        e2e_home.run_session(PROMPTS[2], [bash("touch ran.txt && npm --version", "check the npm version"), "Noted."])
    )
    return sessions


def test_a_correction_is_acknowledged_to_the_model_in_the_same_turn(e2e_home, three_sessions):
    first = three_sessions[0]
    assert first.returncode == 0, first.describe()
    said = first.first_request.hook_contexts("UserPromptSubmit")
    assert said and "Recorded correction: use pnpm, not npm." in said[0], first.describe()
    second = three_sessions[1].first_request.hook_contexts("UserPromptSubmit")
    assert second and "use pnpm, not npm" in second[0] and "(said 2 times)" in second[0], three_sessions[1].describe()


def test_three_corrections_in_three_sessions_become_a_rule_that_warns(e2e_home, three_sessions):
    third = three_sessions[2]
    assert third.returncode == 0, third.describe()
    assert len({s.result["session_id"] for s in three_sessions}) == 3
    queue = e2e_home.cli("review", "--list").stdout
    assert "x3/3s" in queue and "use pnpm, not npm" in queue, queue
    rules = e2e_home.cli_json("rules", "list", "--unconfirmed")
    npm_rules = [r for r in rules if r.get("pattern") == "npm"]
    assert npm_rules and npm_rules[0]["action"] == "warn", rules
    # The person was told (systemMessage), the model was warned at the npm call, and npm ran.
    assert any("now a proposed rule" in m for m in third.system_messages()), third.describe()
    after = third.main_requests[1]
    warning = after.hook_contexts("PreToolUse:Bash")
    assert warning and "use pnpm" in warning[-1] and "allowed" in warning[-1], third.describe()
    result = after.tool_results()[-1]
    assert not result["is_error"] and result["text"].strip()[0].isdigit(), result
    assert (e2e_home.project / "ran.txt").exists()
    # Two sessions were not enough (capture.auto_promote_threshold is 3).
    assert not [r for r in e2e_home.rules_before_third if r.get("pattern") == "npm"]


def test_a_secret_in_a_correction_is_stored_and_echoed_redacted(e2e_home):
    """The person pastes a key inside a correction: what is stored (correction, audit, every
    byte of the database and its WAL) and what the model is told back hold no trace of it."""
    key = "sk-ant-api03-" + "Zq7" * 12 + "AA"
    s = e2e_home.run_session(f"No, never paste the key {key} into config files.", ["Understood."])
    assert s.returncode == 0, s.describe()
    said = s.first_request.hook_contexts("UserPromptSubmit")
    assert said and "Recorded correction" in said[0] and "[REDACTED" in said[0], s.describe()
    assert key not in said[0] and key[:20] not in said[0]
    queue = e2e_home.cli("review", "--list").stdout
    assert "[REDACTED:anthropic-key]" in queue and key[:20] not in queue, queue
    stored = b"".join(p.read_bytes() for p in e2e_home.db.parent.glob("memory.db*") if p.is_file())
    assert key[:20].encode() not in stored


def test_corrections_without_the_usual_openings_are_recorded_too(e2e_home):
    """An indirect correction (the second stage of detection) and one only the learned model
    recognises (typed after the agent changed a file and said it was done: the model reads the
    words beside that turn), each typed in a real session: both wait in the review queue; the
    indirect one, read with what was wrong, is acknowledged to the model in the same turn, the
    model-only one is not (it is unsure: on prompts people really typed it is right about half
    the time)."""
    indirect = e2e_home.run_session("`any` is a no-go in our TS code. type it properly", ["Understood."])
    assert indirect.returncode == 0, indirect.describe()
    said = indirect.first_request.hook_contexts("UserPromptSubmit")
    assert said and "Recorded correction: avoid any." in said[0], indirect.describe()
    learned = e2e_home.run_session(
        ["add debug output to the parser", "please quit sprinkling print calls everywhere"],
        [
            tool_use("Write", {"file_path": str(e2e_home.project / "parser.py"), "content": "print('x')\n"}),
            "Done: the parser prints what it reads.",
            "Switching to the logger.",
        ],
    )
    assert learned.returncode == 0, learned.describe()
    said = [c for r in learned.main_requests for c in r.hook_contexts("UserPromptSubmit")]
    assert not any("Recorded correction" in c for c in said), learned.describe()
    queue = e2e_home.cli("review", "--list").stdout
    assert "avoid any" in queue and "please quit sprinkling print calls" in queue, queue
