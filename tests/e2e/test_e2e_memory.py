"""Memories reaching the model through the real Claude Code: SessionStart injection, and a
``[MEMORY: ...]`` marker stored by the Stop hook and injected in the next session."""

from __future__ import annotations

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e


def test_session_start_injects_a_stored_memory(e2e_home, run_session):
    """A memory added with the CLI is in the SessionStart context of the first request, and the
    session runs its tool call normally with memory-cli's hooks around it."""
    e2e_home.cli("add", "The whisperclick build uses uv sync, never pip install", "--type", "fact")

    s = run_session("build the project", [bash("echo built > build.log"), "Built."])

    assert s.returncode == 0, s.describe()
    contexts = s.first_request.hook_contexts("SessionStart")
    assert contexts, s.describe()
    assert "The whisperclick build uses uv sync, never pip install" in contexts[0]
    assert "<memory-cli-context>" in contexts[0]
    # The hook answered cleanly: exit 0, nothing on stderr for Claude Code to show as an error.
    responses = s.hook_responses("SessionStart")
    assert responses and all(r.get("exit_code") == 0 and not r.get("stderr") for r in responses), responses
    # What actually ran: the command wrote its file and the model saw a normal result.
    assert (e2e_home.project / "build.log").read_text() == "built\n"
    assert [t["is_error"] for t in s.tool_results()] == [False]
    assert s.result.get("subtype") == "success"


def test_stop_marker_is_stored_and_injected_in_the_next_session(e2e_home, run_session):
    """The assistant writes a ``[MEMORY:...]`` marker in its final text; the Stop hook stores it
    in the project's scope, and the next session starts with it in its context."""
    observation = "Accepts connections about 15s after the whisperclick container starts"
    first = run_session(
        "bring the database up",
        [
            bash("echo started", "start the database"),
            f"The database is up.\n[MEMORY:timing:postgres] {observation}\nReady when you are.",
        ],
    )
    assert first.returncode == 0, first.describe()
    stored = [e for e in e2e_home.cli_json("list") if e["content"] == observation]
    assert len(stored) == 1, e2e_home.cli("list").stdout
    assert stored[0]["category"] == "timing" and stored[0]["subject"] == "postgres"
    assert stored[0]["scope"] == f"repo:{e2e_home.project}"  # this checkout, not every "whisperclick"
    assert stored[0]["session_id"] == first.result["session_id"]
    # Not shown back to the model in the session that wrote it: the marker came from the model.
    assert all(observation not in c for c in first.last_request.hook_contexts("SessionStart"))

    second = run_session("run the integration tests", ["Running them now."])
    assert second.returncode == 0, second.describe()
    start = second.first_request.hook_contexts("SessionStart")
    # shown with its category and subject, so the model knows what the 15 s are about
    assert start and f"[timing] postgres: {observation}" in start[0], second.describe()
    assert f"### repo: {e2e_home.project}" in start[0]


_UNRELATED_FACTS = [
    "Staging deploys go out from the release branch every Tuesday",
    "The CI runners cache wheels under /var/cache/pipwheels",
    "Grafana dashboards live in the ops repository, folder dashboards",
    "Invoices are rendered with WeasyPrint templates in billing/templates",
    "The translation files are synced nightly from Crowdin",
    "Feature flags are read from LaunchDarkly at process boot",
    "Redis keys expire after 36 hours in the session store",
    "Docker images are tagged with the short commit hash",
    "Database migrations must be reviewed by the data team",
    "The marketing site is a separate Astro project",
    "Error emails go to the alerts mailing list",
    "Windows installers are signed on the dedicated signing box",
    "Benchmarks run on the quiet machine named perf-02",
    "The changelog follows the keep-a-changelog format",
    "Logs rotate daily and are kept for fourteen days",
]


def test_prompt_injection_finds_a_memory_by_keyword_with_the_daemon_off(fresh_home):
    """With the embedding daemon switched off in the config (no vectors at all), the per-prompt
    injection still finds, by keywords alone, a memory the session block left out.

    Sixteen global facts compete at session start, where relevance to the project decides; the
    one the prompt asks about, with the lowest confidence, is not among them there and comes
    beside the prompt that asks about it."""
    home = fresh_home
    home.write_config({"daemon": {"autostart": False}})
    notes = home.root / "MEMORY.md"  # the person's old notes, migrated in one command
    notes.write_text("# Notes\n\n" + "".join(f"- {fact}\n" for fact in _UNRELATED_FACTS))
    home.cli("import-markdown", "--source", notes, "--scope", "global")
    needle = "The hotkey listener needs the uinput kernel module loaded before startup"
    home.cli("add", needle, "--confidence", "0.4")  # migrated notes come in at 0.7
    s = home.run_session(
        "why does the hotkey listener fail at startup",
        ["Let me check uinput."],
        env={"MEMORY_CLI_DAEMON_AUTOSTART": None},
    )
    assert s.returncode == 0, s.describe()
    start = s.first_request.hook_contexts("SessionStart")
    assert not start or needle not in start[0], start
    beside = s.first_request.hook_contexts("UserPromptSubmit")
    assert beside and needle in beside[-1], s.describe()
    assert "Memory related to this prompt" in beside[-1]
    assert not [p for p in home.processes() if "memory_cli.daemon" in p[1]]


def test_a_session_started_in_a_subfolder_belongs_to_the_repository(e2e_home, run_session):
    e2e_home.cli(
        "add",
        "The whisperclick hotkey daemon reads ~/.config/whisperclick/keys.toml",
        "--scope",
        "project:whisperclick",
    )
    s = run_session("which file holds the hotkeys?", ["keys.toml"], cwd=e2e_home.project / "src")
    assert s.returncode == 0, s.describe()
    start = s.first_request.hook_contexts("SessionStart")
    assert start and "keys.toml" in start[0], s.describe()
