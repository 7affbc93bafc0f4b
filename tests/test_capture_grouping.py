"""One proposal per instruction (memory_cli/capture/recurring.py, taught.py, lessons.py): the
agent says "this is that again" with `same_as` after `record_correction` shows it the closest
waiting lesson; lessons worded differently are grouped off the hook's clock, in one session or
several; a prompt read by two readers counts once; the queue shows one item per instruction."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload

from memory_cli import review
from memory_cli.capture import lessons, taught
from memory_cli.capture.recurring import propose_recurring
from memory_cli.capture.semantic import job_embedder
from memory_cli.store.db import Store

PROJECT = "whisperclick"


def typed(hook, project, prompt: str, session: str):
    r = hook("UserPromptSubmit", payload("UserPromptSubmit", cwd=str(project), session_id=session, prompt=prompt))
    assert r.returncode == 0, r


def record(db_path, **kw):
    with Store.open(db_path) as s:
        return lessons.record_lesson(s, project=PROJECT, **kw)


def queue(db_path) -> list[dict]:
    with Store.open(db_path) as s:
        return review.pending(s)


SAID = [
    ("s1", "we only deploy through the staging cluster"),
    ("s2", "staging gets every release before prod"),
    ("s3", "did you skip staging again? it goes there first"),
]
WORDED = [
    "Deploy to the staging cluster before production",
    "Release to staging first, then prod",
    "Never skip staging when deploying",
]


def test_the_answer_names_the_closest_waiting_lesson_and_same_as_counts_it_there(hook, project, db_path):
    for session, said in SAID:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0], kind="standing")
    with Store.open(db_path) as s:
        near = taught.closest(s, "Deploy to staging first, then production", project=PROJECT)
    assert [n["id"] for n in near] == [first["id"]] and near[0]["lesson"] == WORDED[0]
    # the agent says the second and third prompts are that lesson again
    second = record(db_path, quote=SAID[1][1], lesson=WORDED[1], same_as=first["id"][:8])
    third = record(db_path, quote=SAID[2][1], lesson=WORDED[2], same_as=first["id"])
    assert second["id"] == third["id"] == first["id"]
    assert (third["occurrences"], third["sessions"]) == (3, 3)
    # taught three times in three sessions: one proposal, held until the person approves it
    agent_items = [i for i in queue(db_path) if i["origin"] == "agent"]
    assert [(i["item"], i["occurrences"]) for i in agent_items] == [("proposal", 3)], agent_items
    # the same prompt said to be the same lesson again is not counted twice
    again = record(db_path, quote=SAID[2][1], lesson=WORDED[2], same_as=first["id"])
    assert again["already"] and again["occurrences"] == 3


def test_the_closest_lessons_are_ranked_by_meaning_when_the_daemon_answers(hook, project, db_path):
    """A lesson said again in words it shares with no waiting lesson is offered to the agent
    when memory-cli can compare meanings (the record_correction answer asks the daemon; here
    the local encoder answers for it); by words alone it falls behind lessons that merely share
    a word."""
    from memory_cli.capture.semantic import job_embedder

    lessons = [
        "Commit each fix as its own atomic commit",
        "Small functions only; keep them focused",
        "Keep the sidebar small on mobile",
        "Keep secrets out of the logs",
    ]
    for n, lesson in enumerate(lessons):
        prompt = f"prompt {n}: {lesson.lower()}"
        typed(hook, project, prompt, f"s{n}")
        record(db_path, quote=prompt, lesson=lesson)
    said_again = "Keep commits small and focused"
    with Store.open(db_path) as s:
        by_words = [n["lesson"] for n in taught.closest(s, said_again, project=PROJECT)]
        by_both = [n["lesson"] for n in taught.closest(s, said_again, project=PROJECT, embed=job_embedder(5000.0))]
    assert lessons[0] not in by_words, by_words
    assert lessons[0] in by_both, by_both


def test_the_server_embeds_each_waiting_lesson_once():
    """record_correction ranks every waiting lesson at each call; the resident server sends the
    model only the texts it has not embedded before, and gives the same vectors."""
    from memory_cli.capture.semantic import job_embedder, remembering

    model, asked = job_embedder(5000.0), []

    def counted(texts):
        asked.append(list(texts))
        return model(texts)

    embed = remembering(counted)
    waiting = ["Deploy to the staging cluster before production", "Never skip staging when deploying"]
    first = embed(["Release to staging first, then prod", *waiting])
    again = embed(["Push after each commit", *waiting])
    assert asked[-1] == ["Push after each commit"]
    assert again[1:] == first[1:] == model(waiting)


def test_a_lesson_recorded_before_same_as_is_folded_into_the_one_it_repeats(hook, project, db_path):
    """The agent records a lesson, reads the closest one in the answer and calls again with
    same_as: the prompt counts once, on the lesson it repeats."""
    for session, said in SAID[:2]:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    alone = record(db_path, quote=SAID[1][1], lesson=WORDED[1])
    assert alone["id"] != first["id"]
    joined = record(db_path, quote=SAID[1][1], lesson=WORDED[1], same_as=first["id"])
    assert joined["id"] == first["id"] and joined["occurrences"] == 2
    with Store.open(db_path) as s:
        assert s.value("SELECT status FROM corrections WHERE id = ?", (alone["id"],)) == "dismissed"
    assert [i["id"] for i in queue(db_path) if i["origin"] == "agent"] == [first["id"]]


def test_same_as_on_other_words_of_the_prompt_keeps_the_lesson_taken_from_the_rest(hook, project, db_path):
    """One prompt gives two instructions: the agent records one on its own and says the other
    is a lesson again. Both are kept: the first is not folded into a lesson it does not repeat."""
    typed(hook, project, SAID[0][1], "s1")
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    said = "deploy it on staging before prod again. and i dont want supabase anywhere"
    typed(hook, project, said, "s2")
    own = record(db_path, quote="i dont want supabase anywhere", lesson="Do not use Supabase")
    again = record(db_path, quote="deploy it on staging before prod again", lesson=WORDED[1], same_as=first["id"])
    assert again["id"] == first["id"] and again["occurrences"] == 2
    assert sorted(i["statement"] for i in queue(db_path) if i["origin"] == "agent") == sorted(
        ["Do not use Supabase", WORDED[0]]
    ), own


def test_same_as_on_a_prompt_the_hook_read_too_leaves_one_item(hook, project, db_path):
    """The agent says at once that a prompt is a lesson again; the hook's rules had read that
    prompt into a correction of their own, which gives way: the prompt counts on the lesson."""
    typed(hook, project, SAID[0][1], "s1")
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    said = "no, never deploy straight to prod, staging first"
    typed(hook, project, said, "s2")
    with Store.open(db_path) as s:
        hooks_own = s.value("SELECT id FROM corrections WHERE status = 'pending' AND origin IS NULL")
    assert hooks_own  # the hook's rules read it
    again = record(db_path, quote=said, lesson=WORDED[2], same_as=first["id"])
    assert again["id"] == first["id"] and again["occurrences"] == 2
    assert [i["id"] for i in queue(db_path)] == [first["id"]]


def test_the_hooks_single_reading_is_not_offered_to_the_agent_until_it_repeats(hook, project, db_path):
    """The hook's rules cut a correction out of one prompt; the agent is not shown it as a
    lesson to name until the same correction comes again."""
    said = "no, never deploy straight to prod, staging first"
    typed(hook, project, said, "s1")
    with Store.open(db_path) as s:
        hooks_own = s.value("SELECT id FROM corrections WHERE status = 'pending' AND origin IS NULL")
    assert hooks_own
    typed(hook, project, SAID[1][1], "s2")
    first = record(db_path, quote=SAID[1][1], lesson=WORDED[1])
    with Store.open(db_path) as s:
        shown = taught.closest(s, WORDED[1], project=PROJECT, exclude=first["id"]) + taught.waiting(s, PROJECT)
    assert hooks_own not in [c["id"] for c in shown]
    typed(hook, project, said, "s3")
    with Store.open(db_path) as s:
        assert s.value("SELECT occurrence_count FROM corrections WHERE id = ?", (hooks_own,)) == 2
        assert hooks_own in [c["id"] for c in taught.closest(s, WORDED[1], project=PROJECT)]


def test_the_audit_keeps_how_the_agent_worded_a_lesson_it_counted_again(hook, project, db_path, cli):
    for session, said in SAID[:2]:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    record(db_path, quote=SAID[1][1], lesson="Staging gets each release first", same_as=first["id"])
    rows = json.loads(cli("audit", "--action", "capture", "--json").stdout)
    counted = [r for r in rows if (r.get("details") or {}).get("matched_by") == "agent"]
    assert [r["details"]["said_as"] for r in counted] == ["Staging gets each release first"], rows


def test_same_as_naming_nothing_waiting_is_refused(hook, project, db_path):
    typed(hook, project, SAID[0][1], "s1")
    import pytest

    with pytest.raises(lessons.LessonRefused, match="same_as: no correction with id"):
        record(db_path, quote=SAID[0][1], lesson=WORDED[0], same_as="ffffffff")


def test_three_wordings_in_three_sessions_become_one_proposal_with_three_instances(hook, project, db_path):
    """Without same_as, the maintenance job groups the three lessons by their words and
    meaning: one proposal listing each instance with the person's quote."""
    for (session, said), lesson in zip(SAID, WORDED):
        typed(hook, project, said, session)
        record(db_path, quote=said, lesson=lesson)
    with Store.open(db_path) as s:
        assert not [i for i in review.pending(s) if i["item"] in ("proposal", "recurring")]  # three lessons
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        assert (proposal["instances"], proposal["sessions"], proposal["taught"]) == (3, 3, 3)
        [item] = [i for i in review.pending(s) if i["origin"] == "agent"]
    assert item["item"] == "recurring" and item["id"] == proposal["id"] and item["scope"] == f"project:{PROJECT}"
    assert sorted(i["quote"] for i in item["instances"]) == sorted(said for _s, said in SAID)


def test_a_proposal_is_worded_as_the_lesson_taught_most(hook, project, db_path):
    """The agent counted the first wording twice (same_as); a third prompt in other words joins
    them off the hook's clock: the proposal speaks with the wording taught twice, not the latest."""
    for session, said in SAID:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    record(db_path, quote=SAID[1][1], lesson=WORDED[1], same_as=first["id"])
    record(db_path, quote=SAID[2][1], lesson=WORDED[2])
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        [item] = [i for i in review.pending(s) if i["item"] == "recurring"]
    assert proposal["taught"] == 3 and item["statement"] == WORDED[0], item["statement"]


def test_the_same_instruction_three_times_in_one_session_is_taught_three_times(hook, project, db_path):
    said = ["commit and push after each change", "and push it when you commit", "you forgot to push the commit"]
    words = ["Commit and push after every change", "Push after each commit", "Always push the commit"]
    for prompt, lesson in zip(said, words):
        typed(hook, project, prompt, "s1")
        record(db_path, quote=prompt, lesson=lesson)
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s)
    assert (proposal["taught"], proposal["sessions"]) == (3, 1)


# Lessons a model acting as the agent recorded from one real person's prompts
# (scripts/agent_replay.py): five say "branch off fresh main", the last is the exception the
# person made once ("this pr should branch off the phase 12 branch").
BRANCHING = [
    "For a new phase, switch to main, pull latest, create and switch to a phase branch before committing",
    "Never commit or push directly to main; always work on a feature branch",
    "Before committing new work, go back to main, pull latest, create a dedicated branch and PR",
    "Before committing, go back to main, pull latest and branch off for the change",
    "Create new branches off latest main, not off the current branch",
]
EXCEPTION = (
    "When a task depends on an unmerged phase branch, branch off that phase branch and target the PR at it, not main"
)


def test_a_lesson_close_to_one_member_does_not_join_through_it(hook, project, db_path):
    """The exception is close in meaning to one of the five (cosine >= 0.6) and to none of the
    others: it stays its own item instead of joining the instruction it contradicts."""
    for n, lesson in enumerate([*BRANCHING, EXCEPTION]):
        prompt = f"prompt {n}: {lesson.lower()}"
        typed(hook, project, prompt, f"s{n}")
        record(db_path, quote=prompt, lesson=lesson)
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        [item] = [i for i in review.pending(s) if i["item"] == "recurring"]
        statements = {i["statement"] for i in review.pending(s)}
    assert proposal["instances"] == len(BRANCHING) and item["occurrences"] == len(BRANCHING)
    assert EXCEPTION in statements and EXCEPTION not in {i["statement"] for i in item["instances"]}


def test_groups_join_on_half_their_pairs_not_on_one():
    from memory_cli.capture.recurring import cluster

    close_pairs = {(0, 1), (0, 2), (1, 2), (2, 3), (4, 5)}
    labels = cluster(6, lambda a, b: (a, b) in close_pairs)
    assert labels[0] == labels[1] == labels[2] != labels[3]  # 3 is close to one of three
    assert labels[4] == labels[5] not in (labels[0], labels[3])
    chain = cluster(3, lambda a, b: (a, b) in {(0, 1), (1, 2)})
    assert len(set(chain)) == 1  # close to one of two is half: a three-wording repeat still joins


def test_one_prompt_read_by_two_readers_counts_once(store):
    from memory_cli.capture import corrections as corr
    from memory_cli.capture.recurring import taught as count

    prompt = "no, stop using npm here, we use pnpm"
    corr.capture(store, prompt, session_id="s1")  # the detector's reading
    items = [
        {"id": "a", "session": "s1", "text": "use pnpm, not npm", "prompt": prompt, "taught": 1},
        {"id": "b", "session": "s1", "text": "Use pnpm instead of npm", "prompt": prompt, "taught": 1},
        {"id": "c", "session": "s2", "text": "pnpm, never npm", "prompt": "pnpm. never npm.", "taught": 1},
    ]
    assert count(items) == 2


def test_session_start_lists_the_most_taught_waiting_lessons_within_its_budget(hook, project, db_path):
    for session, said in SAID:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    record(db_path, quote=SAID[1][1], lesson=WORDED[1], same_as=first["id"])
    r = hook("SessionStart", payload("SessionStart", cwd=str(project), session_id="s9", source="startup"))
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"- {first['id'][:8]}: {WORDED[0]} (taught 2x)" in context, context
    with Store.open(db_path) as s:
        assert len(taught.most_taught_text(s, PROJECT)) <= taught.BUDGET_CHARS


def test_the_queue_starts_with_a_summary_and_keeps_the_word_models_guesses_as_evidence(hook, project, db_path, cli):
    """Where the agent records lessons, a guess of the learned model is not an item: it shows
    under the item it reads like, and the queue is one item per instruction, most taught first."""
    from memory_cli.capture import corrections as corr
    from memory_cli.capture.detect import Detection

    for session, said in SAID:
        typed(hook, project, said, session)
    first = record(db_path, quote=SAID[0][1], lesson=WORDED[0])
    record(db_path, quote=SAID[1][1], lesson=WORDED[1], same_as=first["id"])
    typed(hook, project, "tabs in the makefile please", "s2")
    record(db_path, quote="tabs in the makefile please", lesson="Indent the Makefile with tabs")
    guess_text = "did you deploy to staging first"
    typed(hook, project, guess_text, "s3")
    with Store.open(db_path) as s:
        guess = Detection.inferred(guess_text, guess_text, confidence=0.3, signal="learned")
        g = corr.capture(s, guess_text, session_id="s3", detection=guess)
        items, _kept, line = review.queue(s)
    assert [i["statement"] for i in items] == [WORDED[0], "Indent the Makefile with tabs"]  # most taught first
    assert g["id"] not in {i["id"] for i in items}
    assert [e["id"] for e in items[0]["evidence"]] == [g["id"]]
    # the hook's own word model may have guessed on a typed prompt too: every guess is folded
    with Store.open(db_path) as s:
        guesses = s.value("SELECT count(*) FROM corrections WHERE detection_type = 'inferred' AND status = 'pending'")
    assert guesses >= 1
    many = "reading" if guesses == 1 else "readings"
    assert (
        line
        == f"2 instructions, 0 proposed, 0 waiting since last week ({guesses} {many} of the hook's words kept as evidence)"
    )
    shown = cli("review", "--list").stdout.splitlines()
    assert shown[0] == line, shown
    assert any(f"also read as a correction by the word model: {guess_text}" in x for x in shown), shown


def _one_instruction_proposed(hook, project, db_path) -> str:
    for (session, said), lesson in zip(SAID, WORDED):
        typed(hook, project, said, session)
        record(db_path, quote=said, lesson=lesson)
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
    return proposal["id"]


@pytest.mark.parametrize("decision", ["--approve", "--reject"])
def test_deciding_an_instruction_decides_every_instance_of_it(hook, project, db_path, cli, decision):
    """The person approves (or rejects) the one proposal for three wordings: the queue is then
    empty, not three lessons back again, and a fourth wording later joins it quietly."""
    pid = _one_instruction_proposed(hook, project, db_path)
    assert cli("review", decision, pid).returncode == 0
    assert cli("review", "--list").stdout == "Nothing to review.\n"
    said = "staging, then prod. always"
    typed(hook, project, said, "s4")
    record(db_path, quote=said, lesson="Always deploy to staging before prod")
    with Store.open(db_path) as s:
        propose_recurring(s, embed=job_embedder(1000.0))
        assert review.pending(s) == []
        status = "approved" if decision == "--approve" else "rejected"
        assert {r["status"] for r in s.rows("SELECT status FROM corrections WHERE origin = 'agent'")} == {status}
        entries = s.rows("SELECT status FROM memory_entries")
    if decision == "--approve":  # one memory for the instruction, however many times it was said
        assert [e["status"] for e in entries] == ["active"], entries


def test_a_lesson_proposed_on_its_own_count_is_shown_once_under_its_instruction(hook, project, db_path):
    """Two wordings grouped into one instruction; the agent then says the first one twice more,
    which proposes it on its own count. The queue shows the instruction once, holding it."""
    for (session, said), lesson in zip(SAID[:2], WORDED[:2]):
        typed(hook, project, said, session)
        record(db_path, quote=said, lesson=lesson)
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        first = s.value("SELECT id FROM corrections WHERE origin = 'agent' AND statement = ?", (WORDED[0],))
    for n, said in enumerate(["staging first, as always", "staging before prod, please"]):
        typed(hook, project, said, f"s{3 + n}")
        again = record(db_path, quote=said, lesson=WORDED[0], same_as=first)
    assert again["occurrences"] == 3 and again["status"] == "promoted"
    with Store.open(db_path) as s:
        propose_recurring(s, embed=job_embedder(1000.0))
        items = review.pending(s)
    assert [i["id"] for i in items] == [proposal["id"]], items


def test_a_wording_said_after_a_lesson_was_proposed_on_its_own_count_joins_it(hook, project, db_path, cli):
    """The agent counts one lesson three times (proposed on its own count); in a later session it
    records the instruction in other words without naming it. The session-end job joins the two:
    one item, and approving it leaves nothing waiting and one memory."""
    first = None
    for session, said in SAID:
        typed(hook, project, said, session)
        r = record(db_path, quote=said, lesson=WORDED[0], **({"same_as": first} if first else {}))
        first = first or r["id"]
    assert r["status"] == "promoted"
    said = "staging, then prod. always"
    typed(hook, project, said, "s4")
    record(db_path, quote=said, lesson="Release to staging first, then prod")
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        items = review.pending(s)
    assert [i["id"] for i in items] == [proposal["id"]] and proposal["taught"] == 4, items
    assert cli("review", "--approve", proposal["id"]).returncode == 0
    assert cli("review", "--list").stdout == "Nothing to review.\n"
    with Store.open(db_path) as s:
        assert [e["status"] for e in s.rows("SELECT status FROM memory_entries WHERE status != 'archived'")] == [
            "active"
        ]


def test_review_lists_every_time_a_lesson_was_said_with_the_persons_words(hook, project, db_path, cli):
    """A lesson counted again with `same_as` in two later sessions: review shows the three
    prompts (session, date, the person's words), not only the first, on the CLI and the
    dashboard alike."""
    first = None
    for session, said in SAID:
        typed(hook, project, said, session)
        r = record(db_path, quote=said, lesson=WORDED[0], **({"same_as": first} if first else {}))
        first = first or r["id"]
    listing = cli("review", "--list").stdout
    for session, said in SAID:
        assert f"said in session {session} on " in listing and said in listing, listing
    [item] = [i for i in json.loads(cli("--json", "review", "--list").stdout) if i["origin"] == "agent"]
    assert [i["quote"] for i in item["instances"]] == [said for _s, said in SAID]
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memory_cli.web.app import ServerConfig, create_app

    app = create_app(ServerConfig(db_path=str(db_path), token="t" * 24, extra_hosts=("testserver",)))
    with TestClient(app) as c:
        assert c.get(f"/?code={app.state.sessions.new_code()}", follow_redirects=False).status_code == 303
        page = c.get("/review").text
    for session, said in SAID:
        assert f"said in session {session}" in page and said in page, page


def test_a_correction_the_hook_counted_again_lists_both_times(hook, project, db_path, cli):
    typed(hook, project, "No, use pnpm, not npm", "s1")
    typed(hook, project, "no! use pnpm not npm, I said", "s2")
    [item] = json.loads(cli("--json", "review", "--list").stdout)
    assert item["occurrences"] == 2, item
    assert [(i["session_id"], i["quote"]) for i in item["instances"]] == [
        ("s1", "No, use pnpm, not npm"),
        ("s2", "no! use pnpm not npm, I said"),
    ]
    assert "said in session s2 on " in cli("review", "--list").stdout


def test_the_hooks_cut_of_a_prompt_the_agent_recorded_is_evidence_not_an_item(hook, project, db_path):
    """One prompt, two readers: the hook's rules cut a correction out of it, the agent records
    its own lesson from the same words. The queue holds one item."""
    said = "ok. no, never deploy straight to prod, staging first"
    typed(hook, project, said, "s1")
    with Store.open(db_path) as s:
        hooks_own = s.value("SELECT id FROM corrections WHERE status = 'pending' AND origin IS NULL")
    assert hooks_own
    lesson = record(db_path, quote="never deploy straight to prod, staging first", lesson="Stage every release first")
    with Store.open(db_path) as s:
        items, _kept, line = review.queue(s)
    assert [i["id"] for i in items] == [lesson["id"]], items
    assert "1 reading of the hook's words kept as evidence" in line, line


def test_without_agent_lessons_the_guesses_stay_items(store):
    from memory_cli.capture import corrections as corr
    from memory_cli.capture.detect import Detection

    text = "hmm that is not how we deploy"
    corr.capture(store, text, session_id="s1", detection=Detection.inferred(text, text, confidence=0.3, signal="x"))
    items, kept, line = review.queue(store)
    assert [i["item"] for i in items] == ["correction"] and items == review.pending(store)
    assert (kept, line) == (0, "1 instruction, 0 proposed, 0 waiting since last week")


def test_where_the_agent_read_many_prompts_and_recorded_nothing_the_guesses_are_evidence(hook, project, db_path, cli):
    """A person who only asks for tasks: the agent, asked to record lessons, records none over
    the prompts it read, so the word model's guesses on their bug reports are not items."""
    from memory_cli.capture import corrections as corr
    from memory_cli.capture.detect import Detection
    from memory_cli.capture.queue import READ_PROMPTS

    text = "the export button gives a white page now"
    for n in range(READ_PROMPTS - 1):
        typed(hook, project, f"add a field number {n} to the form", "s1")
    typed(hook, project, text, "s1")
    with Store.open(db_path) as s:
        corr.capture(s, text, session_id="s1", detection=Detection.inferred(text, text, confidence=0.3, signal="x"))
        items, _kept, line = review.queue(s)
    assert text not in [i["statement"] for i in items], items
    assert line.startswith("0 instructions") and "of the hook's words kept as evidence" in line, line
    shown = cli("review", "--list").stdout
    assert shown.startswith("Nothing to review (") and "`review --list --all` shows them" in shown, shown
    assert text in cli("review", "--list", "--all").stdout
    # one prompt fewer: the agent has not read enough to have said anything; the guess stays
    with Store.open(db_path) as s:
        s.execute("DELETE FROM capture_prompts WHERE id = (SELECT min(id) FROM capture_prompts)")
        assert text in [i["statement"] for i in review.pending(s)]


def test_the_summary_counts_what_waited_since_last_week():
    from datetime import datetime, timezone

    from memory_cli.capture.queue import summary

    now = datetime(2026, 12, 6, tzinfo=timezone.utc)
    items = [
        {"item": "recurring", "detected_at": "2026-11-20T10:00:00Z"},
        {"item": "proposal", "detected_at": "2026-12-05T10:00:00Z"},
        {"item": "correction", "detected_at": "2026-11-28T10:00:00Z"},
    ]
    assert summary(items, now=now) == "3 instructions, 2 proposed, 2 waiting since last week"


def test_the_dashboard_shows_the_same_summary_and_one_proposal_with_its_instances(hook, project, db_path):
    """The review page in the dashboard (a real app over the store): the summary line, then
    the grouped lessons as one proposed instruction listing each prompt the person typed."""
    import pytest

    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memory_cli.web.app import ServerConfig, create_app

    for (session, said), lesson in zip(SAID, WORDED):
        typed(hook, project, said, session)
        record(db_path, quote=said, lesson=lesson)
    with Store.open(db_path) as s:
        propose_recurring(s, embed=job_embedder(1000.0))
        line = review.queue(s).summary
    app = create_app(ServerConfig(db_path=str(db_path), token="t" * 24, extra_hosts=("testserver",)))
    with TestClient(app) as c:
        assert c.get(f"/?code={app.state.sessions.new_code()}", follow_redirects=False).status_code == 303
        page = c.get("/review").text
    assert line.startswith("1 instruction, 1 proposed") and f'id="review-summary">{line}<' in page, page
    assert page.count("proposed instruction") == 1
    for session, said in SAID:
        assert f"said in session {session}" in page and said in page


def test_the_thresholds_hold_precision_on_the_people_held_out():
    """scripts/score_grouping.py on the hand-written lessons of real repeated instructions
    (tests/fixtures/real/instruction_groups.jsonl): at the thresholds grouping uses (chosen on
    the lessons a model acting as the agent recorded for SWORDIntel and FSM1), no two
    instructions of the four people held out merge."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import score_grouping as sg

    from memory_cli.capture import recurring

    people = sg.load_lessons()
    scores = {p: sg.pair_scores(items) for p, items in people.items()}
    tuned = ["FSM1", "SWORDIntel"]
    words, cos = recurring.LESSON_GROUP_THRESHOLD, recurring.LESSON_VECTOR_THRESHOLD
    tot = [0, 0, 0]
    for person in sorted(set(people) - set(tuned)):
        for i, v in enumerate(sg.counts(people[person], scores[person], words, cos)):
            tot[i] += v
    precision, recall = sg.pr(*tot)
    assert precision >= 0.9 and tot[2] >= 40, tot
    assert recall >= 0.3, tot  # docs/corrections.md reports it; the agent's same_as does the rest


def test_the_session_end_models_finding_joins_the_agents_lessons(hook, project, db_path):
    """What the session-end model found in a finished session (global, its quote checked) and
    the agent's lessons of the same instruction (kept in the project) make one group."""
    from memory_cli.capture.corrections import record_missed

    for (session, said), lesson in zip(SAID[:2], WORDED[:2]):
        typed(hook, project, said, session)
        record(db_path, quote=said, lesson=lesson)
    with Store.open(db_path) as s:
        [found] = record_missed(
            s,
            [{"quote": SAID[2][1], "statement": WORDED[2], "kind": "pushback"}],
            session_id="s3",
            project=PROJECT,
        )
        assert found["correction"] and found["origin"] == "person"
        [proposal] = propose_recurring(s, embed=job_embedder(1000.0))
        [item] = [i for i in review.pending(s) if i["item"] == "recurring"]
    assert (proposal["instances"], proposal["sessions"]) == (3, 3)
    assert item["scope"] == f"project:{PROJECT}"  # where most of it was taught


def _typed_prompts(path) -> list[tuple[str, str]]:
    """(session, prompt) of each prompt a person typed in a real session log (no tool results,
    meta records, side chains or injected wrappers)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") != "user" or r.get("isMeta") or r.get("isSidechain"):
            continue
        content = (r.get("message") or {}).get("content")
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        if isinstance(content, str) and content.strip() and not content.lstrip().startswith("<"):
            out.append((r.get("sessionId") or path.name, content))
    return out


def test_real_held_out_sessions_give_no_false_proposal_and_a_short_queue(tmp_path):
    """The sessions of 14 people this grouping was never built or tuned on
    (tests/fixtures/real/heldout), replayed prompt by prompt through capture in order, then
    the session-end job's grouping with the local encoder: nothing is proposed from what the
    hook's reader took for corrections, and no person's queue is longer than 20 items (1,045
    prompts; the busiest, 230 prompts in 4 sessions, has 18)."""
    from collections import defaultdict
    from pathlib import Path

    from memory_cli.capture import corrections as corr

    folder = Path(__file__).parent / "fixtures" / "real" / "heldout"
    people = defaultdict(list)
    for f in sorted(folder.glob("*-*.jsonl")):
        people[f.name.rsplit("-", 1)[0]].append(f)
    assert len(people) == 14
    embed = job_embedder(1000.0)
    sizes = {}
    for person, files in people.items():
        with Store.open(tmp_path / f"{person}.db") as s:
            for f in files:
                for session, prompt in _typed_prompts(f):
                    corr.capture(s, prompt, session_id=session)
            assert propose_recurring(s, embed=embed) == [], person
            items = review.pending(s)
            assert not [i for i in items if i["item"] in ("proposal", "recurring")], person
            sizes[person] = len(items)
    assert max(sizes.values()) <= 20, sizes
