"""Per-scope limits: compaction by the model (through the real SDK and a stand-in) or FIFO by
score, never touching what a person wrote, pinned or confirmed, and never another scope."""

from __future__ import annotations

import pytest
from helpers.llm_standin import error, serve_sdk, slow, tool

from memory_cli import entries
from memory_cli import settings as settings_mod
from memory_cli.llm.compact import automatic_entries, compact_all, compact_scope

pytest.importorskip("anthropic")

A = "project:alpha"
B = "project:beta"


@pytest.fixture
def cfg():
    s = settings_mod.load("/nonexistent/config.json")
    s["llm"].update(provider="anthropic", timeout_s=2, retries=0)
    s["limits"]["per_scope"] = 5
    return s


@pytest.fixture
def api(monkeypatch):
    """Start a stand-in with a script and point the SDK at it (as ANTHROPIC_BASE_URL does)."""
    yield from serve_sdk(monkeypatch)


def fill(store, scope, n, *, source="session", prefix="note"):
    out = []
    for i in range(n):
        out.append(
            entries.add(
                store,
                f"{prefix} {i} about {scope}: the build uses tool number {i}",
                "fact",
                scope=scope,
                source=source,
                confidence=0.5,
                home_scope=scope,  # written by a session in that scope's project
            )
        )
    return out


def protected(store, scope, tmp_path):
    """One entry of each kind compaction must never touch, in ``scope``."""
    from memory_cli.maintenance import pins
    from memory_cli.rules import api as rules_api

    person = entries.add(store, "The person wrote this about the deploy script.", "fact", scope=scope, source="manual")
    pinned = entries.add(
        store, "Pinned: staging lives on port 8443.", "fact", scope=scope, source="session", home_scope=scope
    )
    root = tmp_path / scope.split(":")[-1]
    (root / ".git").mkdir(parents=True, exist_ok=True)
    pins.pin(store, pinned["id"], project_root=str(root))
    rule = rules_api.create_rule(
        store,
        "Never run rm -rf build/ by hand",
        pattern="rm -rf build",
        pattern_type="command",
        action="warn",
        scope=scope,
        provenance="promoted",
        confirmed=True,
        source="marker",
        origin="person",  # a marker memory the person turned into a confirmed rule
    )
    return {"person": person["id"], "pinned": pinned["id"], "confirmed": rule["id"]}


def status(store, eid):
    return store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,))


def test_fifo_keeps_the_cap_and_archives_lowest_score_first(store, cfg, tmp_path):
    cfg["llm"]["provider"] = "none"
    notes = fill(store, A, 8)
    keep = protected(store, A, tmp_path)
    # Used and confident memories score higher; the oldest untouched ones go first.
    entries.mark_used(store, [notes[0]["id"]] * 1)
    store.execute("UPDATE memory_entries SET use_count = 5, confidence = 0.9 WHERE id = ?", (notes[1]["id"],))
    r = compact_all(store, cfg)
    [s] = r["scopes"]
    assert s["method"] == "fifo" and s["before"] == 8 and s["after"] == 5
    archived = [a["ids"][0] for a in s["applied"]]
    assert notes[1]["id"] not in archived and notes[0]["id"] not in archived
    assert all(status(store, i) == "archived" for i in archived)
    assert all(status(store, i) == "active" for i in keep.values())
    assert len(automatic_entries(store, A)) == 5
    # Nothing was hard-deleted: every row is still there and its archiving audited.
    assert store.value("SELECT count(*) FROM memory_entries") == 8 + 3
    assert store.value("SELECT count(*) FROM memory_audit_log WHERE action = 'archive'") == 3


def test_llm_compaction_applies_valid_operations_and_keeps_the_cap(store, cfg, api):
    notes = fill(store, A, 8)
    ids = [n["id"] for n in notes]
    si = api(
        [
            tool(
                "compact_memories",
                {
                    "delete": [ids[0]],
                    "merge": [{"ids": [ids[1], ids[2], ids[3]], "content": "The build uses tools 1, 2 and 3."}],
                    "edit": [{"id": ids[4], "content": "Tool 4 builds the docs."}],
                },
            )
        ]
    )
    [s] = compact_all(store, cfg)["scopes"]
    assert s["method"] == "anthropic" and s["after"] == 5 and s["refused"] == []
    assert status(store, ids[0]) == "archived"
    merged = [a for a in s["applied"] if a["op"] == "merge"][0]
    assert {status(store, i) for i in ids[1:4]} == {"superseded"}
    assert store.value("SELECT superseded_by FROM memory_entries WHERE id = ?", (ids[3],)) == merged["new_id"]
    new = entries.get(store, merged["new_id"])
    assert new["content"] == "The build uses tools 1, 2 and 3." and new["scope"] == A
    assert entries.get(store, ids[4])["status"] == "superseded"
    # The model saw only this scope's automatic memories.
    sent = si.ours[0]["body"]["messages"][0]["content"]
    assert all(i in sent for i in ids)
    assert si.ours[0]["body"]["tool_choice"] == {"type": "tool", "name": "compact_memories"}


def test_an_answer_that_removes_too_little_is_topped_up_by_fifo(store, cfg, api):
    notes = fill(store, A, 9)
    api([tool("compact_memories", {"delete": [notes[8]["id"]], "merge": [], "edit": []})])
    [s] = compact_all(store, cfg)["scopes"]
    assert s["method"] == "anthropic+fifo" and s["after"] == 5


def test_refused_answers_are_audited_and_not_applied(store, cfg, api, tmp_path):
    notes = fill(store, A, 7)
    other = fill(store, B, 1, prefix="beta")[0]
    keep = protected(store, A, tmp_path)
    archived_one = notes[6]["id"]
    entries.archive(store, archived_one)
    si = api(
        [
            tool(
                "compact_memories",
                {
                    "delete": [
                        "00000000-dead-beef-0000-000000000000",
                        other["id"],
                        keep["person"],
                        keep["pinned"],
                        keep["confirmed"],
                        archived_one,
                        notes[0]["id"],
                        notes[0]["id"],
                    ],
                    "merge": [
                        {"ids": [notes[1]["id"], keep["person"]], "content": "merged"},
                        {"ids": [notes[2]["id"]], "content": "one id"},
                    ],
                    "edit": [{"id": other["id"], "content": "rewritten"}, {"id": notes[3]["id"], "content": ""}],
                },
            )
        ]
    )
    [s] = compact_all(store, cfg, scope=A)["scopes"]
    reasons = [r["reason"] for r in s["refused"]]
    for expected in (
        "unknown id",
        "another scope's entry",
        "person-written entry (source manual)",
        "pinned entry",
        "confirmed rule",
        "entry is archived",
        "id used twice in one answer",
        "a merge needs two or more different ids",
        "edited content must be non-empty text",
    ):
        assert any(expected in r for r in reasons), expected
    assert store.value("SELECT count(*) FROM memory_audit_log WHERE action = 'llm_refused'") == len(reasons)
    # Only the one valid delete was applied, then FIFO brought the scope to its cap.
    assert status(store, notes[0]["id"]) == "archived"
    assert all(status(store, i) == "active" for i in keep.values())
    assert entries.get(store, other["id"])["content"] == other["content"] and status(store, other["id"]) == "active"
    assert s["after"] == 5
    assert len(si.ours) == 1 and other["content"] not in si.ours[0]["raw"]


@pytest.mark.parametrize(
    "script, kind",
    [
        ([error(500)], "server"),
        ([slow(5, tool("compact_memories", {"delete": [], "merge": [], "edit": []}))], "timeout"),
        ([tool("compact_memories", {"delete": "all of them", "merge": [], "edit": []})], "malformed"),
        ([tool("compact_memories", ["not", "an", "object"])], "malformed"),
    ],
)
def test_provider_failures_fall_back_to_fifo(store, cfg, api, script, kind):
    fill(store, A, 8)
    api(script)
    [s] = compact_all(store, cfg)["scopes"]
    assert s["method"] == "fifo" and kind in s["fallback"] and s["after"] == 5
    assert store.value("SELECT count(*) FROM memory_entries") == 8


def test_scopes_are_isolated(store, cfg):
    cfg["llm"]["provider"] = "none"
    a = fill(store, A, 7)
    b = fill(store, B, 3, prefix="beta")
    g = fill(store, "global", 2, prefix="global")
    r = compact_all(store, cfg)
    assert [s["scope"] for s in r["scopes"]] == [A]
    assert all(status(store, e["id"]) == "active" for e in b + g)
    assert sum(status(store, e["id"]) == "archived" for e in a) == 2


def test_dry_run_changes_nothing(store, cfg):
    cfg["llm"]["provider"] = "none"
    fill(store, A, 8)
    [s] = compact_all(store, cfg, dry_run=True)["scopes"]
    assert s["after"] == 5 and len(s["applied"]) == 3
    assert store.value("SELECT count(*) FROM memory_entries WHERE status = 'active'") == 8


def test_archived_by_compaction_can_be_restored(store, cfg):
    cfg["llm"]["provider"] = "none"
    fill(store, A, 6)
    [s] = compact_all(store, cfg)["scopes"]
    gone = s["applied"][0]["ids"][0]
    entries.update(store, gone, status="active")
    assert status(store, gone) == "active"


def test_summaries_past_the_cap_compact_the_scope(store, cfg, api, tmp_path):
    import shutil
    from pathlib import Path

    from memory_cli.llm.summarize import summarize_transcript

    cfg["limits"]["per_scope"] = 3
    here = "repo:/home/u/work/whisperclick"  # the transcript's checkout, where its memories go
    fill(store, here, 3)
    p = tmp_path / "t.jsonl"
    shutil.copy(Path(__file__).parent / "fixtures" / "llm" / "session_whisperclick.jsonl", p)
    cfg["llm"]["provider"] = "none"
    r = summarize_transcript(store, cfg, p)
    assert r["stored"] >= 1
    assert r["compacted"] and r["compacted"][0]["method"] == "fifo"
    assert len(automatic_entries(store, here)) == 3


def test_compact_scope_under_the_limit_does_nothing(store, cfg, api):
    si = api([])
    fill(store, A, 2)
    s = compact_scope(store, cfg, A)
    assert s["method"] == "none" and s["after"] == 2 and si.requests == []
