"""Session memories and reports written by the local reader (provider none) from real Claude Code
sessions that people committed to public repositories: whole sessions
(tests/fixtures/real/transcripts) and runs of records cut from sessions no longer kept whole
(tests/fixtures/real/session_windows). Each test reads them into a real store and checks what
the next session would be told: no memory that teaches the wrong thing, and a report that
describes what the person did."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import real_prompts as rp  # noqa: E402

from memory_cli import entries  # noqa: E402
from memory_cli import settings as settings_mod  # noqa: E402
from memory_cli.llm.summarize import summarize_transcript  # noqa: E402
from memory_cli.reports import api as reports  # noqa: E402

WINDOWS = rp.REAL / "session_windows"

# Whole real sessions (tests/fixtures/real/sources.md), by session id.
SESSION_WRAPPER_INSTALL = "d9f70b92-1237-42ea-9356-1733bcc4b7e2"  # a sentence cut at a colon, a plan
SESSION_CHAT_BACKUP = "Azfeel-bc05a01f-chat-backup.jsonl"  # answers to the agent's questions
SESSION_AGENT_FILES = "b85b84ca-6826-497f-84a3-ec7ecfbf7d29"  # causes stated, then interrupted
SESSION_PORTFOLIO = "af0fd07c-e8b5-424a-a277-66cf50c58a3a"  # "Option 1" picked from the agent's list
SESSION_RADIATION_MAP = "b6847497"  # a cause that only says where; corrected next
# Windows of real sessions (tests/fixtures/real/session_windows/sources.md).
DISK_SPACE = "SWORDIntel-3c9e9c4e-disk-space.jsonl"  # a call the person rejected; df, du
GH_VARIABLE = "FSM1-5daef2b5-gh-variable.jsonl"  # gh variable list 404, then gh repo view
DOCKER_COMPOSE = "FSM1-5daef2b5-docker-compose.jsonl"  # docker compose needs -f staging
PUBLISH_BINARY = "FSM1-392fa55d-publish-binary.jsonl"  # index.lock, gh api booleans
WRAPPER_BANNER = "SWORDIntel-b260c379-wrapper-banner.jsonl"  # grep -l, --modules, a refuted fix
DOCS_PUSH = "FSM1-14255944-docs-push.jsonl"  # a rejected push, git pull --rebase, cherry-pick --skip
PARALLEL_CALLS = "FrancoBertoldiMariglio-a32c9b72-parallel-calls.jsonl"  # a call cancelled beside a failure


@pytest.fixture
def offline():
    return settings_mod.load("/nonexistent/config.json")  # provider none: the local reader


def extract_of(session: str) -> Path:
    """The whole extract of a real session, found by (the start of) its session id: extract
    file names change as sessions are added."""
    for path in rp.transcript_files():
        with open(path, encoding="utf-8") as fh:
            if f'"sessionId": "{session}' in fh.readline():
                return path
    raise LookupError(session)


def summarize(store, settings, tmp_path, source: str) -> tuple[list[str], str]:
    """Summarise a whole real session (a session id), a window of one (a window's file name) or
    an extract (``path.name`` in transcripts/); returns the stored memories and the report."""
    if (WINDOWS / source).exists():
        found = WINDOWS / source
    elif (rp.TRANSCRIPTS / source).exists():
        found = rp.TRANSCRIPTS / source
    else:
        found = extract_of(source)
    path = tmp_path / found.name
    shutil.copy(found, path)
    r = summarize_transcript(store, settings, path, project="project:real")
    assert r["provider"] == "extractive"
    stored = [e["content"] for e in entries.list_entries(store, status="all") if e["source"] == "session"]
    report = reports.latest_report(store, "project:real")
    return stored, report["summary"] if report else ""


def test_a_call_the_person_rejected_is_not_stored_as_a_failure(store, offline, tmp_path):
    # The person declined `sudo du ...`; Claude Code recorded "The user doesn't want to proceed
    # with this tool use" as an error result.
    stored, report = summarize(store, offline, tmp_path, DISK_SPACE)
    assert not [m for m in stored if "sudo du" in m or "want to proceed" in m], stored
    assert "1 rejected by the person" in report and "2 failed" in report, report


def test_the_next_unrelated_command_of_the_same_program_is_not_its_fix(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, GH_VARIABLE)
    # `gh variable list` failing with a 404 was not fixed by `gh repo view`.
    assert not [m for m in stored if "gh repo view" in m], stored
    # A variant of the failed command is not proof of what was wrong: `docker compose restart
    # api` then `docker compose -f docker-compose.staging.yml restart api` passing says nothing
    # the transcript proves about the first (the local reader writes only what it can prove).
    stored, _ = summarize(store, offline, tmp_path, DOCKER_COMPOSE)
    assert not [m for m in stored if 'docker compose restart api"` failed' in m], stored


def test_a_different_target_of_the_same_subcommand_is_not_a_fix(store, offline, tmp_path):
    # `git checkout feat/...` failed on a stale index.lock; a later commit and `git checkout main`
    # did other things. The gh API call resent with JSON booleans is another command, not the
    # failed one passing: not proved, not stored.
    stored, _ = summarize(store, offline, tmp_path, PUBLISH_BINARY)
    assert not [m for m in stored if "index.lock" in m], stored
    assert not [m for m in stored if "is not a boolean" in m], stored


def test_looking_around_and_grep_finding_nothing_are_not_failures(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, WRAPPER_BANNER)
    assert not [m for m in stored if m.startswith("`grep")], stored  # grep's exit code 1: no match
    assert not [m for m in stored if "--modules` failed" in m], stored  # then `--status`: not a fix
    # A command the error message names is a hint, not a proof that it fixed the failure.
    assert not [m for m in stored if "git config user.email" in m], stored
    stored, _ = summarize(store, offline, tmp_path, DISK_SPACE)
    assert not [m for m in stored if m.startswith(("`df", "`du"))], stored


def test_a_sentence_cut_mid_debugging_is_not_stored(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, SESSION_WRAPPER_INSTALL)
    assert not [m for m in stored if m.endswith(":")], stored
    assert not [m for m in stored if "issue is confirmed" in m], stored  # says nothing


def test_a_cause_the_person_refuted_is_not_stored(store, offline, tmp_path):
    # "The solution was to create a minimal wrapper ..." answered by "i wanted the ultimate
    # wrapper modified".
    stored, _ = summarize(store, offline, tmp_path, WRAPPER_BANNER)
    assert not [m for m in stored if "minimal wrapper" in m], stored
    # "The issue is that these are empty lines within f-strings ..." answered by an interruption.
    stored, _ = summarize(store, offline, tmp_path, SESSION_AGENT_FILES)
    assert not [m for m in stored if "empty lines within f-strings" in m], stored


def test_a_cause_that_only_says_where_is_not_stored(store, offline, tmp_path):
    # "The problem was in the prompts in both test files (...)": the person then pointed out the
    # failing code ran elsewhere. A place alone teaches nothing once that code changes.
    stored, _ = summarize(store, offline, tmp_path, SESSION_RADIATION_MAP)
    assert not [m for m in stored if m.startswith("The problem was in the prompts")], stored


def test_a_rejected_push_fixed_by_one_command_keeps_that_command(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, DOCS_PUSH)
    assert [m for m in stored if m.startswith("`git push` failed") and "git pull --rebase" in m], stored
    assert not [m for m in stored if "git push -u origin docs/" in m], stored  # another branch


def test_destructive_or_abandoning_commands_are_never_learned_as_fixes(store, offline, tmp_path):
    from memory_cli.llm import command_kinds

    # A real session skipped a conflicting commit (`git cherry-pick --skip`, which the error
    # suggested): dropping the commit is not how a cherry-pick conflict is fixed.
    stored, _ = summarize(store, offline, tmp_path, DOCS_PUSH)
    assert not [m for m in stored if "--skip" in m], stored
    # Commands a real session's "fix" taught, and the ones Claude Code ran on real sessions.
    for cmd in ("git branch -D feat/old-ui", "git push --force origin main", "git reset --hard HEAD~1", "rm -rf dist"):
        assert command_kinds.destructive(cmd), cmd
    assert command_kinds.gives_up("git cherry-pick --skip")
    for cmd in ("git pull --rebase", 'git config user.email "ubuntu@local"', "git push -u origin main"):
        assert not command_kinds.destructive(cmd) and not command_kinds.gives_up(cmd), cmd


def _prefix(text: str) -> str:
    return " ".join(text.split())[:50]


def test_the_report_counts_only_the_prompts_people_typed(store, offline, tmp_path):
    # Task notifications, IDE notes and the summary that continues a compacted session are not
    # requests. In every real extract, the requests counted are exactly the texts labelled by
    # hand as typed prompts of that session (a session's prompts may be labelled from another of
    # its logs, so the labels are matched by text).
    typed = {}
    for r in rp.load_prompts():
        typed.setdefault(r["session"], set()).add(_prefix(r["prompt"]))
    wrong = {}
    for path in rp.transcript_files():
        _, report = summarize(store, offline, tmp_path, path.name)  # every extract, by file
        header = report.splitlines()[0]
        session = header.split()[1]
        count = int(header.split(": ", 1)[1].split()[0])
        expected = sum(1 for t in rp.user_texts(path) if _prefix(t) in typed.get(session, set()))
        if count != expected:
            wrong[path.name] = (count, expected)
        assert "<task-notification>" not in report and "being continued from a previous" not in report
        assert "First request: <" not in report, report  # not "<ide_opened_file>The user opened ..."
    assert not wrong, wrong


def test_the_report_says_what_the_person_decided_and_corrected(store, offline, tmp_path):
    _, report = summarize(store, offline, tmp_path, SESSION_CHAT_BACKUP)  # answers to the agent's questions
    assert "Decisions: " in report and "-> Git repo riêng tư" in report, report
    _, report = summarize(store, offline, tmp_path, SESSION_WRAPPER_INSTALL)  # an approved plan
    assert "plan approved: Complete Wrapper Installation Integration Plan" in report, report
    _, report = summarize(store, offline, tmp_path, SESSION_PORTFOLIO)  # "Option 1", typed
    assert "chose 1: Show projects immediately while loading languages in the background" in report, report
    _, report = summarize(store, offline, tmp_path, WRAPPER_BANNER)
    assert "Corrections (" in report and "i wanted the ultimate wrapper modified" in report, report


def test_commands_that_only_look_around_are_told_from_ones_that_change_something():
    from memory_cli.llm import command_kinds

    looking = (  # as real sessions ran them
        "gh variable list --env staging -R michaelsimon101/cipher-box 2>&1",
        'grep -l "Claude Global Agents Bridge" ~/.bashrc ~/.bash_profile ~/.profile 2>/dev/null',
        'ssh -i ~/.ssh/ci-deploy-key root@76.13.151.200 "cd /opt/cipherbox && grep CORS .env" 2>&1',
        "sudo du -sh /home/ubuntu/* 2>/dev/null | sort -hr | head -10",
        "df -h /cow",
    )
    changing = (
        'git config user.email "ubuntu@local" && git config user.name "Ubuntu User"',
        "gh api repos/FSM1/cipher-box/actions/permissions/selected-actions -X PUT --input -",
        "gh pr create --title docs",
        "git remote add origin https://example.invalid/x.git",
    )
    assert [c for c in looking if not command_kinds.exploring(c)] == []
    assert [c for c in changing if command_kinds.exploring(c)] == []


def test_a_call_cancelled_beside_a_failed_parallel_call_is_not_a_failure(store, offline, tmp_path):
    # Two calls made at once; one failed (openpyxl missing), Claude Code cancelled the other.
    _, report = summarize(store, offline, tmp_path, PARALLEL_CALLS)
    assert "5 tool call(s), 2 failed" in report, report
