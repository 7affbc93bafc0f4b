"""A rule with evidence on both sides of "approve", in the real Claude Code (scripted model).

The person corrects the same mistake in three sessions; the review shows the proposed rule's
replay on those very sessions (it fires on the corrected calls, not on the accepted ones);
approving it as a block stops the next session's call; the rule's proof then counts one fire
and one obey (the agent did not try the blocked call again and moved on)."""

from __future__ import annotations

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e

CORRECTION = "No, use python.exe not pythonw.exe"


def test_corrected_three_times_replayed_approved_blocks_and_is_obeyed(fresh_home):
    home = fresh_home
    for n in range(3):
        s = home.run_session(
            ["launch the app", CORRECTION],
            [[bash(f"pythonw.exe src/main.py --run {n} || true", "launch the app")], "Launched.", "Understood."],
        )
        assert s.returncode == 0, s.describe()
    accepted = home.run_session(
        "launch it the usual way",
        [[bash("python.exe src/main.py || true", "launch")], [bash("grep -rn pythonw src || true", "look")], "Done."],
    )
    assert accepted.returncode == 0, accepted.describe()

    [item] = [i for i in home.cli_json("review", "--list") if i.get("item") == "proposal"]
    assert item["rule"]["pattern"] == "pythonw.exe"
    replay = item["replay"]
    assert (replay["fires_on_corrected"], replay["fires_on_let_pass"], replay["offer"]) == (3, 0, "gate"), replay
    assert sorted(c["call"] for c in replay["corrected"]) == [
        f"pythonw.exe src/main.py --run {n} || true" for n in range(3)
    ]
    listed = home.cli("review", "--list").stdout
    assert "fires on 3 of 3 corrected call(s), 0 you let pass" in listed and "offered as a gate" in listed

    home.cli("review", "--approve", item["id"], "--action", "block")
    rule_id = item["promoted_rule_id"]
    after = home.run_session(
        "launch the app",
        [
            [bash("touch blocked.txt && pythonw.exe src/main.py", "launch")],
            [bash("python.exe src/main.py || true")],
            "Done.",
        ],
    )
    assert after.returncode == 0, after.describe()
    assert not (home.project / "blocked.txt").exists(), after.describe()

    shown = home.cli_json("rules", "show", rule_id)
    proof = shown["proof"]
    assert (proof["fired"], proof["by_action"], proof["obeyed"], proof["repeated"]) == (1, {"block": 1}, 1, 0), proof
    assert proof["agents"] == ["claude"]
    assert "fired 1 (block 1): obeyed 1" in home.cli("rules", "show", rule_id).stdout
