"""The real labelled prompts are whole: every record labelled under the one definition, none from
a repository held out for evaluation, every file they came from listed with its commit, and the
session extracts readable as Claude Code transcripts with no secret left in them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import real_prompts as rp  # noqa: E402

from memory_cli.capture.detect import detect  # noqa: E402

FIELDS = {"file", "line", "prompt", "correction", "kind", "lesson", "borderline", "why"}


def test_every_prompt_carries_a_complete_label():
    rows = rp.load_prompts()
    assert rows
    for r in rows:
        assert FIELDS | {"person", "session", "repo"} <= set(r), r
        assert isinstance(r["prompt"], str) and r["prompt"].strip()
        assert isinstance(r["line"], int) and r["line"] > 0
        assert isinstance(r["borderline"], bool)
        assert r["why"].strip()
        if r["correction"] is True:
            assert r["kind"] in rp.KINDS, r
            assert isinstance(r["lesson"], bool), r
        else:
            assert r["correction"] is False, r
            assert r["kind"] is None and r["lesson"] is None, r


def test_no_prompt_comes_from_a_reserved_repository():
    rows = rp.load_prompts()
    assert not {r["repo"].lower() for r in rows} & rp.RESERVED_REPOS
    # the person is the repository owner, or "<owner>:<who>" where the records show another
    assert all(r["person"].split(":")[0].lower() == r["repo"].split("/")[0].lower() for r in rows)


def test_every_source_file_is_listed_with_its_commit():
    listed = rp.sources()
    assert not {(r["repo"], r["file"]) for r in rp.load_prompts()} - listed
    for line in rp.SOURCES.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and "`" in line:
            assert re.search(r"\| [0-9a-f]{40} \|", line), line


def test_no_injected_text_is_labelled_as_typed():
    for r in rp.load_prompts():
        head = r["prompt"].lstrip()
        assert not re.match(r"<(command-|local-command-|system-reminder|task-notification|ide_|teammate-message)", head)
        assert not head.startswith("[Request interrupted")


def test_the_set_holds_both_kinds_and_many_people():
    rows = rp.load_prompts()
    kinds = {r["kind"] for r in rows if r["correction"]}
    assert kinds == set(rp.KINDS)
    assert len(rp.by_person(rows)) >= 20
    strict = rp.load_prompts(include_borderline=False)
    assert 0 < len(strict) < len(rows)


def test_the_detector_reads_every_real_prompt_without_error():
    for r in rp.load_prompts():
        detect(r["prompt"])


def test_person_folds_never_split_a_person_and_cover_every_prompt():
    rows = rp.load_prompts()
    folds = rp.person_folds(rows, k=5)
    assert len(folds) == 5
    tested = []
    for train, test in folds:
        assert not {r["person"] for r in train} & {r["person"] for r in test}
        assert len(train) + len(test) == len(rows)
        tested.extend(test)
    assert sorted(id(r) for r in tested) == sorted(id(r) for r in rows)


def test_recurring_instructions_point_at_prompts_of_one_person_in_several_sessions():
    index = {(r["file"], r["line"], r["session"]): r for r in rp.load_prompts()}
    groups = rp.load_recurring()
    assert groups
    for g in groups:
        members = [index[(m["file"], m["line"], m["session"])] for m in g["members"]]
        assert {m["person"] for m in members} == {g["person"]}, g["instruction"]
        assert len({m["session"] for m in members}) >= 2, g["instruction"]
        assert any(m["correction"] for m in members), g["instruction"]


SECRET = re.compile(
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.|\b(?:sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|KGAT_[A-Za-z0-9]{16,})"
)


def test_no_secret_is_left_in_the_fixtures():
    for path in [rp.PROMPTS, *rp.transcript_files()]:
        assert not SECRET.search(path.read_text(encoding="utf-8")), path


def test_transcripts_read_as_claude_code_sessions():
    files = rp.transcript_files()
    assert len(files) >= 10
    listed = rp.SOURCES.read_text(encoding="utf-8")
    for path in files:
        assert f"| `{path.name}` |" in listed, path
        recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert {r["type"] for r in recs} <= {"user", "assistant"}, path
        assert len({r["sessionId"] for r in recs}) == 1, path
        assert any(r["type"] == "user" and r.get("userType") == "external" for r in recs)
        blocks = [b for r in recs if isinstance(r["message"]["content"], list) for b in r["message"]["content"]]
        assert any(b.get("type") == "tool_use" for b in blocks), path
        assert any(b.get("type") == "tool_result" and b.get("is_error") for b in blocks), path
