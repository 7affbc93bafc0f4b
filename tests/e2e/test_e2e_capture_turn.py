"""A short reply read beside the agent's last turn, through the real Claude Code.

The UserPromptSubmit hook reads the turn being answered from the transcript Claude Code names in
its payload, so the same bare "no" means two things: typed right after the agent edited a file,
ran a command and claimed the fix works, it rejects the work and waits in ``memory-cli review``
(as an inferred correction, not told to the model); typed right after the agent asked whether to
delete something, it answers the question and nothing is stored. Both depend on Claude Code
having written the agent's turn (its tool calls and last words) to the transcript by the time the
next prompt's hook runs."""

from __future__ import annotations

import subprocess

import pytest

from .standin import bash, text, tool_use

pytestmark = pytest.mark.e2e

CLAIMED_FIX = "I've fixed the retry loop in the parser. All tests pass now."
ASKED = "There are two stale branches, feature/old-login and tmp-fix. Should I delete them?"
PARSER = (
    "def fetch(retry):\n    for attempt in range(retry + 1):\n        if attempt == retry:\n            return None\n"
)


def _pending(home) -> list[dict]:
    """The corrections waiting in the person's review queue (proposals and scope requests aside)."""
    return [i for i in home.cli_json("review", "--list") if "statement" in i]


def _claimed_fix_script(home) -> list:
    """The agent writes the parser, runs a command and says the fix works; then it answers the
    person's next prompt."""
    return [
        [
            text("Let me fix the retry loop."),
            tool_use("Write", {"file_path": str(home.project / "src" / "parser.py"), "content": PARSER}),
        ],
        bash("python3 -c pass", "run the parser's tests"),
        CLAIMED_FIX,
        "Sorry, let me look again.",
    ]


def test_a_bare_no_after_a_claimed_fix_waits_in_review_unsaid(fresh_home):
    """The agent writes the parser, runs a command and says the fix works; the person answers
    "no": one inferred correction "no" waits for review, and the model is not told of it."""
    parser = fresh_home.project / "src" / "parser.py"
    s = fresh_home.run_session(["fix the retry loop in the parser", "no"], _claimed_fix_script(fresh_home))
    assert s.returncode == 0, s.describe()
    assert "attempt == retry" in parser.read_text(), s.describe()
    assert [r["is_error"] for r in s.tool_results()] == [False, False], s.describe()
    # The model answered the "no" after its claim of success: the script was used up in order.
    assert s.last_request.answered == [text("Sorry, let me look again.")], s.describe()

    pending = _pending(fresh_home)
    assert [(i["statement"], i["kind"]) for i in pending] == [("no", "inferred")], pending
    said = [c for r in s.main_requests for c in r.hook_contexts("UserPromptSubmit")]
    assert not any("Recorded correction" in c for c in said), said
    assert "Recorded correction" not in s.last_request.shown_text()


def test_a_bare_no_after_a_question_is_an_answer_and_nothing_is_stored(fresh_home):
    """The agent lists the branches and asks whether to delete two; "no" answers it."""
    _repository_with_branches(fresh_home.project, "feature/old-login", "tmp-fix")
    script = [bash("git branch --list", "list the branches"), ASKED, "Leaving them alone."]
    s = fresh_home.run_session(["clean up the repository", "no"], script)
    assert s.returncode == 0, s.describe()
    listed = s.tool_results()[0]
    assert not listed["is_error"] and "feature/old-login" in listed["text"], s.describe()
    assert s.last_request.answered == [text("Leaving them alone.")], s.describe()
    assert _pending(fresh_home) == [], fresh_home.cli("review", "--list").stdout
    assert fresh_home.cli_json("review", "--list", "--all") == [], "a correction was stored"


def test_without_a_transcript_the_bare_no_is_not_stored(fresh_home):
    """With ``--no-session-persistence`` Claude Code writes no transcript: the agent's turn
    cannot be read (it reads as no turn, or as unknown at the stricter threshold), and the bare
    "no" that the claimed fix made a correction is not stored: without the turn, say less."""
    s = fresh_home.run_session(
        ["fix the retry loop in the parser", "no"],
        _claimed_fix_script(fresh_home),
        extra_args=("--no-session-persistence",),
    )
    assert s.returncode == 0, s.describe()
    assert s.last_request.answered == [text("Sorry, let me look again.")], s.describe()
    assert _pending(fresh_home) == [], fresh_home.cli("review", "--list").stdout


def _repository_with_branches(project, *branches: str) -> None:
    def git(*args):
        subprocess.run(
            ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", *args],
            cwd=project,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "start")
    for branch in branches:
        git("branch", branch)
