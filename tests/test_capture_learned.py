"""The learned second opinion of correction detection (memory_cli/capture/learned.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.transcripts import agent_turn_transcript

from memory_cli.capture import agent_turn, learned
from memory_cli.capture.detect import INFERRED_CONFIDENCE, detect, detect_by_rules

ROOT = Path(__file__).resolve().parent.parent

# Caught by the model only: no rule reads "quit" followed by a gesture ("sprinkling") as a ban.
ONLY_THE_MODEL = "please quit sprinkling print calls everywhere"


def test_the_shipped_model_is_the_one_the_labelled_sets_give():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "train_capture_model.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "up to date" in r.stdout


def test_its_threshold_keeps_the_cross_validated_precision():
    """Both thresholds are chosen on real prompts held out by person (with the agent's turn, as
    the hook reads it, and without); the synthetic sets, which have no turn, cross-validated with
    the real prompts in every training fold, keep a high precision at the threshold without it."""
    model = json.loads(Path(learned.MODEL_PATH).read_text(encoding="utf-8"))
    real = model["held_out_real_people"]
    assert real["folds"] >= 5 and real["precision"] >= 0.5 and real["model_alone_recall"] > 0.2
    blind = model["held_out_real_people_without_turn"]
    assert blind["precision"] >= 0.5
    cv = model["cross_validated_synthetic"]
    assert cv["folds"] == 10 and cv["precision"] >= 0.85 and cv["recall"] >= 0.90
    assert 0.2 <= model["threshold"] <= model["threshold_without_turn"] < 1.0 and model["max_words"] >= 19


def _after_a_claimed_fix(tmp_path, prompt=ONLY_THE_MODEL):
    """The agent's turn before ``prompt``: it edited a file, ran the tests and said it fixed it."""
    path = agent_turn_transcript(
        tmp_path / "session.jsonl", "I've fixed the retry loop in the parser. All tests pass now."
    )
    return agent_turn.read(path, prompt)


def test_a_correction_only_the_model_recognises_is_recorded_as_inferred(tmp_path):
    assert detect_by_rules(ONLY_THE_MODEL) is None
    d = detect(ONLY_THE_MODEL, _after_a_claimed_fix(tmp_path))
    assert d is not None
    assert (d.signal, d.kind, d.confidence) == ("learned", "inferred", INFERRED_CONFIDENCE)
    assert d.statement == ONLY_THE_MODEL and d.what_was_wrong == d.what_is_right == ""


def test_it_waits_at_the_end_of_the_review_queue_and_can_be_completed(store, tmp_path):
    from memory_cli import review
    from memory_cli.capture import corrections as corr

    transcript = agent_turn_transcript(
        tmp_path / "session.jsonl", "I've fixed the retry loop in the parser. All tests pass now."
    )
    corr.capture(store, "use pnpm, not npm", session_id="s1")
    corr.capture(store, "seriously, again?", session_id="s1")  # implicit, nothing to review
    corr.capture(store, ONLY_THE_MODEL, session_id="s1", transcript_path=transcript)
    queue = review.pending(store)
    assert [i["statement"] for i in queue] == ["use pnpm, not npm", ONLY_THE_MODEL]
    assert queue[-1]["kind"] == "inferred" and queue[-1]["suggested_rule"] is None
    learned_id = queue[-1]["id"]
    review.edit(store, learned_id, what_was_wrong="print calls", what_is_right="the logger")
    after = {i["id"]: i for i in review.pending(store)}
    assert len(after) == 2 and after[learned_id]["what_is_right"] == "the logger"
    assert store.value("SELECT key FROM corrections WHERE id = ?", (learned_id,))  # later repeats match it


def test_long_text_and_quotes_are_not_judged_by_the_model(tmp_path):
    words = json.loads(Path(learned.MODEL_PATH).read_text(encoding="utf-8"))["max_words"]
    filler = " ".join(["the report lists each service with its owner and its region"] * (words // 11 + 1))
    turn = _after_a_claimed_fix(tmp_path)
    assert detect(ONLY_THE_MODEL, turn) is not None
    assert detect(f"{ONLY_THE_MODEL}. {filler}", turn) is None
    assert detect(f"`{ONLY_THE_MODEL}`", turn) is None
    assert detect(f'the ticket says "{ONLY_THE_MODEL}"', turn) is None


def test_without_a_readable_model_the_rules_still_run(monkeypatch, tmp_path):
    broken = tmp_path / "model.json"
    broken.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(learned, "MODEL_PATH", str(broken))
    monkeypatch.setattr(learned, "_model", None)
    assert learned.load(str(broken)) is None
    assert detect(ONLY_THE_MODEL, _after_a_claimed_fix(tmp_path)) is None
    assert detect("use pnpm, not npm").statement == "use pnpm, not npm"


def test_a_message_owning_up_to_the_persons_own_mistake_is_not_judged_by_the_model(monkeypatch):
    """ "I pasted the wrong log, ..." corrects the person's own message, not the agent: the rules
    stand down, and so does the model, however sure it is."""
    monkeypatch.setattr(learned, "is_correction", lambda text, turn=None: True)
    assert detect(f"I pasted the wrong log, {ONLY_THE_MODEL}") is None
    assert detect("my bad, scrap that and use src/app.py") is None
    assert detect(ONLY_THE_MODEL) is not None  # the same model's yes counts elsewhere


def test_the_transcript_is_read_only_when_the_turn_could_change_the_verdict():
    """The hook skips reading the agent's turn when the prompt's words alone decide it; on every
    real prompt the verdict is the one the model gives with the turn read."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    import real_prompts as rp

    from memory_cli.capture.detect import _Masked

    model = learned.load()
    skipped = 0
    for r, turn in zip(rp.load_prompts(), rp.load_turns(), strict=True):
        text = _Masked(r["prompt"][:4000]).text
        if len(text.split()) > model["max_words"]:
            continue
        read = []
        verdict = learned.is_correction(text, lambda turn=turn, read=read: read.append(1) or turn)
        threshold = model["threshold"] if turn is not None else model["threshold_without_turn"]
        assert verdict == (learned.probability(text, model, turn) >= threshold), r["prompt"][:80]
        skipped += not read
    assert skipped > 300  # most often the words decide


def test_the_same_words_typed_again_count_on_the_first_guess(store, tmp_path, cli):
    """A guess has no parts to match a repeat by; the very same words typed again (a real
    person typed "Think some more. I don't like any approach." twice in one session) count on
    the first one: one item said twice, listing both times, not two items of the same text."""
    from memory_cli import review
    from memory_cli.capture import corrections as corr

    transcript = agent_turn_transcript(
        tmp_path / "session.jsonl", "I've fixed the retry loop in the parser. All tests pass now."
    )
    first = corr.capture(store, ONLY_THE_MODEL, session_id="s1", transcript_path=transcript, project="api")
    again = corr.capture(store, ONLY_THE_MODEL, session_id="s2", transcript_path=transcript, project="api")
    assert first["kind"] == "inferred" and again["matched_by"] == "same words"
    assert again["id"] == first["id"] and again["occurrences"] == 2
    [item] = [i for i in review.pending(store) if i["statement"] == ONLY_THE_MODEL]
    assert (item["occurrences"], item["sessions"]) == (2, 2)
    listed = cli("review", "--list").stdout
    assert listed.count(ONLY_THE_MODEL) >= 1 and "x2/2s" in listed, listed
    # once rejected and typed again, the words are not an item of their own
    review.reject(store, first["id"])
    third = corr.capture(store, ONLY_THE_MODEL, session_id="s4", transcript_path=transcript, project="api")
    assert third["id"] == first["id"] and third["status"] == "rejected"
    assert first["id"] not in {i["id"] for i in review.pending(store)}
    # the same words in another project are that project's
    words = "please quit sprinkling print calls"
    here = corr.capture(store, words, session_id="s1", transcript_path=transcript, project="api")
    there = corr.capture(store, words, session_id="s1", transcript_path=transcript, project="web")
    assert here["kind"] == there["kind"] == "inferred" and here["id"] != there["id"], (here, there)
    assert corr.capture(store, words, session_id="s2", transcript_path=transcript, project="api")["id"] == here["id"]
