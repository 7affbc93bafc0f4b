"""Session memories written by the person's own Claude Code, turned on with one command: the
SessionEnd hook that `memory-cli install` registered queues a long real transcript, the detached
job sends ONE request through the real `claude -p` (the pinned binary, talking to a scripted
model on 127.0.0.1) within the budget and carrying the person's last prompt, and the model's
memories are stored; the next session end, past the daily token cap, sends nothing and leaves
a note in its report."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers.llm_standin import StandIn, text

pytestmark = pytest.mark.e2e

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
LONGEST = REAL / "heldout2" / "hannibal8856-1.jsonl"  # 1,002 turns, about 121k tokens whole
NEXT = REAL / "heldout2" / "yakschuss-4.jsonl"
MEMORY = (
    "Flash the mds4xgl3 image only after the person confirms; the remote link is unstable, so stop after the build."
)
ANSWER = {
    "memories": [{"content": MEMORY, "type": "preference", "scope": "project"}],
    "report": "Built the SNMP opt-in change; flashing waits for the person.",
}


def _last_prompt(path: Path) -> str:
    from memory_cli.llm import transcript
    from memory_cli.llm.condense import last_prompt

    ex = transcript.read(str(path), 0)
    transcript.redact_all(ex)
    return last_prompt(ex) or ""


def _session_end(home, transcript: Path, session_id: str, env: dict) -> None:
    """Run the SessionEnd command `install` registered, as Claude Code runs it."""
    [group] = home.settings()["hooks"]["SessionEnd"]
    command = group["hooks"][0]["command"]
    payload = {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "cwd": str(home.project),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    }
    proc = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=home.env(env),
        cwd=str(home.project),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def _wait(predicate, seconds: float = 180):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.5)
    return predicate()


def _queued(home) -> dict:
    """The transcripts SessionEnd queued that the detached job has not handled yet."""
    from memory_cli.llm.queue import PENDING_KEY
    from memory_cli.store import kvstate
    from memory_cli.store.db import Store

    with Store.open(home.db) as store:
        return kvstate.with_prefix(store, PENDING_KEY)


def _summaries(home, session_id: str) -> list[dict]:
    return [r for r in home.cli_json("audit", "--action", "summarize") if r["session_id"] == session_id]


def test_config_set_turns_on_claude_cli_session_memories_within_the_budget_and_the_cap(fresh_home):
    home = fresh_home
    home.install()
    home.cli("config", "set", "llm.provider", "claude-cli")
    home.cli("config", "set", "llm.claude_command", str(home.claude_bin))
    home.cli("config", "set", "llm.timeout_s", "120")
    home.cli("config", "set", "llm.retries", "0")
    home.cli("config", "set", "llm.daily_token_cap", "30000")
    first, second = home.root / "first.jsonl", home.root / "second.jsonl"
    shutil.copy(LONGEST, first)
    shutil.copy(NEXT, second)

    with StandIn([text(json.dumps(ANSWER))], default=text("ok")) as si:
        env = {"ANTHROPIC_BASE_URL": si.url}
        _session_end(home, first, "sess-long-1", env)
        stored = _wait(lambda: [e for e in home.cli_json("list") if e["source"] == "session"])
        assert [e["content"] for e in stored] == [MEMORY], _summaries(home, "sess-long-1")
        assert {e["scope"] for e in stored} == {f"repo:{home.project}"}
        [ours] = si.ours
        sent = json.loads(ours["raw"])
        prompt = "\n".join(
            b.get("text", "") if isinstance(b, dict) else str(b)
            for m in sent["messages"]
            for b in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
        )
        assert _last_prompt(first) in prompt  # the person's last words in the session
        assert "[... " in prompt and "steps left out" in prompt  # condensed, not cut head and tail
        # Within the budget: memory-cli's estimate, and what the stand-in counts (chars/4 of the
        # whole body, Claude Code's own additions included).
        [call] = [c for c in home.cli_json("audit", "--action", "llm_call") if c["result"] == "ok"]
        assert call["details"]["estimated_tokens"] <= 16000
        assert len(ours["raw"]) // 4 <= 20000
        spent = home.cli_json("stats")["llm_tokens"]
        assert spent["today"] > 0 and spent["per_session"][0]["session"] == "sess-long-1"

        # The same session ending again (a resumed session closed with nothing new): nothing is sent.
        _session_end(home, first, "sess-long-1", env)
        assert _wait(lambda: not _queued(home)), "the repeated session end stayed queued"
        assert len(si.ours) == 1

        # The next session end would pass the day's cap: nothing is sent, and its report says so.
        _session_end(home, second, "sess-long-2", env)
        done = _wait(lambda: _summaries(home, "sess-long-2"))
        assert done, "the second session end was never summarised"
        assert len(si.ours) == 1
    assert "daily token cap" in (done[0]["details"].get("fallback") or "")
    reports = [r for r in home.cli_json("reports", "list") if r["session_id"] == "sess-long-2"]
    assert reports and reports[0]["summary"].startswith("Note: the model was not asked"), reports
    fallbacks = home.cli_json("audit", "--action", "llm_fallback")
    assert [f["result"] for f in fallbacks] == ["cap"]


def _shown_at_start(session) -> list[str]:
    """The ``systemMessage`` each SessionStart hook handed Claude Code for the person."""
    out = []
    for r in session.hook_responses("SessionStart"):
        try:
            msg = json.loads(r.get("output") or "{}").get("systemMessage")
        except ValueError:
            msg = None
        if msg:
            out.append(msg)
    return out


def test_the_plugins_first_session_offers_a_model_once_and_changes_nothing(fresh_home, tmp_path):
    """Installed as a Claude Code plugin (no `install` ran, so nobody was asked): the first
    session shows the person how to let their Claude Code write session memories and what it
    costs; the next session does not say it again, and nothing was turned on."""
    from .test_e2e_plugin import prepared_plugin

    home = fresh_home
    home.cli("uninstall")  # only the plugin registers memory-cli in this HOME
    plugin = prepared_plugin(tmp_path / "memory-cli-plugin", home)
    first = home.run_session("hello", ["Hello."], extra_args=["--plugin-dir", str(plugin)])
    assert first.returncode == 0, first.describe()
    offer = [m for m in _shown_at_start(first) if "llm.provider claude-cli" in m]
    assert len(offer) == 1 and "tokens" in offer[0] and "Nothing is sent until you run it" in offer[0], (
        first.hook_responses("SessionStart")
    )
    again = home.run_session("hello again", ["Hello."], extra_args=["--plugin-dir", str(plugin)])
    assert not [m for m in _shown_at_start(again) if "llm.provider" in m], _shown_at_start(again)
    assert home.cli("config", "get", "llm.provider").stdout.strip() == "none"
