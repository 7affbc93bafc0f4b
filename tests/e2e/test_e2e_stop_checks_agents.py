"""The commit lesson's Stop check in Codex CLI (``Stop``) and Gemini CLI (``AfterAgent``),
through their pinned binaries and scripted models: a turn that wrote a file and ended without
committing is sent back with the reason, and ends once it commits; memory-cli reads the turn
from the agent's own session file."""

from __future__ import annotations

import subprocess

import pytest

from .agent_standins import codex_exec, codex_patch, codex_text, gemini_call, gemini_text
from .sessions import _check_no_hook_failures, _make_home
from .test_e2e_agents import Agents, agent_bins  # noqa: F401 - the pinned binaries' fixture

pytestmark = pytest.mark.e2e

COMMIT = "no, always commit before you finish a turn that edited files"
GIT_COMMIT = "git add -A && git -c user.name=e2e -c user.email=e2e@example.invalid commit -qm {msg}"


@pytest.fixture
def agents(claude_bin, agent_bins, tmp_path_factory):  # noqa: F811
    home = _make_home(tmp_path_factory.mktemp("e2e-stop-agents"), claude_bin)
    subprocess.run(["git", "init", "-q", str(home.project)], check=True)
    cid = home.cli_json("capture", "-m", COMMIT)["id"]
    home.cli("review", "--approve", cid, "--form", "stop-check")
    yield Agents(home, agent_bins)
    _check_no_hook_failures(home)


def _verdicts(home, agent: str) -> list[str]:
    rows = home.cli_json("audit", "--action", "stop_check", "--limit", "100")
    return [r["result"] for r in sorted(rows, key=lambda r: r["timestamp"]) if r["agent"] == agent]


def _log(home) -> str:
    return subprocess.run(["git", "-C", str(home.project), "log", "--oneline"], capture_output=True, text=True).stdout


def test_codex_is_sent_back_to_commit_a_turn_that_edited_files(agents):
    patch = "*** Begin Patch\n*** Add File: notes.txt\n+notes\n*** End Patch\n"
    run = agents.codex(
        "write the notes",
        [
            [codex_patch(patch)],
            [codex_text("Done.")],
            [codex_exec(GIT_COMMIT.format(msg="codex-notes"))],
            [codex_text("Committed.")],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert (agents.home.project / "notes.txt").exists(), run.describe()
    assert "codex-notes" in _log(agents.home), run.describe()
    assert "ran no `git commit`" in run.standin.shown(run.standin.main_requests[2]), run.describe()
    assert _verdicts(agents.home, "codex") == ["sent_back", "kept_after_send_back"], run.describe()


def test_gemini_is_sent_back_to_commit_a_turn_that_edited_files(agents):
    target = str(agents.home.project / "gnotes.txt")
    run = agents.gemini(
        "write the notes",
        [
            [gemini_call("write_file", {"file_path": target, "content": "notes\n"})],
            [gemini_text("Done.")],
            [gemini_call("run_shell_command", {"command": GIT_COMMIT.format(msg="gemini-notes")})],
            [gemini_text("Committed.")],
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert "gemini-notes" in _log(agents.home), run.describe()
    assert "ran no `git commit`" in run.standin.shown(run.standin.main_requests[2]), run.describe()
    assert _verdicts(agents.home, "gemini") == ["sent_back", "kept_after_send_back"], run.describe()
