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
    # What actually ran: the command wrote its file and the model saw a normal result.
    assert (e2e_home.project / "build.log").read_text() == "built\n"
    assert [t["is_error"] for t in s.tool_results()] == [False]
    assert s.result.get("subtype") == "success"
