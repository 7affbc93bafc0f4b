"""Repetition as a signal: what a person said in several sessions, in different words, becomes a
proposal in review with every instance (memory_cli/capture/recurring.py), on prompts people
really typed (tests/fixtures/real/prompts.jsonl)."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import real_prompts as rp  # noqa: E402

from memory_cli import review  # noqa: E402
from memory_cli.capture import corrections as corr  # noqa: E402
from memory_cli.capture.recurring import propose_recurring  # noqa: E402
from memory_cli.maintenance import tasks  # noqa: E402


def _typed(store, prompts: list[dict]) -> None:
    """Each prompt as UserPromptSubmit captures it, in its own session."""
    for r in prompts:
        corr.capture(store, r["prompt"], session_id=r["session"])


def test_a_real_instruction_repeated_across_sessions_is_proposed_with_every_instance(store, cli):
    """One person told the agent in four sessions, each time in other words, to branch from
    the right branch and not commit to main; no single prompt was told to Claude as sure."""
    person = [r for r in rp.load_prompts() if r["person"] == "FSM1"]
    _typed(store, person)
    assert not [p for p in review.pending(store) if p["item"] == "recurring"]
    proposals = propose_recurring(store)
    about_main = [p for p in proposals if "main" in p["statement"]]
    assert about_main and about_main[0]["new"] and about_main[0]["sessions"] >= 2
    pid = about_main[0]["id"]
    queue = cli("review", "--list").stdout
    item = next(line for line in queue.splitlines() if line.startswith(pid[:8]))
    assert "proposed instruction" in item
    # the summary's "N proposed" counts what the list shows as proposed
    head, rows = queue.splitlines()[0], [line for line in queue.splitlines() if line[:8].isalnum()]
    shown = sum(1 for line in rows if line[10:].startswith("proposed "))
    assert f", {shown} proposed," in head, queue
    shown = queue.split(item, 1)[1].splitlines()
    said = [line for line in shown if line.startswith("      said in session")]
    [proposal] = [p for p in review.pending(store) if p["id"] == pid]
    assert len(proposal["instances"]) == proposal["occurrences"] >= 3
    assert len({i["session_id"] for i in proposal["instances"]}) >= 2
    for inst in proposal["instances"]:
        assert any(inst["session_id"][:8] in line for line in said), inst
    # grouped instances are shown under the proposal, not again on their own
    assert not {i["id"] for i in proposal["instances"]} & {p["id"] for p in review.pending(store)}
    assert propose_recurring(store) == []  # nothing new: nothing proposed twice


def test_nothing_is_proposed_from_real_prompts_that_were_not_corrections(tmp_path):
    """Every person's real non-corrections (task briefs, questions, praise, everyday requests
    like "commit this" said in session after session), typed in their sessions."""
    from memory_cli.store.db import Store

    people = defaultdict(list)
    for r in rp.load_prompts():
        if not r["correction"]:
            people[r["person"]].append(r)
    assert sum(len({r["session"] for r in rs}) > 1 for rs in people.values()) >= 10
    for person, prompts in people.items():
        s = Store.open(tmp_path / f"{person.replace(':', '_')}.db")
        try:
            _typed(s, prompts)
            assert propose_recurring(s) == [], person
        finally:
            s.close()


def test_a_rejected_recurring_instruction_is_not_proposed_again(store, cli):
    for sid, text in (("s1", "no, use the wrapper script, not plain bash"), ("s2", "use the wrapper script not bash")):
        corr.capture(store, text, session_id=sid)
    [p] = [p for p in propose_recurring(store) if p["new"]]
    cli("review", "--reject", p["id"])
    corr.capture(store, "again: the wrapper script, not bash", session_id="s3")
    assert [x for x in propose_recurring(store) if x["new"]] == []
    assert not [i for i in review.pending(store) if i["item"] == "recurring"]


def test_the_session_end_job_proposes_what_was_said_in_two_sessions(store, db_path):
    corr.capture(store, "dont use npm here, use pnpm", session_id="s1")
    corr.capture(store, "please use pnpm and not npm", session_id="s2")
    names = [name for name, _ in tasks.summary_tasks(db_path)]
    assert "recurring-instructions" in names
    for name, task in tasks.summary_tasks(db_path):
        if name == "recurring-instructions":
            assert task().startswith("1 recurring")
    assert [i["item"] for i in review.pending(store)][:1] in (["recurring"], ["proposal"])


def test_a_guess_of_the_learned_model_is_not_grouped_with_a_correction(store):
    """A proposal groups only what reads as a correction on its own: a request the learned
    model took for one (no parts, confidence 0.3) does not join a real correction."""
    from memory_cli.capture.detect import Detection

    corr.capture(store, "no, use the wrapper script, not plain bash", session_id="s1")
    request = "run the wrapper script, not plain bash, for the deploy"
    guess = Detection.inferred(request, request, confidence=0.3, signal="learned")
    corr.capture(store, request, session_id="s2", detection=guess)
    assert propose_recurring(store) == []
    # the agent's lesson on the same words, its quote checked, does join it
    corr.capture(store, request, session_id="s3", detection=guess, origin="agent")
    [proposal] = propose_recurring(store)
    assert proposal["sessions"] == 2
