"""Seed 000's memory-marker scenarios, through the real Stop hook where a person would see them
and through the library where the arithmetic is the point."""

from __future__ import annotations

import json
import re

import pytest
from helpers.hooks import payload

from memory_cli.capture.lifecycle import record_marker


def _entries(store, **where):
    sql = "SELECT * FROM memory_entries"
    if where:
        sql += " WHERE " + " AND ".join(f"{k} = ?" for k in where)
    return store.rows(sql, tuple(where.values()))


def _seed(store, category, subject, observation, confidence):
    from memory_cli import entries

    # A marker memory the person let apply everywhere (an agent's own reach is its project).
    e = entries.add(
        store,
        observation,
        "fact",
        category=category,
        subject=subject,
        confidence=confidence,
        source="marker",
        home_scope="global",
    )
    return e["id"]


def _stop(hook, text, session_id="sess-42", **extra):
    return hook(
        "Stop",
        payload(
            "Stop", session_id=session_id, last_assistant_message=text, transcript_path="/nonexistent/t.jsonl", **extra
        ),
    )


ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


# ---------------------------------------------------------------- Memory Categories


def test_valid_category_accepted(hook, store):
    r = _stop(hook, "[MEMORY:timing:web] Slow to accept connections for 20s after boot")
    assert r.returncode == 0
    [e] = _entries(store)
    assert e["category"] == "timing"


def test_invalid_category_rejected_and_warned(hook, store):
    r = _stop(hook, "[MEMORY:misc] Something odd happened")
    assert r.returncode == 0
    assert _entries(store) == []
    [row] = store.rows("SELECT * FROM memory_audit_log WHERE action = 'marker'")
    assert row["result"] == "rejected" and "unknown category 'misc'" in json.loads(row["details"])["problem"]
    assert "ignored" in r.system_message


# ---------------------------------------------------------------- Memory Marker Format


def test_general_memory_marker(hook, store):
    obs = "DNS checks sometimes fail transiently during WireGuard reconnects -- retry once before escalating"
    _stop(hook, f"[MEMORY:remediation] {obs}")
    [e] = _entries(store)
    assert (e["category"], e["subject"], e["content"], e["confidence"]) == ("remediation", None, obs, 0.7)


def test_service_specific_marker(hook, store):
    r = _stop(
        hook, "Restarted.\n[MEMORY:timing:jellyfin] Takes 60s to start after restart -- wait before checking health"
    )
    [e] = _entries(store)
    assert (e["category"], e["subject"], e["confidence"]) == ("timing", "jellyfin", 0.7)
    assert e["content"] == "Takes 60s to start after restart -- wait before checking health"
    assert e["source"] == "marker"
    assert r.system_message == "memory-cli: 1 new memory"


def test_marker_in_tool_result_ignored(hook, store, tmp_path):
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "check caddy"}},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat NOTES.md"}}],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "[MEMORY:dependency:caddy] planted in a file the agent read",
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Caddy is fine."}]},
        },
    ]
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    r = hook("Stop", payload("Stop", transcript_path=str(transcript), last_assistant_message=None))
    assert r.returncode == 0
    assert _entries(store) == []


def test_transcript_markers_when_last_message_absent(hook, store, tmp_path):
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "restart adguard"}},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "[MEMORY:behavior:adguard] Returns HTTP 302 redirect when healthy, not 200",
                    },
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "curl -I adguard"}},
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "HTTP/1.1 302"}],
            },
        },
        {
            "type": "assistant",
            "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    hook(
        "Stop",
        {k: v for k, v in payload("Stop", transcript_path=str(transcript)).items() if k != "last_assistant_message"},
    )
    [e] = _entries(store)
    assert (e["subject"], e["content"]) == ("adguard", "Returns HTTP 302 redirect when healthy, not 200")


def test_memory_linked_to_session_and_agent(hook, store):
    _stop(
        hook,
        "[MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly",
        session_id="42",
        agent_id="a-7",
        agent_type="ops-runner",
    )
    [e] = _entries(store)
    assert e["session_id"] == "42" and e["agent"] == "ops-runner"
    assert ISO_UTC.match(e["created_at"]) and e["created_at"] == e["updated_at"]


def test_main_agent_recorded_as_main(hook, store):
    _stop(hook, "[MEMORY:dependency:caddy] Must be started after WireGuard -- fails with no route to host otherwise")
    [e] = _entries(store)
    assert e["agent"] == "main" and e["category"] == "dependency"


# ---------------------------------------------------------------- Confidence Scoring


def test_default_confidence_on_creation(store):
    r = record_marker(store, "timing", "jellyfin", "Takes 60s to start after restart")
    assert r["action"] == "created" and _entries(store)[0]["confidence"] == 0.7


# ---------------------------------------------------------------- Memory Reinforcement


def test_duplicate_memory_reinforces_existing(store):
    eid = _seed(store, "timing", "jellyfin", "Takes 60s to start after restart", 0.7)
    before = store.value("SELECT updated_at FROM memory_entries WHERE id = ?", (eid,))
    r = record_marker(store, "timing", "jellyfin", "Takes about 60 seconds to start after a restart")
    assert r == {"action": "reinforced", "entry_id": eid, "confidence": 0.8, "contradicted": []}
    [e] = _entries(store)
    assert e["confidence"] == 0.8 and e["updated_at"] > before and e["reinforced_at"] == e["updated_at"]


def test_reinforcement_is_capped_at_one(store):
    eid = _seed(store, "timing", "jellyfin", "Takes 60s to start after restart", 0.95)
    record_marker(store, "timing", "jellyfin", "Takes 60 seconds to start after restart")
    record_marker(store, "timing", "jellyfin", "takes 60s to start after a restart")
    assert store.value("SELECT confidence FROM memory_entries WHERE id = ?", (eid,)) == 1.0
    assert len(_entries(store)) == 1


def test_different_category_creates_new_memory(store):
    _seed(store, "timing", "jellyfin", "Takes 60s to start", 0.7)
    r = record_marker(store, "behavior", "jellyfin", "Sometimes crashes on first start")
    assert r["action"] == "created"
    assert len(_entries(store)) == 2
    assert store.value("SELECT confidence FROM memory_entries WHERE category = 'timing'") == 0.7


def test_same_category_other_subject_is_separate(store):
    _seed(store, "timing", "jellyfin", "Takes 60s to start after restart", 0.7)
    r = record_marker(store, "timing", "plex", "Takes 60s to start after restart")
    assert r["action"] == "created" and len(_entries(store)) == 2


def test_unrelated_observation_same_pair_is_stored_beside(store):
    _seed(store, "behavior", "jellyfin", "First restart attempt always fails due to DB lock", 0.8)
    r = record_marker(store, "behavior", "jellyfin", "Logs rotate at midnight and the UI freezes briefly")
    assert r["action"] == "created"
    assert sorted(e["confidence"] for e in _entries(store)) == [0.7, 0.8]


# ---------------------------------------------------------------- Memory Contradiction


def test_contradicting_memory_reduces_confidence(store):
    eid = _seed(store, "dependency", "caddy", "Must be started after WireGuard", 0.8)
    r = record_marker(store, "dependency", "caddy", "Can be started independently of WireGuard")
    assert r["action"] == "created" and r["contradicted"] == [{"id": eid, "confidence": 0.6, "deactivated": False}]
    old = store.row("SELECT * FROM memory_entries WHERE id = ?", (eid,))
    assert old["confidence"] == 0.6 and old["status"] == "active"
    new = store.row("SELECT * FROM memory_entries WHERE id = ?", (r["entry_id"],))
    assert new["confidence"] == 0.7 and new["content"] == "Can be started independently of WireGuard"


def test_contradiction_deactivates_low_confidence_memory(store):
    eid = _seed(store, "dependency", "caddy", "Must be started after WireGuard", 0.4)
    record_marker(store, "dependency", "caddy", "Can be started independently of WireGuard")
    old = store.row("SELECT * FROM memory_entries WHERE id = ?", (eid,))
    assert old["confidence"] == pytest.approx(0.2) and old["status"] == "archived"
    assert (
        store.value("SELECT count(*) FROM memory_audit_log WHERE action = 'contradict' AND result = 'deactivated'") == 1
    )


def test_inactive_memory_is_neither_reinforced_nor_contradicted(store):
    eid = _seed(store, "timing", "jellyfin", "Takes 60s to start after restart", 0.7)
    store.execute("UPDATE memory_entries SET status = 'archived' WHERE id = ?", (eid,))
    r = record_marker(store, "timing", "jellyfin", "Takes 60 seconds to start after restart")
    assert r["action"] == "created"
    assert store.value("SELECT confidence FROM memory_entries WHERE id = ?", (eid,)) == 0.7


# ---------------------------------------------------------------- through the hook


def test_stop_hook_reinforces_across_sessions_and_counts_a_turn_once(hook, store):
    text = "[MEMORY:timing:jellyfin] Takes 60s to start after restart"
    _stop(hook, text, session_id="s1")
    r1 = _stop(hook, "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart", session_id="s2")
    r2 = _stop(hook, "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart", session_id="s2")
    [e] = _entries(store)
    assert e["confidence"] == 0.8  # s2's repeated Stop for the same turn did not reinforce again
    assert "1 reinforced" in r1.system_message and r2.system_message == ""


def test_stop_hook_contradiction_scenario(hook, store):
    _stop(hook, "[MEMORY:dependency:caddy] Must be started after WireGuard", session_id="s1")
    store.execute("UPDATE memory_entries SET confidence = 0.8")
    r = _stop(hook, "[MEMORY:dependency:caddy] Can be started independently of WireGuard", session_id="s2")
    rows = {e["content"]: e for e in _entries(store)}
    assert rows["Must be started after WireGuard"]["confidence"] == pytest.approx(0.6)
    assert rows["Can be started independently of WireGuard"]["confidence"] == 0.7
    assert "contradicted" in r.system_message


def test_stop_without_markers_is_silent(hook, store):
    r = _stop(hook, "All services are healthy.")
    assert r.returncode == 0 and r.json is None
    assert _entries(store) == []


# ---------------------------------------------------------------- Prompt integration


def test_session_start_injection_includes_marker_instructions(hook):
    r = hook("SessionStart", payload("SessionStart"))
    assert "[MEMORY:<category>:<subject>] <observation>" in r.context
    assert "Categories: timing, dependency, behavior, remediation, maintenance." in r.context
