"""Hybrid retrieval on a real store: what `memory-cli query` and injection get back.

No daemon runs in these tests, so retrieval is keyword-only except in the `semantic` test, which
embeds with the real all-MiniLM-L6-v2 in-process (the daemon's client is the only fake: it is
replaced by the same model loaded in the test process).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memory_cli import entries
from memory_cli.retrieval import hybrid, search


def add(store, content, type="fact", **kw):
    return entries.add(store, content, type, **kw)


def ids(results):
    return [r["id"] for r in results]


def test_query_cli_returns_ranked_json_on_the_0_1_scale(store, cli):
    best = add(store, "pywebview crashes on startup when the window is created off the main thread", "correction")
    add(store, "pywebview needs the edgechromium backend on Windows", "fact")
    add(store, "Invoices are stored in cents", "fact")
    store.close()
    r = cli("query", "pywebview crashes on startup", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert rows[0]["id"] == best["id"]
    assert {"id", "content", "type", "scope", "confidence", "score"} <= set(rows[0])
    scores = [row["score"] for row in rows]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert "Invoices" not in r.stdout


def test_threshold_keeps_a_full_match_and_drops_a_memory_that_grazes_one_word(store):
    full = add(store, "Use uv instead of pip to install packages in this repo", "rule")
    add(store, "The tray icon is drawn with pillow", "fact")
    add(store, "Deploy with docker compose on the staging host", "fact")
    assert ids(search.query(store, "install packages with uv", min_score=0.6)) == [full["id"]]
    assert search.query(store, "tray memory leak profiling", min_score=0.6) == []
    assert len(search.query(store, "tray memory leak profiling")) == 1  # found, but weak


def test_scope_type_and_status_filters(store):
    mine = add(store, "Window drag posts WM_APP_DRAGSTART", "fact", scope="project:whisperclick")
    other = add(store, "Window drag is disabled in kiosk mode", "fact", scope="project:kiosk")
    glob = add(store, "Window drag must never block the UI thread", "rule")
    filed = add(store, "Window drag code lives here", "fact", scope="file:src/drag.py")
    old = add(store, "Window drag used Tk once", "fact")
    entries.archive(store, old["id"])

    in_project = ids(search.query(store, "window drag", project="whisperclick"))
    assert set(in_project) == {mine["id"], glob["id"]}
    with_file = ids(search.query(store, "window drag", project="whisperclick", files=["src/drag.py"]))
    assert filed["id"] in with_file and other["id"] not in with_file
    assert set(ids(search.query(store, "window drag", scope="project:kiosk"))) == {other["id"], glob["id"]}
    assert ids(search.query(store, "window drag", type="rule")) == [glob["id"]]
    assert old["id"] not in ids(search.query(store, "window drag used Tk", limit=50))


def test_an_answer_is_found_by_the_question_recorded_before_it_in_the_session(store):
    q = add(store, "Which database should the session cache use?", "fact", session_id="s1")
    a = add(store, "SQLite: it is already a dependency and survives restarts", "decision", session_id="s1")
    add(store, "Unrelated: invoices are stored in cents", "fact", session_id="s1")
    lone = add(store, "Postgres: it is what production runs", "decision")  # no session: no context
    got = ids(search.query(store, "session cache database", limit=5))
    assert got[0] == q["id"] and a["id"] in got
    assert lone["id"] not in got


def test_the_context_index_follows_edits_and_deletions(store):
    q = add(store, "Which database should the session cache use?", "fact", session_id="s1")
    a = add(store, "SQLite: it is already a dependency", "decision", session_id="s1")
    assert a["id"] in ids(search.query(store, "session cache database"))

    entries.update(store, q["id"], content="Which queue should the mailer use?")
    assert a["id"] not in ids(search.query(store, "session cache database"))
    assert a["id"] in ids(search.query(store, "mailer queue"))

    entries.delete(store, q["id"])  # a deleted memory's words must not keep finding its neighbour
    assert search.query(store, "mailer queue") == []
    assert hybrid.rebuild_index(store) == 1


def test_naming_a_memorys_subject_ranks_it_first(store):
    add(store, "Prefers tabs over spaces in Makefiles", "preference", subject="alice")
    bob = add(store, "Prefers tabs over spaces in Makefiles", "preference", subject="bob")
    assert ids(search.query(store, "does bob prefer tabs or spaces?"))[0] == bob["id"]


def test_a_date_in_the_query_finds_what_was_recorded_that_day(store):
    add(store, "Decided to ship the installer as MSI", "decision")
    march = add(store, "Decided to ship the installer as MSIX", "decision")
    # as `import-markdown` keeps an imported entry's own date
    store.execute("UPDATE memory_entries SET created_at = ? WHERE id = ?", ("2024-03-12T10:00:00.000000Z", march["id"]))
    assert ids(search.query(store, "what did we decide about the installer on 12 March 2024?"))[0] == march["id"]


def test_what_did_we_decide_not_to_do_brings_back_the_rejected_alternative(store):
    add(store, "Cache API responses for 5 minutes", "decision")
    rejected = add(
        store, "Decided against Redis for the cache: SQLite is enough, rather than a new service", "decision"
    )
    got = search.query(store, "what did we decide not to do about the cache?")
    assert got[0]["id"] == rejected["id"]


def test_confidence_scales_the_score(store):
    sure = add(store, "Run the linter before every commit", "rule", confidence=1.0)
    unsure = add(store, "Run the linter before every push", "rule", confidence=0.2)
    got = {r["id"]: r["score"] for r in search.query(store, "run the linter")}
    assert got[sure["id"]] > got[unsure["id"]]


def test_vector_mode_without_a_daemon_returns_nothing_and_hybrid_falls_back(store):
    e = add(store, "pywebview crashes on startup", "correction")
    assert hybrid.search(store, "pywebview", mode="vector", timeout_ms=50) == []
    assert ids(hybrid.search(store, "pywebview", timeout_ms=50)) == [e["id"]]
    with pytest.raises(ValueError):
        hybrid.search(store, "pywebview", mode="psychic")


def test_hook_path_imports_stay_light():
    code = (
        "import sys, memory_cli.retrieval.search, memory_cli.retrieval.hybrid; "
        "print([m for m in ('numpy', 'torch', 'typer', 'rich', 'pydantic', 'sentence_transformers', "
        ") if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.semantic
def test_meaning_finds_a_memory_that_shares_no_keyword(store, monkeypatch):
    from memory_cli.embeddings import model as model_mod
    from memory_cli.embeddings import vectors

    try:
        m = model_mod.load_model()
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"model unavailable: {e}")
    target = add(store, "The app freezes when the window is dragged", "correction")
    add(store, "Invoices are stored in cents", "fact")
    add(store, "Deploy with docker compose", "fact")
    vectors.reindex(store, m.embed, model=model_mod.DEFAULT_MODEL)
    query = "program hangs while moving its frame"
    # The daemon's answer, computed beforehand: this test is about ranking by meaning, and an
    # in-process embedding on a loaded machine can outlast the daemon's request timeout.
    answer = m.embed([query])[0]
    monkeypatch.setattr(hybrid, "query_vector", lambda text, timeout_ms, model=None: answer)
    assert search.query(store, query, use_vectors=False) == []
    got = search.query(store, query)
    assert got and got[0]["id"] == target["id"]
    assert hybrid.search(store, query, mode="vector")[0]["id"] == target["id"]


def test_searches_while_others_write_never_fail(db_path):
    """Readers and writers in parallel connections, as the MCP server, the dashboard and hooks
    run them: a search reads counts in separate statements and must cope with writes between."""
    import threading

    from memory_cli import entries
    from memory_cli.retrieval.search import query
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        for i in range(30):
            entries.add(s, f"fact number {i} about the deploy", "fact")
    errors = []

    def reader():
        for _ in range(25):
            try:
                with Store.open(db_path) as s:
                    query(s, "deploy", limit=5, use_vectors=False)
            except Exception as e:  # noqa: BLE001 - any failure is what this test looks for
                errors.append(repr(e))

    def writer():
        for i in range(60):
            with Store.open(db_path) as s:
                entries.add(s, f"another deploy fact {i}", "fact")

    threads = [threading.Thread(target=reader) for _ in range(6)] + [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_daemon_that_does_not_answer_costs_its_timeout_and_keywords_still_rank(store, monkeypatch):
    """The query's vector is asked for in a thread beside the keyword side: a daemon that hangs
    holds the search up by its timeout only, and the keyword hits come back."""
    import time

    target = add(store, "The staging database listens on port 5433", "fact")
    add(store, "Invoices are stored in cents", "fact")
    asked = []

    def hangs(text, timeout_ms, model=None):
        asked.append(text)
        time.sleep(3)
        return None

    monkeypatch.setattr(hybrid, "query_vector", hangs)
    t0 = time.perf_counter()
    got = hybrid.search(store, "which port does the staging database use", timeout_ms=200)
    elapsed = time.perf_counter() - t0
    assert asked == ["which port does the staging database use"]
    assert got and got[0]["id"] == target["id"]
    assert elapsed < 2.0, elapsed  # not the 3 s the daemon took


def test_the_vector_asked_in_a_thread_is_the_one_the_ranking_uses(store, monkeypatch):
    """A vector that arrives while the keyword side reads is used: vector mode finds the memory
    the vector points at, with no keyword in common."""
    from memory_cli.embeddings import vectors

    a = add(store, "alpha memory", "fact")
    b = add(store, "beta memory", "fact")
    dim = 384
    unit = [0.0] * dim
    unit[7] = 1.0
    other = [0.0] * dim
    other[8] = 1.0
    import struct

    pack = lambda v: struct.pack(f"<{dim}f", *v)  # noqa: E731
    if not store.load_vec():
        pytest.skip("sqlite-vec unavailable")
    vectors.reindex(store, lambda texts: [pack(unit if "alpha" in t else other) for t in texts], model="test-model")
    monkeypatch.setattr(hybrid, "query_vector", lambda text, timeout_ms, model=None: pack(other))
    got = hybrid.search(store, "nothing in common", mode="vector")
    assert [e["id"] for e in got] == [b["id"]]  # alpha's vector is orthogonal: no evidence at all
    assert a["id"] not in [e["id"] for e in got]
