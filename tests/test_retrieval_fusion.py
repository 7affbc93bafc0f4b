"""The relevance scale: what a score means must not depend on what else the query found."""

from __future__ import annotations

import apsw
import pytest

from memory_cli.retrieval import fusion as F


def _fts(docs):
    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    with con:
        for i, d in enumerate(docs):
            con.execute("INSERT INTO f(rowid, body) VALUES (?, ?)", (i, d))
    return con


def test_idf_is_the_one_sqlite_bm25_uses():
    # Four documents of equal length: a term found once in a document of average length scores
    # exactly its IDF in FTS5's bm25(), so bm25 / idf = 1 for a full single-word match.
    docs = ["pywebview crashes on start", "use uv not pip", "tests run with pytest", "pip is slow here"]
    con = _fts(docs)
    (score,) = con.execute("SELECT -bm25(f) FROM f WHERE f MATCH 'pywebview'").fetchone()
    assert score == pytest.approx(F.fts5_idf(len(docs), 1), rel=1e-9)


def test_a_word_in_most_memories_counts_for_almost_nothing():
    assert F.fts5_idf(10, 6) == pytest.approx(1e-6)
    # A word count read after a concurrent write can exceed the row count read before it.
    assert F.fts5_idf(10, 12) == pytest.approx(1e-6)
    assert F.fts5_idf(10, 1) > F.fts5_idf(10, 3) > 0
    assert F.fts5_idf(10, 0) == 0.0


def test_keyword_score_is_the_share_of_the_query_found_not_relative_to_other_hits():
    docs = [
        "pywebview window freezes when the tray icon is clicked",
        "the tray icon is drawn with pillow",
        "deploy with docker compose",
        "run the linter before committing",
    ]
    con = _fts(docs)
    n = len(docs)
    terms = ["pywebview", "window", "freezes"]
    idf_sum = sum(
        F.fts5_idf(n, con.execute("SELECT count(*) FROM f WHERE f MATCH ?", (t,)).fetchone()[0]) for t in terms
    )
    rows = con.execute("SELECT rowid, -bm25(f) FROM f WHERE f MATCH 'pywebview OR window OR freezes'").fetchall()
    k = F.keyword_scores({str(r): s for r, s in rows}, idf_sum)
    assert k["0"] > 0.6  # every word of the query is in it

    # A query that only grazes the store: its best hit must not be promoted to 1.0.
    terms2 = ["tray", "memory", "leak", "profiling"]
    present = {t: con.execute("SELECT count(*) FROM f WHERE f MATCH ?", (t,)).fetchone()[0] for t in terms2}
    idf_sum2 = sum(F.query_term_idf(n, c) for c in present.values())
    rows2 = con.execute("SELECT rowid, -bm25(f) FROM f WHERE f MATCH 'tray OR memory OR leak OR profiling'").fetchall()
    k2 = F.keyword_scores({str(r): s for r, s in rows2}, idf_sum2)
    assert max(k2.values()) < 0.6
    assert set(k2) == {"0", "1"}


def test_words_nothing_contains_still_count_against_the_score():
    assert F.query_term_idf(100, 0) == F.query_term_idf(100, 1) > F.query_term_idf(100, 10)
    assert F.query_term_idf(1, 0) == F.fts5_idf(1, 1)  # as bm25() weighs it, so a lone memory can match fully


def test_keyword_scores_stay_within_0_and_1():
    assert F.keyword_scores({"a": 50.0, "b": 0.2}, 4.0) == {"a": 1.0, "b": 0.05}
    assert F.keyword_scores({"a": 3.0}, 0.0) == {"a": 0.0}


def test_cosine_is_mapped_onto_the_same_scale():
    assert F.vector_score(0.1) == 0.0
    assert F.vector_score(0.2) == 0.0
    assert F.vector_score(0.475) == pytest.approx(0.5)
    assert F.vector_score(0.9) == 1.0
    assert F.vector_scores({"a": 0.75, "b": 0.3}) == {"a": 1.0, "b": pytest.approx(0.1 / 0.55)}


def test_fusion_weights_both_sides_and_counts_a_missing_side_as_zero():
    fused = F.fuse({"a": 1.0, "b": 0.5}, {"b": 1.0, "c": 0.5}, keyword_weight=0.6)
    assert fused == {"a": pytest.approx(0.6), "b": pytest.approx(0.7), "c": pytest.approx(0.2)}
    assert max(fused, key=fused.get) == "b"  # found by both


def test_keyword_only_fusion_keeps_the_full_scale_when_vectors_are_unavailable():
    # With the daemon cold a perfect keyword match must still clear a 0.6 threshold.
    assert F.fuse({"a": 0.9}, None) == {"a": 0.9}
    assert F.fuse({"a": 0.9}, {}) == {"a": pytest.approx(0.54)}


def test_more_evidence_raises_a_score_but_never_past_1_and_keeps_order():
    assert F.close_gap(0.5, 0.5) == 0.75
    assert F.close_gap(0.9, 5.0) == 1.0
    assert F.close_gap(0.4, -1) == 0.4
    assert F.close_gap(0.3, 0.5) < F.close_gap(0.4, 0.5)


def test_an_answer_recorded_after_its_question_is_found_by_the_question_words():
    keyword = {"question": 0.8, "other": 0.3}
    previous = {"answer": "question", "question": None, "other": None}
    k = F.with_context(keyword, previous, share=0.7)
    assert k["answer"] == pytest.approx(0.56)
    assert k["question"] == 0.8 and k["other"] == 0.3
    assert F.with_context({"x": 0.9, "y": 0.9}, {"y": "x"})["y"] == 1.0


def test_neighbour_bonus_lifts_memories_next_to_relevant_ones():
    base = {"a": 0.5, "b": 0.5, "c": 0.8}
    out = F.neighbour_bonus(base, {"b": ["c"], "a": []}, share=0.15)
    assert out["a"] == 0.5
    assert out["b"] == pytest.approx(0.5 + 0.5 * 0.12)
    assert out["c"] == 0.8


@pytest.mark.parametrize(
    "query,subject,named",
    [
        ("What is Nate's favorite video game?", "Nate", True),
        ("what did we decide about whisperclick v3 packaging", "WhisperClick V3", True),
        ("Natetastic results", "Nate", False),
        ("pywebview error on startup", "pywebview", True),
        ("anything", None, False),
        ("anything", "  ", False),
    ],
)
def test_query_naming_the_subject(query, subject, named):
    assert F.names_subject(query, subject) is named


def test_absolute_dates_in_a_query():
    assert F.query_dates("What did Tim say on 16 November, 2023?") == [("2023-11-16", "2023-11-16")]
    assert F.query_dates("what happened on December 1,2023 at the meeting") == [("2023-12-01", "2023-12-01")]
    assert F.query_dates("the 2024-02-29 release") == [("2024-02-29", "2024-02-29")]
    assert F.query_dates("decisions in Feb 2024") == [("2024-02-01", "2024-02-29")]
    assert F.query_dates("what did we change in 2023-12") == [("2023-12-01", "2023-12-31")]
    assert F.query_dates("what broke last week") == []
    assert F.query_dates("on 31 February 2023") == [("2023-02-01", "2023-02-28")]  # no such day: the month
    assert F.query_dates("port 8080 and 2023 budget") == []


def test_a_memory_recorded_on_the_named_day_matches_with_a_day_of_slack():
    day = F.query_dates("on 8 May 2023")
    assert F.date_matches("2023-05-08T13:56:00.000000Z", day)
    assert F.date_matches("2023-05-09T01:00:00.000000Z", day)
    assert not F.date_matches("2023-05-11T01:00:00.000000Z", day)
    assert not F.date_matches(None, day)
    assert not F.date_matches("garbage", day)


def test_confidence_and_recency_scale_relevance_and_can_be_switched_off():
    w = F.Weights()
    sure = F.final_score(0.8, confidence=1.0, age_days=0, weights=w)
    unsure = F.final_score(0.8, confidence=0.3, age_days=0, weights=w)
    old = F.final_score(0.8, confidence=1.0, age_days=365, weights=w)
    assert sure == pytest.approx(0.96)
    assert unsure < sure and old < sure
    assert unsure == pytest.approx(0.96 * 0.79)
    n = w.neutral()
    assert F.final_score(0.8, confidence=0.3, age_days=365, weights=n) == pytest.approx(0.96)
    assert 0.0 <= F.final_score(1.7, confidence=2.0, age_days=-3) <= 1.0


def test_reported_relevance_keeps_the_order_and_puts_0_6_at_a_third_of_the_evidence():
    values = [i / 20 for i in range(21)]
    cal = [F.calibrate(v) for v in values]
    assert cal == sorted(cal) and cal[0] == 0.0 and cal[-1] == 1.0
    assert F.calibrate(0.37) == pytest.approx(0.6, abs=0.01)
    assert F.calibrate(0.25) < 0.6 < F.calibrate(0.5)


@pytest.mark.parametrize(
    "question,asks",
    [
        ("what did we decide not to do about caching?", True),
        ("why didn't we use Redis", True),
        ("which alternatives were rejected for the queue", True),
        ("how do we cache API responses", False),
    ],
)
def test_questions_about_rejected_alternatives(question, asks):
    assert F.asks_for_rejected(question) is asks


def test_decisions_that_record_what_they_turned_down():
    assert F.records_rejection("Chose SQLite over Redis for the cache")
    assert F.records_rejection("Decided against Celery; rather than a queue we use cron")
    assert F.records_rejection("Use the queue", ["rejected:celery"])
    assert not F.records_rejection("Use SQLite for the cache", ["storage"])


def test_when_questions_and_time_expressions():
    assert F.asks_when("When did Caroline go to the support group?")
    assert F.asks_when("what year did we move the API to v2")
    assert not F.asks_when("why does the build fail")
    assert F.mentions_time("I went to a support group yesterday")
    assert F.mentions_time("we migrated last week") and F.mentions_time("released in 2022")
    assert not F.mentions_time("the tray icon vanishes after explorer restarts")
    for said in (
        "deployed on 2023-05-08 at noon",
        "a couple of months ago",
        "this past summer we moved",
        "see you on Friday!",
        "In September the API froze",
        "(last week) the build broke",
    ):
        assert F.mentions_time(said), said
    for said in (
        "they outlast week one",  # "last" inside a word is not "last week"
        "you may want to retry",  # "may" is the verb
        "port 8080 and 443",
        "this is the last step",  # a start word with no unit after it
        "last, week",  # a comma between: not a phrase
    ):
        assert not F.mentions_time(said), said


def test_feedback_raises_candidates_that_share_the_top_hits_words():
    words = {
        "a": ["pottery", "class", "clay"],
        "b": ["pottery", "clay", "bowl"],
        "c": ["clay", "bowl", "glaze"],
        "d": ["invoice", "cents"],
    }
    rel = {"a": 0.6, "b": 0.5, "c": 0.2, "d": 0.2}
    out = F.feedback_bonus(rel, words.get, ["pottery"], 0.3, top=2)
    assert out["c"] > rel["c"] and out["d"] == rel["d"]
    assert out["a"] >= rel["a"] and all(0 <= v <= 1 for v in out.values())
    assert F.feedback_bonus(rel, words.get, ["pottery"], 0.0) == rel


def test_concepts_link_a_question_to_the_tools_that_answer_it():
    from memory_cli.retrieval import concepts

    assert "pnpm" in concepts.instances("which package manager should I use?")
    assert "ruff" in concepts.instances("what linter do we use")
    assert concepts.instances("how long does jellyfin take to start") == []
    assert concepts.names_instance("Use pnpm, never npm", ["npm"])
    assert not concepts.names_instance("pnpm only", ["npm"])  # whole words
