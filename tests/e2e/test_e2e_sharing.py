"""Shared memory through the real Claude Code: a rule a teammate shared in
.claude/memory-cli.toml arrives with the repository and denies the call in this person's session,
with no `memory-cli` command run on this side."""

from __future__ import annotations

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e


def test_a_rule_from_the_repository_file_denies_the_call_in_a_teammates_session(fresh_home, tmp_path):
    mate_db = tmp_path / "teammate.db"
    fresh_home.cli(
        "--db",
        mate_db,
        "add",
        "Never run the migration against prod from a laptop",
        "--type",
        "rule",
        "--pattern",
        "alembic upgrade --prod",
        "--pattern-type",
        "command",
        "--action",
        "block",
        "--alternative",
        "run it from the deploy pipeline",
        "--share",
    )
    assert (fresh_home.project / ".claude" / "memory-cli.toml").exists()

    s = fresh_home.run_session(
        "migrate prod",
        [
            bash("touch ran.txt && alembic upgrade --prod head", "migrate"),
            "Not run.",
        ],
    )
    assert s.returncode == 0, s.describe()
    start = s.first_request.hook_contexts("SessionStart")
    assert start and "Never run the migration" in start[0], s.describe()
    denied = s.main_requests[1].tool_results()[-1]
    assert denied["is_error"] and "Never run the migration" in denied["text"], s.describe()
    assert "deploy pipeline" in denied["text"]
    assert not (fresh_home.project / "ran.txt").exists()
    rules = fresh_home.cli_json("rules", "list")
    assert [r["source"] for r in rules] == ["repo"] and rules[0]["confirmed"] is True
