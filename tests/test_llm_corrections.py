"""With a model turned on, the session-end request also returns the corrections the hook missed,
through the real anthropic SDK talking to the scripted stand-in on 127.0.0.1
(tests/helpers/llm_standin.py), on a session a person really typed (tests/fixtures/real/transcripts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.llm_standin import serve_sdk, tool

from memory_cli import review
from memory_cli import settings as settings_mod
from memory_cli.capture import corrections as corr
from memory_cli.capture.detect import detect
from memory_cli.llm import transcript as transcript_mod
from memory_cli.llm.prompts import SAVE_TOOL
from memory_cli.llm.summarize import summarize_transcript

pytest.importorskip("anthropic")

REAL = Path(__file__).parent / "fixtures" / "real" / "transcripts" / "SWORDIntel-1.jsonl"
MISSED = "or find a better way to fix it"  # labelled pushback; no rule or model catches it
INVENTED = "never touch the production database"  # nobody typed this


@pytest.fixture
def cfg():
    s = settings_mod.load("/nonexistent/config.json")
    s["llm"].update(provider="anthropic", timeout_s=2, retries=1, max_calls_per_day=50)
    return s


@pytest.fixture
def api(monkeypatch):
    yield from serve_sdk(monkeypatch)


def test_a_correction_the_hook_missed_is_kept_for_review_from_the_session_end_answer(store, cfg, api, tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(REAL, path)
    typed = [t.text for t in transcript_mod.read(str(path), 0).turns if t.role == "person"]
    assert MISSED in typed and detect(MISSED) is None
    for prompt in typed:  # what UserPromptSubmit kept during the session
        corr.capture(store, prompt, session_id="s-real")
    before = {r["id"] for r in store.rows("SELECT id FROM corrections")}
    answer = {
        "memories": [],
        "report": "Worked on the installer.",
        "corrections": [
            {"quote": MISSED, "statement": "Find a better fix than the current workaround", "kind": "pushback"},
            {"quote": INVENTED, "statement": "Never touch the production database", "kind": "standing"},
            {"quote": MISSED, "statement": "x" * 400, "kind": "pushback"},
        ],
    }
    si = api([tool("save_memories", answer)])
    r = summarize_transcript(store, cfg, path, session_id="s-real")
    assert r["provider"] == "anthropic" and r["fallback"] is None
    assert r["corrections"] == 1
    reasons = sorted(x["reason"] for x in r["refused"])
    assert len(reasons) == 2 and any("person typed" in x for x in reasons)
    new = [x for x in store.rows("SELECT * FROM corrections") if x["id"] not in before]
    assert [(x["statement"], x["detection_type"], x["status"]) for x in new] == [
        ("Find a better fix than the current workaround", "inferred", "pending")
    ]
    assert new[0]["user_message"] == MISSED and not new[0]["promoted_to"]
    assert "Find a better fix than the current workaround" in [i["statement"] for i in review.pending(store)]
    assert not store.value("SELECT count(*) FROM enforcement_rules")
    # what the request asked for
    body = si.ours[0]["body"]
    assert "corrections" in body["system"] and body["tool_choice"]["name"] == "save_memories"
    assert "corrections" in body["tools"][0]["input_schema"]["properties"]


def test_an_answer_without_corrections_is_still_whole(store, cfg, api, tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(REAL, path)
    api([tool("save_memories", {"memories": [], "report": "Worked on the installer."})])
    r = summarize_transcript(store, cfg, path, session_id="s-real")
    assert r["provider"] == "anthropic" and r["fallback"] is None and "corrections" not in r
    assert "corrections" in SAVE_TOOL["input_schema"]["properties"]
    assert "corrections" not in SAVE_TOOL["input_schema"]["required"]
