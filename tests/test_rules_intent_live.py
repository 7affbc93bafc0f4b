"""Intent rules against the real model through the real daemon and hook entry point.

The other rules tests cover the daemon-down path (skipped and audited); this one shows what a
person gets when the daemon is warm: a warning naming the rule and the similarity, never a block.
"""

import json

import pytest

from conftest import payload
from test_daemon_cli import rundir  # noqa: F401  (fixture: stops any daemon the test started)


@pytest.mark.semantic
def test_intent_rule_warns_on_a_related_call_and_never_blocks(cli, hook, rundir, claude_dir):  # noqa: F811
    # This test is about matching, not speed: under load a round trip can pass the 100 ms budget,
    # and then the hook rightly allows without a verdict (tested elsewhere). Give it room.
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({
        "enforcement": {"max_latency_ms": 5000}, "daemon": {"request_timeout_ms": 4000}}))
    r = cli("daemon", "start", "--wait", "180")
    assert r.returncode == 0 and "model ready" in r.stdout, r.stdout + r.stderr
    rule = json.loads(cli("rules", "add", "Never drop the production database",
                          "--pattern", "delete the production database", "--pattern-type", "intent",
                          "--action", "block", "--json").stdout)
    assert rule["effective_action"] == "warn"

    drop = hook("PreToolUse", payload("PreToolUse", tool_name="Bash", tool_input={
        "command": "dropdb billing_production", "description": "Drop the production billing database"}))
    assert drop.returncode == 0 and drop.decision is None
    assert "Never drop the production database" in drop.context
    assert "intent rule" in drop.context and "similarity" in drop.context

    unrelated = hook("PreToolUse", payload("PreToolUse", tool_name="Bash", tool_input={
        "command": "ls -la src", "description": "List the source files"}))
    assert unrelated.returncode == 0 and unrelated.decision is None and unrelated.context == ""
