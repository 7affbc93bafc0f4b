"""The openai-compatible provider, as a person turns it on: ``memory-cli summarize`` in a real
process posting to a chat-completions server on 127.0.0.1 (a scripted stand-in here; the same
requests reach Ollama or llama.cpp's server; ``scripts/score_readers.py`` drives a real local
model through it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.openai_standin import OpenAIStandIn, content, raw, status, tool_call
from test_llm_cli import SECRETS, listed, write_config

FIXTURE = Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl"
ANSWER = {
    "memories": [
        {"content": "The whisperclick audio tests need the fake input device.", "type": "fact", "scope": "project"}
    ],
    "report": "Fixed the audio tests.",
}


@pytest.fixture
def transcript(tmp_path) -> Path:
    p = tmp_path / "session.jsonl"
    shutil.copy(FIXTURE, p)
    return p


def _summarize(cli, claude_dir, transcript, si, **llm):
    write_config(
        claude_dir,
        llm={"provider": "openai-compatible", "base_url": si.url, "timeout_s": 5, "retries": 1, **llm},
    )
    r = cli("summarize", str(transcript), "--json", env={"OPENAI_API_KEY": "sk-local-test"})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_local_server_writes_the_session_memories_and_gets_nothing_secret(cli, transcript, claude_dir):
    with OpenAIStandIn([content(ANSWER)]) as si:
        out = _summarize(cli, claude_dir, transcript, si, model="qwen2.5-coder")
    assert out["provider"] == "openai-compatible" and out["stored"] == 1 and out["report"] == "Fixed the audio tests."
    assert [e["content"] for e in listed(cli) if e["source"] == "session"] == [ANSWER["memories"][0]["content"]]
    (req,) = si.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "qwen2.5-coder" and req["body"]["temperature"] == 0
    assert req["body"]["response_format"] == {"type": "json_object"}
    assert req["headers"]["Authorization"] == "Bearer sk-local-test"
    assert "save_memories" in req["body"]["messages"][1]["content"]  # the schema travels with the prompt
    assert not any(s in si.all_text() for s in SECRETS)
    audit = json.loads(cli("audit", "--action", "llm_call", "--json").stdout)
    assert audit[0]["result"] == "ok" and audit[0]["details"]["input_tokens"] == 123


def test_an_answer_given_as_a_tool_call_is_read(cli, transcript, claude_dir):
    with OpenAIStandIn([tool_call("save_memories", ANSWER)]) as si:
        out = _summarize(cli, claude_dir, transcript, si)
    assert out["provider"] == "openai-compatible" and out["stored"] == 1
    assert "model" not in si.requests[0]["body"]  # none configured: the server's default


def test_a_server_without_json_mode_is_asked_again_without_it(cli, transcript, claude_dir):
    refusal = '{"error": {"message": "unsupported parameter: response_format"}}'
    with OpenAIStandIn([status(400, refusal), content(ANSWER)]) as si:
        out = _summarize(cli, claude_dir, transcript, si)
    assert out["stored"] == 1 and len(si.requests) == 2
    assert "response_format" not in si.requests[1]["body"]


def test_a_busy_server_is_retried_then_answers(cli, transcript, claude_dir):
    with OpenAIStandIn([status(503), content(ANSWER)]) as si:
        out = _summarize(cli, claude_dir, transcript, si)
    assert out["provider"] == "openai-compatible" and out["stored"] == 1 and len(si.requests) == 2


@pytest.mark.parametrize(
    "step, kind",
    [(raw(b"<html><body>Sign in</body></html>"), "malformed"), (content("I cannot help with that."), "malformed")],
)
def test_an_answer_that_is_not_json_falls_back_to_the_local_reader_and_says_why(
    cli, transcript, claude_dir, step, kind
):
    with OpenAIStandIn([step]) as si:
        out = _summarize(cli, claude_dir, transcript, si, retries=0)
    assert out["provider"] == "extractive" and kind in out["fallback"] and out["stored"] >= 1


def test_plain_http_to_another_host_is_refused_before_anything_is_sent(cli, transcript, claude_dir):
    write_config(claude_dir, llm={"provider": "openai-compatible", "base_url": "http://10.9.8.7:11434/v1"})
    r = cli("summarize", str(transcript), "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["provider"] == "extractive"
    assert "unencrypted" in out["fallback"]
    doc = cli("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doc.stdout)["checks"]}
    assert checks["session memories"]["status"] == "warn" and "unencrypted" in checks["session memories"]["detail"]


def test_doctor_says_where_transcripts_go(cli, claude_dir):
    assert cli("add", "Deploys go through make release", "--type", "fact").returncode == 0
    write_config(claude_dir, llm={"provider": "openai-compatible", "base_url": "http://127.0.0.1:11434/v1"})
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)["checks"]}
    assert checks["session memories"]["status"] == "ok" and "this machine" in checks["session memories"]["detail"]
    write_config(claude_dir, llm={"provider": "openai-compatible", "base_url": "https://llm.example.com/v1"})
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)["checks"]}
    assert "leave this machine" in checks["session memories"]["detail"]
