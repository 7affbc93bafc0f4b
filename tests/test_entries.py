"""The domain API shared by CLI, hooks and later the dashboard."""

import json

import pytest

from memory_cli import audit, entries
from memory_cli.errors import InvalidInput, NotFound
from memory_cli.retrieval import search


def test_add_and_get_roundtrip(store):
    e = entries.add(
        store,
        "  Prefer ruff over flake8  ",
        "preference",
        scope="project:My App",
        tags="lint, python,lint",
        confidence=0.9,
    )
    got = entries.get(store, e["id"][:8])
    assert got["content"] == "Prefer ruff over flake8"
    assert got["scope"] == "project:my-app"
    assert got["tags"] == ["lint", "python"]
    assert got["confidence"] == 0.9
    assert got["status"] == "active"


@pytest.mark.parametrize(
    "bad,message",
    [
        (dict(content="", type="fact"), "content is empty"),
        (dict(content="   ", type="fact"), "content is empty"),
        (dict(content="x", type="opinion"), "unknown type"),
        (dict(content="x", type="fact", scope="team:core"), "unknown scope"),
        (dict(content="x", type="fact", scope="project:"), "needs a name"),
        (dict(content="x", type="fact", source="gossip"), "unknown source"),
        (dict(content="x", type="fact", confidence="high"), "confidence must be a number"),
        (dict(content="x", type="fact", category="misc"), "unknown category"),
    ],
)
def test_bad_input_is_refused_and_nothing_stored(store, bad, message):
    entries.add(store, "already here", "fact")
    content = bad.pop("content")
    type_ = bad.pop("type")
    with pytest.raises(InvalidInput, match=message):
        entries.add(store, content, type_, **bad)
    assert [e["content"] for e in entries.list_entries(store, status="all")] == ["already here"]


@pytest.mark.parametrize("given,stored", [(1.5, 1.0), (-0.2, 0.0), (0.42, 0.42)])
def test_confidence_is_clamped_with_a_warning(store, given, stored):
    e = entries.add(store, "x", "fact", confidence=given)
    assert e["confidence"] == stored
    assert bool(store.warnings) == (given != stored)


def test_supersede_keeps_history(store):
    old = entries.add(store, "Use Python 3.10", "fact")
    new = entries.supersede(store, old["id"], "Use Python 3.12")
    old_now = entries.get(store, old["id"])
    assert old_now["status"] == "superseded" and old_now["superseded_by"] == new["id"]
    assert [e["content"] for e in entries.list_entries(store)] == ["Use Python 3.12"]
    assert len(entries.list_entries(store, status="all")) == 2
    assert [r["content"] for r in search.keyword_search(store, "python")] == ["Use Python 3.12"]


def test_archive_hides_but_keeps(store):
    e = entries.add(store, "obsolete build trick", "pattern")
    entries.archive(store, e["id"])
    assert entries.list_entries(store) == []
    assert search.keyword_search(store, "build trick") == []
    assert entries.get(store, e["id"])["status"] == "archived"
    entries.update(store, e["id"], status="active")
    assert search.keyword_search(store, "build trick")[0]["id"] == e["id"]


def test_delete_leaves_the_row_in_the_audit_log(store):
    e = entries.add(store, "temporary note", "fact")
    entries.delete(store, e["id"])
    with pytest.raises(NotFound):
        entries.get(store, e["id"])
    rows = audit.query(store, action="delete")
    assert rows[0]["details"]["entry"]["content"] == "temporary note"


def test_update_audits_before_and_after(store):
    e = entries.add(store, "x", "fact", confidence=0.5)
    entries.update(store, e["id"], confidence=0.7)
    row = audit.query(store, action="update")[0]
    assert row["details"]["confidence"] == {"before": 0.5, "after": 0.7}


def test_ambiguous_and_unknown_ids(store):
    with pytest.raises(NotFound):
        entries.get(store, "deadbeef")
    with pytest.raises(InvalidInput):
        entries.get(store, "")


def test_keyword_search_ranks_and_filters_scope(store):
    entries.add(store, "pywebview drag uses WM_APP_DRAGSTART", "fact", scope="project:whisperclick")
    entries.add(store, "Never use pythonw.exe", "rule")
    entries.add(store, "drag and drop in the other app", "fact", scope="project:other")
    got = search.keyword_search(store, "drag window", scope="project:whisperclick")
    assert [r["scope"] for r in got] == ["project:whisperclick"]
    assert got[0]["score"] > 0
    assert search.keyword_search(store, "the of and") == []
    assert search.keyword_search(store, 'AND OR NOT "(') == []


def test_secrets_are_redacted_before_storage(store):
    e = entries.add(store, "deploy key is AKIAIOSFODNN7EXAMPLE and password=hunter2hunter2", "fact")
    assert "AKIAIOSFODNN7EXAMPLE" not in e["content"]
    assert "hunter2hunter2" not in e["content"]
    raw = store.value("SELECT group_concat(content) FROM memory_rank_fts")
    assert "AKIAIOSFODNN7EXAMPLE" not in raw


def test_raising_an_archived_memorys_confidence_reactivates_it(store):
    e = entries.add(store, "jellyfin takes 60s to start after a restart", "fact", confidence=0.5)
    entries.update(store, e["id"], status="archived", confidence=0.05)
    assert search.keyword_search(store, "jellyfin restart") == []
    back = entries.update(store, e["id"], confidence=0.8)
    assert back["status"] == "active" and back["confidence"] == 0.8
    assert [r["id"] for r in search.keyword_search(store, "jellyfin restart")] == [e["id"]]
    last = audit.query(store, entry_id=e["id"], action="update")[0]["details"]
    assert last["status"] == {"before": "archived", "after": "active"}


def test_confidence_changes_that_do_not_reactivate(store):
    e = entries.add(store, "an old guess", "fact", confidence=0.5)
    entries.update(store, e["id"], status="archived", confidence=0.05)
    assert entries.update(store, e["id"], confidence=0.2)["status"] == "archived"  # still below the floor
    assert entries.update(store, e["id"], confidence=0.9, status="archived")["status"] == "archived"  # explicit
    s = entries.add(store, "replaced", "fact")
    entries.supersede(store, s["id"], "the replacement")
    assert entries.update(store, s["id"], confidence=0.9)["status"] == "superseded"


def test_cli_says_when_an_update_brings_a_memory_back(cli, db_path):
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        e = entries.add(s, "jellyfin takes 60s to start after a restart", "fact", confidence=0.5)
        entries.update(s, e["id"], status="archived", confidence=0.1)
    r = cli("update", e["id"][:8], "--confidence", "0.9")
    assert r.returncode == 0 and r.stdout.strip() == f"updated {e['id']} (active again)"
    r = cli("update", e["id"][:8], "--confidence", "0.95")
    assert r.stdout.strip() == f"updated {e['id']}"


def test_looking_a_memory_up_with_query_counts_as_using_it(cli, db_path):
    from memory_cli.store.db import Store

    eid = cli("add", "Window drag posts WM_APP_DRAGSTART", "--json").stdout
    eid = json.loads(eid)["id"]
    other = json.loads(cli("add", "Billing stores invoices in cents", "--json").stdout)["id"]
    assert "WM_APP_DRAGSTART" in cli("query", "window drag").stdout
    assert "WM_APP_DRAGSTART" in cli("query", "window drag", "--json").stdout
    with Store.open(db_path) as s:
        used = {r["id"]: (r["use_count"], r["last_used"]) for r in s.rows("SELECT * FROM memory_entries")}
    assert used[eid][0] == 2 and used[eid][1]
    assert used[other] == (0, None)  # not found, not used
