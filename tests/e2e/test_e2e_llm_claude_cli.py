"""The claude-cli provider with the real `claude -p` (pinned Claude Code) talking to a scripted
Messages API stand-in: memories stored, secrets never sent, memory-cli's own hooks silent in
the inner session, failures falling back to the extractive reader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.llm_standin import StandIn, slow, text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "llm" / "session_whisperclick.jsonl"
SECRETS = ("sk-ant-api03-Qm7vX2pL9wK4tR8nB3cF6hJ1yD5sG0aZ", "ghp_R4nd0mT0k3nV4lu3Xq9Zt7Lm2Wp5Ks8Jd1Hy6")
ANSWER = {
    "memories": [
        {
            "content": "whisperclick's audio tests need the fake input device from tests/conftest.py.",
            "type": "fact",
            "scope": "project",
            "category": "remediation",
        },
        {"content": "Run the whisperclick audio tests with -p no:randomly.", "type": "preference", "scope": "project"},
    ],
    "report": "Fixed the failing audio tests.",
}


@pytest.fixture
def home(fresh_home, claude_bin):
    fresh_home.write_config(
        {"llm": {"provider": "claude-cli", "claude_command": str(claude_bin), "timeout_s": 120, "retries": 0}}
    )
    (fresh_home.project / "CLAUDE.md").write_text("PROJECT-CLAUDE-MD-MARKER: never read by the summariser\n")
    return fresh_home


def transcript(home) -> Path:
    p = home.root / "session.jsonl"
    shutil.copy(FIXTURE, p)
    return p


def hook_rows(home) -> int:
    from memory_cli.store.db import Store

    with Store.open(home.db) as store:
        return store.value("SELECT count(*) FROM memory_audit_log WHERE action IN ('hook', 'hook_error')")


def test_claude_cli_writes_session_memories(home):
    # A model answering in text, with the JSON in a fence, as a chatty model would.
    with StandIn([text("Here are the memories:\n```json\n" + json.dumps(ANSWER) + "\n```")], default=text("ok")) as si:
        r = home.cli("summarize", str(transcript(home)), "--json", env={"ANTHROPIC_BASE_URL": si.url})
    out = json.loads(r.stdout)
    assert out["provider"] == "claude-cli" and out["stored"] == 2, r.stderr
    stored = [e for e in home.cli_json("list") if e["source"] == "session"]
    assert sorted(e["content"] for e in stored) == sorted(m["content"] for m in ANSWER["memories"])
    assert {e["scope"] for e in stored} == {"repo:/home/u/work/whisperclick"}  # the transcript's checkout
    [ours] = si.ours
    body = ours["body"]
    # --tools "" and --strict-mcp-config: no tools at all, not even memory-cli's own MCP server
    # (which `memory-cli install` registered in this HOME): the inner session can only answer.
    assert not body.get("tools")
    assert "mcp__memory-cli" not in ours["raw"]
    assert "PortAudio not initialized" in ours["raw"] and "save_memories" in ours["raw"]
    everything = si.all_text()
    assert not any(s in everything for s in SECRETS)
    assert "PROJECT-CLAUDE-MD-MARKER" not in everything  # run outside the project
    # memory-cli's hooks are installed in this HOME, yet the inner session did not reach the store.
    assert hook_rows(home) == 0
    calls = home.cli_json("audit", "--action", "llm_call")
    assert calls[0]["result"] == "ok" and calls[0]["details"]["input_tokens"] > 0


def test_claude_cli_unusable_answer_falls_back(home):
    with StandIn([text("Sorry, I can't help with that.")], default=text("ok")) as si:
        r = home.cli("summarize", str(transcript(home)), "--json", env={"ANTHROPIC_BASE_URL": si.url})
    out = json.loads(r.stdout)
    assert out["provider"] == "extractive" and "malformed" in out["fallback"] and out["stored"] >= 1
    assert len(si.ours) == 1


def test_claude_cli_timeout_falls_back(home):
    home.write_config(
        {"llm": {"provider": "claude-cli", "claude_command": str(home.claude_bin), "timeout_s": 15, "retries": 0}}
    )
    with StandIn([slow(120, text("{}"))], default=text("ok")) as si:
        r = home.cli("summarize", str(transcript(home)), "--json", env={"ANTHROPIC_BASE_URL": si.url})
    out = json.loads(r.stdout)
    assert out["provider"] == "extractive" and "timeout" in out["fallback"] and out["stored"] >= 1
