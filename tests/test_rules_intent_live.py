"""Intent rules against the real model through the real daemon and hook entry point.

The other rules tests cover the daemon-down path (skipped and audited); these show what a
person gets with the DEFAULT settings when the daemon is warm: a warning naming the rule and
the similarity, never a block, in (nearly) every call; and that calls without intent rules never
touch the daemon.
"""

import json

import pytest
from helpers.hooks import payload
from test_daemon_cli import rundir  # noqa: F401  (fixture: stops any daemon the test started)

from memory_cli.daemon import client, protocol

# Loads the machine on purpose or needs it quiet: `make test` runs these after the parallel part.
pytestmark = pytest.mark.exclusive

CALLS = 100


def _start_daemon(cli):
    r = cli("daemon", "start", "--wait", "180")
    assert r.returncode == 0 and "model ready" in r.stdout, r.stdout + r.stderr


def _served(rundir):  # noqa: F811
    status = client.status(timeout_ms=5000, socket_path=protocol.socket_path(rundir))
    assert status is not None
    return status["requests_served"]


@pytest.mark.semantic
@pytest.mark.slow
def test_intent_rule_warns_on_a_related_call_with_default_settings(cli, hook, rundir):  # noqa: F811
    _start_daemon(cli)
    rule = json.loads(
        cli(
            "rules",
            "add",
            "Never drop the production database",
            "--pattern",
            "delete the production database",
            "--pattern-type",
            "intent",
            "--action",
            "block",
            "--json",
        ).stdout
    )
    assert rule["effective_action"] == "warn"

    warned = 0
    for i in range(CALLS):
        drop = hook(
            "PreToolUse",
            payload(
                "PreToolUse",
                tool_name="Bash",
                tool_input={
                    "command": f"dropdb billing_production_{i}",
                    "description": "Drop the production billing database",
                },
            ),
        )
        assert drop.returncode == 0 and drop.decision is None  # intent rules never block
        if "Never drop the production database" in drop.context:
            assert "intent rule" in drop.context and "similarity" in drop.context
            warned += 1
    assert warned >= 95, f"the intent rule's warning reached Claude in {warned} of {CALLS} calls"

    unrelated = hook(
        "PreToolUse",
        payload(
            "PreToolUse", tool_name="Bash", tool_input={"command": "ls -la src", "description": "List the source files"}
        ),
    )
    assert unrelated.returncode == 0 and unrelated.decision is None and unrelated.context == ""


@pytest.mark.semantic
def test_calls_without_intent_rules_never_ask_the_daemon(cli, hook, rundir, db_path):  # noqa: F811
    _start_daemon(cli)
    cli("rules", "add", "no npm", "--pattern", "npm", "--pattern-type", "command", "--action", "block")
    cli("rules", "add", "no rm -rf /", "--pattern", r"rm\s+-rf\s+/", "--pattern-type", "regex", "--action", "block")
    before = _served(rundir)
    assert hook("PreToolUse", payload("PreToolUse", tool_input={"command": "npm i"})).decision == "deny"
    for command in ("ls", "rm -rf ./build", "git status"):
        assert hook("PreToolUse", payload("PreToolUse", tool_input={"command": command})).decision is None
    assert _served(rundir) == before  # (status requests are not counted)
    # The counter does see a hook that asks: with an intent rule, the same call does.
    cli(
        "rules",
        "add",
        "Never drop the production database",
        "--pattern",
        "delete the production database",
        "--pattern-type",
        "intent",
        "--action",
        "warn",
    )
    after_add = _served(rundir)
    hook("PreToolUse", payload("PreToolUse", tool_input={"command": "git status"}))
    assert _served(rundir) == after_add + 1
