"""Session memories from a realistic Claude Code transcript, through the real anthropic SDK
talking to a scripted Messages API stand-in on 127.0.0.1 (tests/helpers/llm_standin.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.llm_standin import error, html, serve_sdk, slow, tool

from memory_cli import entries
from memory_cli import settings as settings_mod
from memory_cli.llm import providers
from memory_cli.llm.summarize import summarize_pending, summarize_transcript

pytest.importorskip("anthropic")

FIXTURE = Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl"
SECRETS = ("sk-ant-api03-Qm7vX2pL9wK4tR8nB3cF6hJ1yD5sG0aZ", "ghp_R4nd0mT0k3nV4lu3Xq9Zt7Lm2Wp5Ks8Jd1Hy6")
PROJECT = "project:whisperclick"
# Where its memories and report are kept: the transcript's own checkout, not every "whisperclick".
CHECKOUT = "repo:/home/u/work/whisperclick"

GOOD = {
    "memories": [
        {
            "content": "whisperclick's audio tests need the fake input device; tests/conftest.py installs it "
            "unless WHISPERCLICK_FAKE_AUDIO=0.",
            "type": "fact",
            "scope": "project",
            "category": "remediation",
            "subject": "audio tests",
        },
        {
            "content": "Run the whisperclick audio tests with -p no:randomly: the device mock depends on test order.",
            "type": "preference",
            "scope": "project",
            "confidence": 0.9,
        },
    ],
    "report": "Fixed the failing audio capture tests by defaulting the fake audio device on in tests/conftest.py.",
}


@pytest.fixture
def transcript(tmp_path) -> Path:
    p = tmp_path / "session.jsonl"
    shutil.copy(FIXTURE, p)
    return p


@pytest.fixture
def cfg():
    s = settings_mod.load("/nonexistent/config.json")
    s["llm"].update(provider="anthropic", timeout_s=2, retries=1, max_calls_per_day=50)
    return s


@pytest.fixture
def api(monkeypatch):
    """Start a stand-in with a script and point the SDK at it (as ANTHROPIC_BASE_URL does)."""
    yield from serve_sdk(monkeypatch)


def session_entries(store):
    return [e for e in entries.list_entries(store, status="all") if e["source"] == "session"]


def test_memories_from_a_realistic_transcript_are_stored(store, cfg, api, transcript):
    si = api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    assert r["provider"] == "anthropic" and r["stored"] == 2 and r["fallback"] is None
    stored = session_entries(store)
    assert {e["content"] for e in stored} == {m["content"] for m in GOOD["memories"]}
    assert all(e["scope"] == CHECKOUT and e["confidence"] == 0.5 for e in stored)
    assert all(e["session_id"] == "7d1e4c2a-93b5-4f0e-a8d6-2c51b9e07f13" for e in stored)
    assert r["report"].startswith("Fixed the failing audio")
    # The request was a forced tool call carrying the transcript (the side chain left out).
    body = si.ours[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "save_memories"}
    assert body["tools"][0]["name"] == "save_memories"
    sent = body["messages"][0]["content"]
    assert "PortAudio not initialized" in sent and "-p no:randomly" in sent
    assert "SIDECHAIN" not in sent and "system-reminder" not in sent
    # Audited with token counts.
    calls = store.rows("SELECT result, details FROM memory_audit_log WHERE action = 'llm_call'")
    assert len(calls) == 1 and calls[0]["result"] == "ok"
    details = json.loads(calls[0]["details"])
    assert details["input_tokens"] > 0 and details["output_tokens"] == 42


def test_a_planted_secret_never_reaches_the_api(store, cfg, api, transcript):
    si = api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    assert r["redacted"] >= 2
    everything = si.all_text()
    assert si.ours and "[REDACTED:" in everything
    for secret in SECRETS:
        assert secret not in everything
        assert secret not in json.dumps(r)
    assert not any(s in (e["content"] or "") for e in entries.list_entries(store, status="all") for s in SECRETS)


def test_second_run_reads_only_what_is_new(store, cfg, api, transcript):
    si = api([tool("save_memories", GOOD), tool("save_memories", {"memories": [], "report": "small follow-up"})])
    summarize_transcript(store, cfg, transcript)
    again = summarize_transcript(store, cfg, transcript)
    assert again.get("nothing_new") and len(si.ours) == 1  # nothing new: nothing sent
    with open(transcript, "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(
                {
                    "type": "user",
                    "sessionId": "7d1e4c2a",
                    "cwd": "/home/u/work/whisperclick",
                    "message": {"role": "user", "content": "also bump the version to 0.4.2"},
                }
            )
            + "\n"
        )
        fh.write('{"type": "assistant", "message": {"role": "assist')  # half-written line: left for later
    summarize_transcript(store, cfg, transcript)
    sent = si.ours[1]["body"]["messages"][0]["content"]
    assert "bump the version to 0.4.2" in sent and "PortAudio" not in sent


def test_duplicates_of_existing_memories_are_dropped(store, cfg, api, transcript):
    existing = entries.add(
        store,
        "Run the whisperclick audio tests with -p no:randomly because the device mock depends on test order.",
        "preference",
        scope=PROJECT,
        source="manual",
    )
    api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    assert r["stored"] == 1
    dup = [m for m in r["memories"] if m.get("duplicate_of")]
    assert [m["duplicate_of"] for m in dup] == [existing["id"]]


def test_another_projects_memory_is_not_a_duplicate(store, cfg, api, transcript):
    entries.add(store, GOOD["memories"][1]["content"], "preference", scope="project:otherapp", source="manual")
    si = api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    assert r["stored"] == 2
    # ... and it was not shown to the model as an existing memory either.
    assert "otherapp" not in si.ours[0]["raw"]


@pytest.mark.parametrize(
    "script, kind",
    [
        ([error(500), error(500)], "server"),
        ([error(429), error(529)], "server"),
        ([slow(5, tool("save_memories", GOOD)), slow(5, tool("save_memories", GOOD))], "timeout"),
        ([tool("save_memories", {"memories": "not a list", "report": "x"})], "malformed"),
        ([tool("save_memories", {"memories": [], "report": "x", "extra": 1})], "malformed"),
        ([tool("something_else", {"a": 1})], "malformed"),
        ([error(400, "bad request")], "client"),
        ([html()], "malformed"),
    ],
)
def test_failures_fall_back_to_the_extractive_reader_and_lose_nothing(store, cfg, api, transcript, script, kind):
    before = entries.add(store, "The CI runners use Python 3.12.", "fact", scope=PROJECT, source="manual")
    si = api(script)
    r = summarize_transcript(store, cfg, transcript)
    assert r["provider"] == "extractive" and kind in r["fallback"]
    assert r["stored"] >= 1
    contents = [e["content"] for e in session_entries(store)]
    # The failed run passing after the one edit is proved; the agent's "root cause" sentence is
    # its own claim, which the local reader never stores (the agent's markers carry those).
    assert any(c.startswith("`pytest tests/audio -q` failed") and "conftest.py" in c for c in contents)
    assert not any("root cause" in c.lower() for c in contents)
    assert entries.get(store, before["id"])["content"] == before["content"]
    assert r["report"] and "1 failed" in r["report"]
    fallback = store.rows("SELECT result FROM memory_audit_log WHERE action = 'llm_fallback'")
    assert [f["result"] for f in fallback] == [kind]
    retried = kind in ("server", "timeout")
    assert len(si.ours) == (2 if retried else 1)
    # The transcript was read: a second run sends nothing more.
    assert summarize_transcript(store, cfg, transcript).get("nothing_new")


def test_refused_items_are_audited_and_the_rest_stored(store, cfg, api, transcript):
    answer = {
        "memories": [
            GOOD["memories"][0],
            {"content": "Use tabs", "type": "opinion", "scope": "project"},
            {"content": "Never push to main", "type": "rule", "scope": "project"},
            {"content": "Somewhere else", "type": "fact", "scope": "project:otherapp"},
            {"content": "", "type": "fact", "scope": "project"},
            {"content": "x", "type": "fact", "scope": "project", "category": "vibes"},
            {"content": "x", "type": "fact", "scope": "project", "id": "abc"},
        ],
        "report": "r",
    }
    api([tool("save_memories", answer)])
    r = summarize_transcript(store, cfg, transcript)
    assert r["stored"] == 1 and len(r["refused"]) == 6
    audited = store.rows("SELECT result FROM memory_audit_log WHERE action = 'llm_refused'")
    assert len(audited) == 6
    assert [e["content"] for e in session_entries(store)] == [GOOD["memories"][0]["content"]]
    assert not store.rows("SELECT 1 FROM memory_entries WHERE scope = 'project:otherapp'")


def test_the_daily_cap_holds_and_falls_back(store, cfg, api, transcript, tmp_path):
    cfg["llm"]["max_calls_per_day"] = 2
    cfg["llm"]["retries"] = 0
    si = api([], default=tool("save_memories", {"memories": [], "report": "ok"}))
    for i in range(4):
        p = tmp_path / f"s{i}.jsonl"
        shutil.copy(transcript, p)
        r = summarize_transcript(store, cfg, p)
        assert r["provider"] == ("anthropic" if i < 2 else "extractive")
    assert len(si.ours) == 2
    assert providers.calls_today(store) == 2
    caps = store.rows("SELECT result FROM memory_audit_log WHERE action = 'llm_fallback'")
    assert [c["result"] for c in caps] == ["cap", "cap"]


def test_retries_count_against_the_cap(store, cfg, api, transcript):
    cfg["llm"].update(max_calls_per_day=1, retries=3)
    si = api([error(500)], default=tool("save_memories", GOOD))
    r = summarize_transcript(store, cfg, transcript)
    assert r["provider"] == "extractive" and "cap" in r["fallback"]
    assert len(si.ours) == 1


def test_provider_none_sends_nothing_and_still_writes_memories(store, transcript, api):
    si = api([tool("save_memories", GOOD)])
    s = settings_mod.load("/nonexistent/config.json")
    assert s["llm"]["provider"] == "none"
    r = summarize_transcript(store, s, transcript)
    assert r["provider"] == "extractive" and r["stored"] >= 1 and si.requests == []
    assert not store.rows("SELECT 1 FROM memory_audit_log WHERE action = 'llm_call'")


def test_excluded_project_sends_nothing(store, cfg, api, transcript):
    cfg["llm"]["exclude_projects"] = ["whisper*"]
    si = api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    assert si.requests == [] and r["provider"] == "extractive" and "exclude_projects" in r["fallback"]


def test_missing_api_key_falls_back(store, cfg, api, transcript, monkeypatch):
    si = api([tool("save_memories", GOOD)])
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    r = summarize_transcript(store, cfg, transcript)
    assert r["provider"] == "extractive" and "ANTHROPIC_API_KEY" in r["fallback"] and si.requests == []


def test_dry_run_stores_nothing_and_keeps_the_position(store, cfg, api, transcript):
    api([tool("save_memories", GOOD), tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript, dry_run=True)
    assert r["stored"] == 0 and len(r["memories"]) == 2 and session_entries(store) == []
    assert summarize_transcript(store, cfg, transcript)["stored"] == 2


def test_queued_transcripts_are_summarised_once(store, cfg, api, transcript, tmp_path):
    from memory_cli.llm.queue import PENDING_KEY
    from memory_cli.store import kvstate

    api([tool("save_memories", GOOD)])
    kvstate.put(store, PENDING_KEY + str(transcript), {"session_id": "s-1", "project": PROJECT})
    kvstate.put(store, PENDING_KEY + str(tmp_path / "gone.jsonl"), {"session_id": "s-2"})
    done = summarize_pending(store, cfg)
    assert sorted(d["stored"] for d in done) == [0, 2]
    assert kvstate.with_prefix(store, PENDING_KEY) == {}
    assert {e["session_id"] for e in session_entries(store)} == {"s-1"}
    assert summarize_pending(store, cfg) == []


def test_doctor_says_when_the_provider_cannot_run(store, cfg, monkeypatch):
    from memory_cli.llm.doctor import doctor_checks

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    checks = {c["name"]: c for c in doctor_checks(store, cfg)}
    assert (
        checks["session memories"]["status"] == "warn" and "ANTHROPIC_API_KEY" in checks["session memories"]["detail"]
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    cfg["llm"]["max_calls_per_day"] = 1
    providers.take_call_slot(store, 1)
    checks = {c["name"]: c for c in doctor_checks(store, cfg)}
    assert checks["session memories"]["status"] == "ok"
    assert checks["LLM calls today"]["status"] == "warn" and "1 of 1" in checks["LLM calls today"]["detail"]
    cfg["llm"]["provider"] = "claude-cli"
    cfg["llm"]["claude_command"] = "/nonexistent/claude"
    assert {c["name"]: c for c in doctor_checks(store, cfg)}["session memories"]["status"] == "warn"


def test_the_daily_cap_holds_under_concurrent_jobs(db_path, store):
    import threading

    from memory_cli.store.db import Store

    won, lost = [], []

    def worker():
        with Store.open(db_path) as s:
            for _ in range(3):
                try:
                    providers.take_call_slot(s, 5)
                    won.append(1)
                except providers.LLMError as err:
                    assert err.kind == "cap"
                    lost.append(1)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 5 and len(lost) == 13 and providers.calls_today(store) == 5


def test_a_huge_transcript_is_read_from_its_end(store, tmp_path, monkeypatch):
    from memory_cli.llm import transcript as tr

    monkeypatch.setattr(tr, "MAX_READ_BYTES", 4096)
    p = tmp_path / "big.jsonl"
    with open(p, "w") as fh:
        for i in range(200):
            fh.write(
                json.dumps(
                    {
                        "type": "user",
                        "sessionId": "big",
                        "cwd": "/home/u/work/whisperclick",
                        "message": {"role": "user", "content": f"request number {i}"},
                    }
                )
                + "\n"
            )
    ex = tr.read(p)
    texts = [t.text for t in ex.turns]
    assert "request number 199" in texts and "request number 0" not in texts
    assert ex.end == p.stat().st_size and ex.skipped_bytes > 0


def test_the_session_report_is_stored_with_source_session(store, cfg, api, transcript):
    from memory_cli.reports.api import latest_report

    api([tool("save_memories", GOOD)])
    r = summarize_transcript(store, cfg, transcript)
    report = latest_report(store, CHECKOUT)
    assert report["id"] == r["report_id"] and report["summary"] == GOOD["report"]
    assert report["source"] == "session" and report["session_id"] == "7d1e4c2a-93b5-4f0e-a8d6-2c51b9e07f13"
    # The extractive reader's report (offline) is stored the same way, and carries no secret.
    s = settings_mod.load("/nonexistent/config.json")
    r2 = summarize_transcript(store, s, transcript, from_start=True, session_id="offline")
    offline = latest_report(store, CHECKOUT)
    assert offline["id"] == r2["report_id"] and offline["session_id"] == "offline"
    assert "1 failed" in offline["summary"] and not any(x in offline["summary"] for x in SECRETS)


def test_an_overlong_report_is_clipped_to_the_report_store_limit(store, cfg, api, transcript):
    api([tool("save_memories", dict(GOOD, report="x" * 30000))])
    r = summarize_transcript(store, cfg, transcript)
    assert r["stored"] == 2 and r.get("report_id")  # clipped to the report store's limit
    from memory_cli.reports.api import latest_report

    assert len(latest_report(store, CHECKOUT)["summary"]) <= 4000


def test_two_runs_over_the_same_part_store_it_once(store, db_path, transcript, monkeypatch):
    """A `summarize` by hand racing the session-end job: the later writer sees the moved
    position and stores nothing."""
    from memory_cli.llm import merge
    from memory_cli.store.db import Store

    s = settings_mod.load("/nonexistent/config.json")
    real_merge = merge.new_memories
    raced = {}

    def merge_then_race(st, memories, **kw):
        if not raced:
            raced["done"] = True
            with Store.open(db_path) as other:
                raced["result"] = summarize_transcript(other, s, transcript)
        return real_merge(st, memories, **kw)

    monkeypatch.setattr(merge, "new_memories", merge_then_race)
    r = summarize_transcript(store, s, transcript)
    assert raced["result"]["stored"] >= 1
    assert r["stored"] == 0 and "another run" in r["raced"]
    assert len(session_entries(store)) == raced["result"]["stored"]
