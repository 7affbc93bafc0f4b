"""Corrections stick: stored once, counted across phrasings and sessions, promoted at three,
never re-proposed after a rejection."""

from __future__ import annotations

import json

import pytest

from memory_cli import review
from memory_cli.capture import wording
from memory_cli.capture.corrections import capture
from memory_cli.errors import InvalidInput


def _rows(store, table="corrections"):
    return store.rows(f"SELECT * FROM {table}")


def _settings(**capture_keys):
    from memory_cli import settings

    s = settings.load()
    s.setdefault("capture", {}).update(capture_keys)
    return s


def test_first_correction_is_stored_with_extraction_and_context(store):
    r = capture(
        store,
        "No, use python.exe not pythonw.exe",
        session_id="s1",
        context="after Bash: pythonw.exe src/main.py",
        project="whisperclick",
    )
    assert r["correction"] is True
    assert (r["kind"], r["what_was_wrong"], r["what_is_right"]) == ("explicit", "pythonw.exe", "python.exe")
    assert r["confidence"] == pytest.approx(0.9)
    assert r["occurrences"] == 1 and r["status"] == "pending" and r["promoted_rule_id"] is None
    [row] = _rows(store)
    assert row["user_message"] == "No, use python.exe not pythonw.exe"
    assert row["detection_type"] == "explicit"
    assert row["context"] == "after Bash: pythonw.exe src/main.py; project whisperclick"
    assert json.loads(row["sessions"]) == ["s1"]
    assert wording.context_line(r) == "Recorded correction: use python.exe, not pythonw.exe."


def test_not_a_correction_stores_nothing(store):
    assert capture(store, "please refactor the parser", session_id="s1")["correction"] is False
    assert capture(store, "should we never use X?", session_id="s1")["correction"] is False
    assert _rows(store) == []


def test_same_correction_phrased_differently_counts_and_promotes_at_three_in_two_sessions(store):
    a = capture(store, "never use pythonw.exe", session_id="s1")
    b = capture(store, "No! Don't use pythonw.exe again", session_id="s1")
    assert b["id"] == a["id"] and b["occurrences"] == 2 and not b["promoted_now"]
    c = capture(store, "stop using pythonw.exe", session_id="s2")
    assert c["id"] == a["id"] and c["occurrences"] == 3 and c["sessions"] == 2
    assert c["promoted_now"] and c["status"] == "promoted"
    assert len(_rows(store)) == 1
    rule = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (c["promoted_rule_id"],))
    assert (rule["action"], rule["confirmed"], rule["active"], rule["provenance"]) == ("warn", 0, 1, "promoted")
    assert rule["pattern_type"] == "command" and rule["pattern"] == "pythonw.exe"
    entry = store.row("SELECT * FROM memory_entries WHERE id = ?", (c["promoted_entry_id"],))
    assert (entry["type"], entry["source"], entry["status"]) == ("rule", "promoted", "active")
    assert "pythonw.exe" in entry["content"]
    assert "proposed rule" in wording.promotion_notice(c) and "memory-cli review" in wording.promotion_notice(c)


def test_three_times_in_one_session_is_not_enough(store):
    for _ in range(3):
        r = capture(store, "use pnpm, not npm", session_id="s1")
    assert r["occurrences"] == 3 and r["status"] == "pending" and not r["promoted_now"]
    r = capture(store, "It's pnpm, not npm", session_id="s2")
    assert r["occurrences"] == 4 and r["promoted_now"]


def test_rule_from_use_pnpm_not_npm_does_not_fire_on_pnpm(store):
    from memory_cli.rules.command_pattern import match_command

    for sid in ("s1", "s2", "s3"):
        r = capture(store, "use pnpm, not npm", session_id=sid)
    rule = r["rule"]
    assert rule["pattern_type"] == "command"
    assert not match_command(rule["pattern"], "pnpm install")
    assert not match_command(rule["pattern"], "grep npm notes.md")
    assert match_command(rule["pattern"], "npm install")
    assert "pnpm" in (rule["alternative"] or "")


def test_instruction_without_anything_concrete_becomes_a_preference(store):
    for sid in ("s1", "s2", "s3"):
        r = capture(store, "Always run the tests before committing", session_id=sid)
    assert r["promoted_now"] and r["promoted_rule_id"] is None
    entry = store.row("SELECT * FROM memory_entries WHERE id = ?", (r["promoted_entry_id"],))
    assert entry["type"] == "preference" and entry["content"] == "Run the tests before committing."
    assert store.value("SELECT count(*) FROM enforcement_rules") == 0


def test_rejected_proposal_is_remembered_and_never_proposed_again(store):
    for sid in ("s1", "s2", "s3"):
        r = capture(store, "never use pythonw.exe", session_id=sid)
    rejected = review.reject(store, r["id"])
    assert rejected["status"] == "rejected"
    assert store.value("SELECT active FROM enforcement_rules WHERE id = ?", (r["promoted_rule_id"],)) == 0
    assert store.value("SELECT status FROM memory_entries WHERE id = ?", (r["promoted_entry_id"],)) == "archived"
    entries_before = store.value("SELECT count(*) FROM memory_entries")
    for sid in ("s4", "s5", "s6"):
        again = capture(store, "stop using pythonw.exe", session_id=sid)
        assert not again["promoted_now"]
    assert again["occurrences"] == 6 and again["status"] == "rejected"
    assert store.value("SELECT count(*) FROM memory_entries") == entries_before
    assert store.value("SELECT count(*) FROM enforcement_rules WHERE active = 1") == 0


def test_rejecting_a_pending_correction_prevents_promotion(store):
    r = capture(store, "never use sudo", session_id="s1")
    review.reject(store, r["id"][:8])
    for sid in ("s2", "s3", "s4"):
        r = capture(store, "don't use sudo", session_id=sid)
    assert r["status"] == "rejected" and not r["promoted_now"]
    assert store.value("SELECT count(*) FROM memory_entries") == 0


def test_different_corrections_stay_apart(store):
    a = capture(store, "use pnpm, not npm", session_id="s1")
    b = capture(store, "use yarn, not npm", session_id="s1")
    c = capture(store, "use npm, not pnpm", session_id="s1")
    d = capture(store, "never use pythonw.exe", session_id="s1")
    assert len({a["id"], b["id"], c["id"], d["id"]}) == 4


def test_contentless_correction_is_kept_but_never_merged(store):
    a = capture(store, "That's wrong.", session_id="s1", context="after Edit: /p/app.py")
    b = capture(store, "That's wrong.", session_id="s2")
    assert a["correction"] and b["correction"] and a["id"] != b["id"]
    assert review.pending(store) == []  # nothing to act on


def test_settings_disable_and_threshold(store):
    off = capture(store, "never use npm", session_id="s1", settings=_settings(enabled=False))
    assert off["correction"] is False and _rows(store) == []
    fast = _settings(auto_promote_threshold=2, min_sessions=1)
    capture(store, "never use npm", session_id="s1", settings=fast)
    r = capture(store, "don't use npm", session_id="s1", settings=fast)
    assert r["promoted_now"]


def test_project_scope_hint_scopes_the_promotion(store):
    for sid in ("s1", "s2", "s3"):
        r = capture(store, "We don't use npm in this repo", session_id=sid, project="whisperclick")
    assert r["scope"] == "project:whisperclick"
    assert (
        store.value("SELECT scope FROM memory_entries WHERE id = ?", (r["promoted_entry_id"],))
        == "project:whisperclick"
    )


def test_audit_records_capture_and_promotion(store):
    for sid in ("s1", "s2", "s3"):
        capture(store, "never use pythonw.exe", session_id=sid)
    actions = [r["action"] for r in store.rows("SELECT action FROM memory_audit_log ORDER BY timestamp")]
    assert actions.count("capture") == 3 and "promote" in actions


# ---------------------------------------------------------------- review API


def test_approve_proposal_can_switch_to_block_and_edit_pattern_message_scope(store):
    for sid in ("s1", "s2", "s3"):
        r = capture(store, "never use pythonw.exe", session_id=sid)
    done = review.approve(
        store, r["id"], action="block", pattern="pythonw", message="Use python.exe.", scope="project:whisperclick"
    )
    rule = done["rule"]
    assert (rule["action"], rule["pattern"], rule["confirmed"], rule["message"]) == (
        "block",
        "pythonw",
        True,
        "Use python.exe.",
    )
    assert done["status"] == "approved" and done["entry"]["scope"] == "project:whisperclick"
    assert review.pending(store) == []


def test_approve_without_rule_switches_the_proposed_rule_off_and_keeps_the_entry(store):
    for sid in ("s1", "s2", "s3"):
        r = capture(store, "never use pythonw.exe", session_id=sid)
    done = review.approve(store, r["id"], no_rule=True)
    assert done["status"] == "approved" and done["rule"]["enabled"] is False
    assert done["entry"]["status"] == "active"


def test_approve_pending_correction_creates_confirmed_rule_now(store):
    r = capture(store, "use pnpm, not npm", session_id="s1")
    [item] = review.pending(store)
    assert item["item"] == "correction" and item["suggested_rule"]["pattern"] == "npm"
    done = review.approve(store, r["id"])
    assert done["status"] == "approved" and done["rule"]["confirmed"] is True and done["rule"]["action"] == "warn"


def test_approve_rejects_bad_input(store):
    r = capture(store, "never use pythonw.exe", session_id="s1")
    with pytest.raises(InvalidInput):
        review.approve(store, r["id"], action="explode")
    with pytest.raises(InvalidInput):
        review.approve(store, r["id"], pattern="([unclosed", pattern_type="regex")
    assert store.value("SELECT status FROM corrections") == "pending"


def test_edit_recomputes_key_so_repeats_still_match(store):
    r = capture(store, "No, do it this way: read the config first", session_id="s1")
    review.edit(store, r["id"], what_was_wrong="reading the environment first", what_is_right="read the config first")
    again = capture(store, "Always read the config first", session_id="s2")
    assert again["id"] == r["id"] and again["occurrences"] == 2


def test_review_queue_orders_proposals_first(store):
    capture(store, "never use sudo", session_id="s1")
    for sid in ("s1", "s2", "s3"):
        capture(store, "never use pythonw.exe", session_id=sid)
    queue = review.pending(store)
    assert [i["item"] for i in queue] == ["proposal", "correction"]


# ---------------------------------------------------------------- semantic


@pytest.mark.semantic
def test_semantic_match_when_model_available_but_never_across_directions_or_names(store):
    from memory_cli.capture.similar import same_correction
    from memory_cli.embeddings.model import embed

    # A paraphrase the lexical match misses ...
    assert not same_correction("push directly to main", "", "push straight to main", "")
    a = capture(store, "never push directly to main", session_id="s1", embed=embed)
    b = capture(store, "don't push straight to main", session_id="s2", embed=embed)
    assert b["id"] == a["id"] and b["matched_by"] == "semantic"
    # ... but near-identical vectors for opposite directions or different names stay apart.
    x = capture(store, "use pnpm, not npm", session_id="s1", embed=embed)
    y = capture(store, "use npm, not pnpm", session_id="s1", embed=embed)
    p = capture(store, "never use pythonw.exe", session_id="s1", embed=embed)
    q = capture(store, "never use python.exe", session_id="s1", embed=embed)
    assert x["id"] != y["id"] and p["id"] != q["id"]
    assert store.value("SELECT count(*) FROM corrections WHERE embedding IS NOT NULL") == 5
