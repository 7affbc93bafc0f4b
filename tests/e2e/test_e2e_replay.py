"""`rules replay` on sessions the real agents wrote: Claude Code, Codex CLI and Gemini CLI are run
against their scripted stand-ins, then a rule is replayed on what they recorded in HOME."""

from __future__ import annotations

import pytest

from .agent_standins import codex_exec, codex_patch, gemini_call
from .sessions import _check_no_hook_failures, _make_home
from .standin import bash, text, tool_use
from .test_e2e_agents import Agents, agent_bins  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def recorded(claude_bin, agent_bins, tmp_path_factory):  # noqa: F811
    home = _make_home(tmp_path_factory.mktemp("e2e-replay"), claude_bin)
    agents = Agents(home, agent_bins)
    claude = home.run_session(
        "tidy up and commit",
        [
            [bash("git status")],
            [bash("git commit -m 'fix: tidy'")],
            [tool_use("Write", {"file_path": str(home.project / "notes.md"), "content": "git commit later"})],
            [bash("echo git commit is only words here")],
            [text("Done.")],
        ],
    )
    assert claude.returncode == 0, claude.describe()
    codex = agents.codex(
        "commit it",
        [
            [codex_exec("git add -A && git commit -m wip || true")],
            [codex_exec("git log --oneline | head -1 || true")],
            [codex_patch("*** Begin Patch\n*** Add File: plan.md\n+git commit after review\n*** End Patch\n")],
        ],
    )
    assert codex.proc.returncode == 0, codex.describe()
    gemini = agents.gemini(
        "commit it",
        [
            [gemini_call("run_shell_command", {"command": "git commit --amend --no-edit || true"})],
            [gemini_call("run_shell_command", {"command": "git diff --stat || true"})],
        ],
    )
    assert gemini.proc.returncode == 0, gemini.describe()
    yield home
    _check_no_hook_failures(home)


def test_replay_finds_exactly_the_commits_each_agent_recorded(recorded):
    before = len(recorded.cli_json("audit", "--limit", "1000"))
    out = recorded.cli_json("rules", "replay", "--pattern", "git commit", "--type", "command", "--limit", "100")
    found = sorted((c["agent"], c["call"]) for c in out["calls"])
    assert found == [
        ("claude", "git commit -m 'fix: tidy'"),
        ("codex", "git add -A && git commit -m wip || true"),
        ("gemini", "git commit --amend --no-edit || true"),
    ], out
    assert out["counts"] == {"block": 3}
    assert {a for a, n in out["calls_by_agent"].items() if n} == {"claude", "codex", "gemini"}
    assert len(out["sessions"]) == 3
    # a dry run: nothing was audited
    assert len(recorded.cli_json("audit", "--limit", "1000")) == before


def test_replay_of_a_file_rule_sees_codex_patches_and_each_agents_writes(recorded):
    out = recorded.cli_json("rules", "replay", "--pattern", r"\.md$", "--type", "regex", "--tools", "Write,Edit")
    found = sorted((c["agent"], c["call"].rsplit("/", 1)[-1]) for c in out["calls"])
    assert found == [("claude", "notes.md"), ("codex", "plan.md")], out


def test_replay_of_one_agent_only(recorded):
    out = recorded.cli_json("rules", "replay", "--pattern", "git", "--type", "command", "--agent", "gemini")
    assert set(out["calls_by_agent"]) == {"gemini"}
    assert sorted(c["call"] for c in out["calls"]) == [
        "git commit --amend --no-edit || true",
        "git diff --stat || true",
    ]
