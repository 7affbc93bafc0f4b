"""The hooks fed by the agent stores, in the real Claude Code: a report the model saved with
`save_report` opens the next session (not the automatic session-end summary written after it),
and a recurring command far slower than its recorded runs
is flagged from the `duration_ms` Claude Code sends with PostToolUse."""

from __future__ import annotations

import pytest

from .standin import bash, tool_use

pytestmark = pytest.mark.e2e


def test_report_saved_by_the_model_starts_the_next_session(e2e_home):
    tool = "mcp__memory-cli__save_report"
    first = e2e_home.run_session(
        "wrap up",
        [tool_use(tool, {"summary": "Moved the config loader to pydantic; next: drop the YAML fallback"}), "Saved."],
        allowed_tools=f"Bash,{tool}",
    )
    assert first.returncode == 0, first.describe()
    [saved] = first.last_request.tool_results()
    assert not saved["is_error"], saved
    second = e2e_home.run_session("continue", ["Continuing."])
    # The report line follows memory-cli's context block in the same SessionStart context.
    shown = second.first_request.shown_text()
    assert "Previous session in whisperclick" in shown, second.describe()
    assert "next: drop the YAML fallback" in shown, second.describe()
    # The session-end summary written after the agent's own report did not replace it.
    auto = [r for r in e2e_home.cli_json("reports", "list") if r["source"] == "session"]
    assert auto and "Last answer: Saved." in auto[-1]["summary"]
    assert "Last answer: Saved." not in shown


def test_a_slow_recurring_command_is_flagged_against_its_baseline(e2e_home):
    (e2e_home.project / "Makefile").write_text("test:\n\tsleep 2\n")
    for _ in range(5):
        e2e_home.cli(
            "baselines", "record", "cmd: make test", "0.5", "--unit", "s", "--scope", "project:" + e2e_home.project.name
        )
    s = e2e_home.run_session("run the tests", [bash("make test", "run the tests"), "Done."])
    assert s.returncode == 0, s.describe()
    shown = s.last_request.shown_text()
    assert "this run of `make test` was unusual" in shown, s.describe()
    baseline = e2e_home.cli_json("baselines", "show", "cmd: make test")
    assert baseline["n"] == 6 and baseline["max"] >= 2.0, baseline  # the slow run is now a sample
