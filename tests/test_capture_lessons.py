"""Lessons the agent records (memory_cli/capture/lessons.py): the person's prompts, kept by the
real UserPromptSubmit hook, decide whether a lesson's quote is theirs; an accepted lesson is a
correction of origin agent that counts repeats, is proposed after repeats and applies only once
the person approves it in review; the hook's own detector no longer speaks to the agent."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload

from memory_cli.capture import lessons
from memory_cli.review import pending as review_queue
from memory_cli.store.db import Store


def typed(hook, project, prompt: str, session: str = "s1"):
    """The person types ``prompt`` in ``project`` (a real hook process)."""
    r = hook("UserPromptSubmit", payload("UserPromptSubmit", cwd=str(project), session_id=session, prompt=prompt))
    assert r.returncode == 0, r
    return r


def record(db_path, project_name="whisperclick", **kw):
    with Store.open(db_path) as s:
        return lessons.record_lesson(s, project=project_name, **kw)


def refusals(db_path) -> list[dict]:
    with Store.open(db_path) as s:
        return s.rows("SELECT context, result, details FROM memory_audit_log WHERE action = 'lesson'")


def test_a_real_quote_is_accepted_and_waits_in_review_as_the_agents(hook, cli, project, db_path):
    typed(hook, project, "the tests go through `make check`, never call pytest directly")
    out = record(
        db_path,
        quote="The tests go through make check, never call pytest directly.",
        lesson="Run the tests with make check, not bare pytest",
        wrong="pytest",
        right="make check",
        kind="standing",
    )
    assert out["correction"] and not out["already"] and out["origin"] == "agent"
    assert out["scope"] == "project:whisperclick" and out["session_ids"] == ["s1"]
    queue = cli("review", "--list").stdout
    assert "Run the tests with make check, not bare pytest" in queue, queue
    assert 'recorded by the agent, quoting you: "The tests go through make check' in queue, queue
    items = json.loads(cli("--json", "review", "--list").stdout)
    # the hook's rules read the prompt too: both readings wait for the person, marked by origin
    assert sorted(i["origin"] for i in items) == ["agent", "person"]
    [item] = [i for i in items if i["origin"] == "agent"]
    assert item["user_message"].startswith("The tests go through") and item["kind"] == "explicit"


@pytest.mark.parametrize(
    "quote",
    [
        "USE PNPM,   NOT NPM",  # case and spacing
        "“use pnpm, not npm”",  # the agent's quote marks
        "no -- use pnpm not npm!",  # punctuation
        "dont touch the lockfile",  # apostrophe left out
        "use pnpm ... the lockfile",  # words left out, marked
    ],
)
def test_whitespace_case_and_quote_marks_do_not_matter(hook, project, db_path, quote):
    typed(hook, project, "No, use pnpm, not npm.\nAnd don’t touch the lockfile")
    assert record(db_path, quote=quote, lesson="Use pnpm")["correction"]
    assert refusals(db_path) == []


@pytest.mark.parametrize(
    "quote,why",
    [
        ("never use yarn in this repo", "invented"),
        ("please switch to pnpm instead of npm", "a paraphrase"),
        ("use pnpm, not npm, and run the linter", "a real start with an invented end"),
        ("pnpm ... yarn", "one real word, one invented"),
    ],
)
def test_a_quote_the_person_did_not_type_is_refused_and_audited(hook, cli, project, db_path, quote, why):
    typed(hook, project, "No, use pnpm, not npm.")
    with pytest.raises(lessons.LessonRefused, match="refused: the quote is not in anything the person typed"):
        record(db_path, quote=quote, lesson="Use pnpm for installs")
    [row] = refusals(db_path)
    assert row["result"] == "refused" and row["context"] == "Use pnpm for installs"
    assert json.loads(row["details"])["quote"] == quote
    assert "recorded by the agent" not in cli("review", "--list").stdout, why
    with Store.open(db_path) as s:
        assert s.value("SELECT count(*) FROM corrections WHERE origin = 'agent'") == 0


def test_a_quote_typed_in_another_project_is_refused(hook, project, db_path, tmp_path):
    other = tmp_path / "work" / "billing"
    (other / ".git").mkdir(parents=True)
    typed(hook, other, "never deploy on fridays")
    with pytest.raises(lessons.LessonRefused):
        record(db_path, quote="never deploy on fridays", lesson="Do not deploy on Fridays")
    assert record(db_path, "billing", quote="never deploy on fridays", lesson="Do not deploy on Fridays")["correction"]


def test_a_secret_in_the_quote_is_compared_and_stored_redacted(hook, project, db_path):
    key = "sk-ant-api03-" + "Qx9" * 12 + "AA"
    typed(hook, project, f"stop pasting {key} into the config")
    out = record(db_path, quote=f"stop pasting {key} into the config", lesson="Keep keys out of the config")
    assert key not in out["user_message"] and "[REDACTED" in out["user_message"]
    stored = b"".join(p.read_bytes() for p in db_path.parent.glob("memory.db*") if p.is_file())
    assert key[:20].encode() not in stored  # the kept prompt holds no text at all


def test_bad_lessons_are_refused_with_one_line(hook, project, db_path):
    typed(hook, project, "No, use pnpm, not npm.")
    for kw, why in [
        ({"quote": "", "lesson": "x"}, "quote is empty"),
        ({"quote": "use pnpm", "lesson": "  "}, "lesson is empty"),
        ({"quote": "use pnpm", "lesson": "x", "kind": "advice"}, "kind must be pushback or standing"),
        ({"quote": "?!", "lesson": "x"}, "quote has no words"),
    ]:
        with pytest.raises(lessons.LessonRefused, match=why):
            record(db_path, **kw)


def test_the_same_lesson_in_three_sessions_is_one_proposal_that_applies_only_once_approved(hook, cli, project, db_path):
    said = ["we're a pnpm shop", "pnpm here, remember?", "hmm, pnpm is what we use"]  # the rules read none
    for i, prompt in enumerate(said):
        typed(hook, project, prompt, session=f"s{i}")
        out = record(db_path, quote=prompt, lesson="Use pnpm, not npm", wrong="npm", right="pnpm", kind="pushback")
    assert out["occurrences"] == 3 and out["sessions"] == 3 and out["promoted_now"] and out["held_back"]
    queue = review_queue(Store.open(db_path))
    assert [(q["item"], q["origin"]) for q in queue] == [("proposal", "agent")]
    with Store.open(db_path) as s:  # nothing applies yet: the rule is off, the entry held back
        rule = s.row("SELECT active, confirmed FROM enforcement_rules WHERE pattern = 'npm'")
        assert rule == {"active": 0, "confirmed": 0}
        assert s.value("SELECT status FROM memory_entries WHERE id = ?", (queue[0]["promoted_entry_id"],)) == "archived"
    listed = cli("review", "--list").stdout
    assert "x3/3s" in listed and "disabled" in listed and "recorded by the agent" in listed, listed
    cli("review", "--approve", queue[0]["id"][:8])
    with Store.open(db_path) as s:
        assert s.row("SELECT active, confirmed FROM enforcement_rules WHERE pattern = 'npm'") == {
            "active": 1,
            "confirmed": 1,
        }


def test_differently_worded_lessons_in_three_sessions_become_one_recurring_proposal(hook, project, db_path):
    from memory_cli.capture.recurring import propose_recurring

    said = ["the linter has to pass before a commit", "lint first", "commits here need a clean lint run"]
    taught = ["Run the linter before committing", "Always run the linter before a commit", "Lint before committing"]
    counted = []
    for i, (prompt, lesson) in enumerate(zip(said, taught)):
        typed(hook, project, prompt, session=f"s{i}")
        counted.append(record(db_path, quote=prompt, lesson=lesson, kind="standing")["occurrences"])
    assert counted == [1, 2, 1]  # the second lesson's words matched the first's at once
    with Store.open(db_path) as s:
        [proposal] = propose_recurring(s)
        assert proposal["instances"] == 2 and proposal["sessions"] == 3
        [item] = [q for q in review_queue(s) if q["item"] == "recurring"]
        # every time it was said, the repeat counted on the first lesson included
        assert [i["session_id"] for i in item["instances"]] == ["s0", "s1", "s2"] and item["sessions"] == 3
        assert [i["quote"] for i in item["instances"]] == said


def test_a_prompt_counts_once_when_the_hook_already_recorded_it(hook, project, db_path):
    typed(hook, project, "No, use pnpm, not npm")  # the hook's rules read it too
    out = record(db_path, quote="No, use pnpm, not npm", lesson="Use pnpm, not npm", wrong="npm", right="pnpm")
    assert out["already"] and out["occurrences"] == 1 and out["origin"] == "person"
    again = record(db_path, quote="use pnpm", lesson="Use pnpm, not npm", wrong="npm", right="pnpm")
    assert again["already"] and again["occurrences"] == 1


def test_the_learned_models_guess_on_the_prompt_gives_way_to_the_agents_lesson(hook, project, db_path):
    with Store.open(db_path) as s:
        from memory_cli.capture.corrections import capture
        from memory_cli.capture.detect import Detection

        guess = Detection.inferred(
            "quit sprinkling print calls", "quit sprinkling print calls", confidence=0.3, signal="learned"
        )
        got = capture(s, "please quit sprinkling print calls everywhere", session_id="s1", detection=guess)
        lessons.remember_prompt(
            s,
            "please quit sprinkling print calls everywhere",
            session_id="s1",
            project="whisperclick",
            correction_id=got["id"],
        )
    out = record(db_path, quote="quit sprinkling print calls", lesson="Log through the logger, not print()")
    assert not out["already"] and out["origin"] == "agent"
    with Store.open(db_path) as s:
        assert s.value("SELECT status FROM corrections WHERE id = ?", (got["id"],)) == "dismissed"


def test_the_hook_keeps_its_detections_quiet_while_the_agent_records(hook, cli, project, db_path, claude_dir):
    r = typed(hook, project, "No, use pnpm, not npm")
    assert "Recorded correction" not in r.context
    assert "use pnpm, not npm" in cli("review", "--list").stdout  # still kept for review
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"capture": {"agent_lessons": False}}))
    r = typed(hook, project, "No, use pnpm, not npm", session="s2")
    assert "Recorded correction: use pnpm, not npm" in r.context
    with Store.open(db_path) as s:  # and it keeps no prompts then
        assert s.value("SELECT count(*) FROM capture_prompts") == 1


def test_session_start_teaches_the_agent_both_ways_to_record(hook, project):
    r = hook("SessionStart", payload("SessionStart", cwd=str(project)))
    ctx = r.context
    assert "record_correction" in ctx and "`quote`" in ctx and "`lesson`" in ctx
    assert '`[LESSON: "<their words>" -> <what to do instead>]`' in ctx
    assert "[MEMORY:" in ctx


def transcript(tmp_path, prompt: str, reply: str) -> str:
    path = tmp_path / "t.jsonl"
    recs = [
        {"type": "user", "message": {"role": "user", "content": prompt}, "userType": "external"},
        {
            "type": "assistant",
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": reply}]},
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(path)


def test_a_lesson_line_in_the_reply_is_recorded_at_stop(hook, cli, project, db_path, tmp_path):
    prompt = "don't put secrets in .env.example, use placeholders"
    typed(hook, project, prompt)
    reply = (
        "Understood, placeholders only.\n"
        '[LESSON: "don\'t put secrets in .env.example" -> Use placeholders in .env.example, never real values]\n'
        '[LESSON: "never commit the env file" -> Keep .env out of git]\n'
        '`[LESSON: "<their words>" -> <what to do instead>]`'
    )
    r = hook(
        "Stop",
        payload(
            "Stop", cwd=str(project), transcript_path=transcript(tmp_path, prompt, reply), last_assistant_message=reply
        ),
    )
    assert r.returncode == 0 and "1 lesson recorded for review, 1 refused" in r.system_message, r
    queue = cli("review", "--list").stdout
    assert "Use placeholders in .env.example" in queue and "recorded by the agent" in queue, queue
    assert "Keep .env out of git" not in queue
    [row] = refusals(db_path)
    assert json.loads(row["details"])["via"] == "marker"
    # The same turn seen again (a blocked Stop) counts nothing twice.
    hook(
        "Stop",
        payload("Stop", cwd=str(project), transcript_path=str(tmp_path / "t.jsonl"), last_assistant_message=reply),
    )
    [item] = [i for i in json.loads(cli("--json", "review", "--list").stdout) if i["origin"] == "agent"]
    assert item["occurrences"] == 1


def test_lesson_lines_are_parsed_robustly():
    text = (
        '[LESSON: "use pnpm, not npm" -> Use pnpm for installs]\n'
        '**[lesson: “a "quoted" word” → keep it]**\n'
        '> [LESSON: "quoted reply" -> no]\n'
        '```\n[LESSON: "in code" -> no]\n```\n'
        "[LESSON: no quotes -> no]\n"
    )
    assert lessons.parse_lessons(text) == [
        ("use pnpm, not npm", "Use pnpm for installs"),
        ('a "quoted" word', "keep it"),
    ]


def test_a_prompt_typed_while_another_process_writes_is_kept_after_it(hook, project, db_path):
    from helpers.write_lock import HeldWriteLock

    Store.open(db_path).close()
    lock = HeldWriteLock(db_path)
    try:
        typed(hook, project, "hmm, pnpm is what we use")  # answered at once, the prompt spooled
        assert lock.still_held()
    finally:
        lock.release()
    typed(hook, project, "and the tests, please", session="s2")  # this process drains the spool
    assert record(db_path, quote="pnpm is what we use", lesson="Use pnpm")["session_ids"] == ["s1"]


def test_a_lesson_recorded_before_anything_wrote_the_spooled_prompt_is_accepted(hook, project, db_path, cli):
    """The detached maintenance held the lock while the person typed (the prompt waits in the
    spool) and the agent records at once, before any hook drained it: the quote is theirs."""
    from helpers.write_lock import HeldWriteLock

    Store.open(db_path).close()
    lock = HeldWriteLock(db_path)
    try:
        typed(hook, project, "hmm, pnpm is what we use")
    finally:
        lock.release()
    out = record(db_path, quote="pnpm is what we use", lesson="Use pnpm")  # the MCP tool's path
    assert out["correction"] and out["session_ids"] == ["s1"]
    assert "Use pnpm" in cli("review", "--list").stdout


def test_a_lesson_line_read_while_the_lock_is_still_held_is_kept(hook, project, db_path, cli):
    """The Stop hook reads the agent's `[LESSON: ...]` line while another process still writes:
    the quote is found in the spool beside the store, and the lesson waits there too."""
    from helpers.write_lock import HeldWriteLock

    Store.open(db_path).close()
    lock = HeldWriteLock(db_path)
    try:
        typed(hook, project, "hmm, pnpm is what we use")
        reply = payload("Stop", cwd=str(project), session_id="s1")
        reply["last_assistant_message"] = 'Switching.\n[LESSON: "pnpm is what we use" -> Use pnpm]'
        stop = hook("Stop", reply)
        assert stop.returncode == 0 and lock.still_held(), stop
        assert "refused" not in (stop.system_message or ""), stop.system_message
    finally:
        lock.release()
    typed(hook, project, "and the tests, please", session="s2")  # this process drains the spool
    assert "Use pnpm" in cli("review", "--list").stdout


def test_part_of_a_sentence_without_spaces_is_a_quote_too(hook, project, db_path):
    typed(hook, project, "不要用npm安装依赖，用pnpm")
    assert record(db_path, quote="用pnpm", lesson="Install with pnpm")["correction"]
    with pytest.raises(lessons.LessonRefused):
        record(db_path, quote="不要用yarn", lesson="Install with pnpm")


def test_a_lesson_is_refused_with_its_reason_when_lessons_are_off(hook, project, db_path, claude_dir):
    from memory_cli import settings

    typed(hook, project, "we're a pnpm shop")
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"capture": {"agent_lessons": False}}))
    with pytest.raises(lessons.LessonRefused, match=r"lessons are turned off \(capture.agent_lessons = false\)"):
        record(db_path, quote="we're a pnpm shop", lesson="Use pnpm", settings=settings.load())
