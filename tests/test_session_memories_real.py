"""Session memories and reports written by the local reader (provider none) from real Claude Code
sessions that people committed to public repositories (tests/fixtures/real/transcripts). Each
test reads a whole real session into a real store and checks what the next session would be
told: no memory that teaches the wrong thing, and a report that describes what the person did."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import real_prompts as rp  # noqa: E402

from memory_cli import entries  # noqa: E402
from memory_cli import settings as settings_mod  # noqa: E402
from memory_cli.llm.summarize import summarize_transcript  # noqa: E402
from memory_cli.reports import api as reports  # noqa: E402


# Real sessions (tests/fixtures/real/sources.md), by session id.
SESSION_DISK_SPACE = "3c9e9c4e-ec51-4deb-a364-2eca939fba3a"  # a call the person rejected; df, du
SESSION_DESKTOP_LOGIN = "5daef2b5-1494-4809-b0ef-9f056185a893"  # gh variable list, docker compose
SESSION_PUBLISH_BINARY = "392fa55d-5b67-4e01-a7eb-21eadaaf9259"  # index.lock, gh api booleans
SESSION_WRAPPER_BANNER = "b260c379-397e-497e-aa65-5836b15a62c1"  # grep -l, a refuted solution
SESSION_WRAPPER_INSTALL = "d9f70b92-1237-42ea-9356-1733bcc4b7e2"  # a sentence cut at a colon, a plan
SESSION_DOCS_PR = "14255944-5b59-48f2-a75c-0025d518c7ea"  # a rejected push, git pull --rebase
SESSION_CHAT_BACKUP = "bc05a01f-b674-4f96-b8d3-482ede8e1378"  # answers to the agent's questions
SESSION_AGENT_FILES = "b85b84ca-6826-497f-84a3-ec7ecfbf7d29"  # causes stated, then interrupted
SESSION_PORTFOLIO = "af0fd07c-e8b5-424a-a277-66cf50c58a3a"  # "Option 1" picked from the agent's list
SESSION_ESSAY_RUBRIC = "a32c9b72-b8cf-4b5f-b9d7-6f32d88cd9ef"  # openpyxl missing, then another script


@pytest.fixture
def offline():
    return settings_mod.load("/nonexistent/config.json")  # provider none: the local reader


def extract_of(session: str) -> Path:
    """The extract of a real session, found by its session id (extract file names may change
    as more sessions are added)."""
    for path in rp.transcript_files():
        with open(path, encoding="utf-8") as fh:
            if f'"sessionId": "{session}' in fh.readline():
                return path
    raise LookupError(session)


def summarize(store, settings, tmp_path, session: str) -> tuple[list[str], str]:
    """Summarise one real session; returns the stored memories and the stored report."""
    source = extract_of(session) if not session.endswith(".jsonl") else rp.TRANSCRIPTS / session
    path = tmp_path / source.name
    shutil.copy(source, path)
    r = summarize_transcript(store, settings, path, project="project:real")
    assert r["provider"] == "extractive"
    stored = [e["content"] for e in entries.list_entries(store, status="all") if e["source"] == "session"]
    report = reports.latest_report(store, "project:real")
    return stored, report["summary"] if report else ""


def test_a_call_the_person_rejected_is_not_stored_as_a_failure(store, offline, tmp_path):
    # The person declined `sudo du ...`; Claude Code recorded "The user doesn't want to proceed
    # with this tool use" as an error result.
    stored, report = summarize(store, offline, tmp_path, SESSION_DISK_SPACE)
    assert not [m for m in stored if "sudo du" in m or "want to proceed" in m], stored
    assert "1 rejected by the person" in report and "2 failed" in report, report


def test_the_next_unrelated_command_of_the_same_program_is_not_its_fix(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, SESSION_DESKTOP_LOGIN)
    # `gh variable list` failing with a 404 was not fixed by `gh repo view`.
    assert not [m for m in stored if "gh repo view" in m], stored
    # A script that failed on a missing module was not fixed by another script run from the
    # same folder (`cd ... && python3 -c ...` both times).
    stored_elsewhere, _ = summarize(store, offline, tmp_path, SESSION_ESSAY_RUBRIC)
    assert not [m for m in stored_elsewhere if "openpyxl" in m], stored_elsewhere
    # The same command corrected is kept: docker compose needed the staging file.
    assert [m for m in stored if 'docker compose restart api"` failed' in m and "docker-compose.staging.yml" in m]


def test_a_different_target_of_the_same_subcommand_is_not_a_fix(store, offline, tmp_path):
    # `git checkout feat/...` failed on a stale index.lock; a later commit and `git checkout main`
    # did other things. The gh API call resent with JSON booleans is the same call corrected.
    stored, _ = summarize(store, offline, tmp_path, SESSION_PUBLISH_BINARY)
    assert not [m for m in stored if "index.lock" in m], stored
    assert [m for m in stored if "is not a boolean" in m and "--input" in m], stored


def test_looking_around_and_grep_finding_nothing_are_not_failures(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, SESSION_WRAPPER_BANNER)
    assert not [m for m in stored if m.startswith("`grep")], stored  # grep's exit code 1: no match
    assert not [m for m in stored if "--modules` failed" in m], stored  # then `--status`: not a fix
    # The failure the error message itself explained is kept.
    assert [m for m in stored if "unable to auto-detect email address" in m and "git config user.email" in m]
    stored, _ = summarize(store, offline, tmp_path, SESSION_DISK_SPACE)
    assert not [m for m in stored if m.startswith(("`df", "`du"))], stored


def test_a_sentence_cut_mid_debugging_is_not_stored(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, SESSION_WRAPPER_INSTALL)
    assert not [m for m in stored if m.endswith(":")], stored
    assert not [m for m in stored if "issue is confirmed" in m], stored  # says nothing


def test_a_cause_the_person_refuted_is_not_stored(store, offline, tmp_path):
    # "The solution was to create a minimal wrapper ..." answered by "i wanted the ultimate
    # wrapper modified".
    stored, _ = summarize(store, offline, tmp_path, SESSION_WRAPPER_BANNER)
    assert not [m for m in stored if "minimal wrapper" in m], stored
    # "The issue is that these are empty lines within f-strings ..." answered by an interruption.
    stored, _ = summarize(store, offline, tmp_path, SESSION_AGENT_FILES)
    assert not [m for m in stored if "empty lines within f-strings" in m], stored


def test_a_rejected_push_fixed_by_one_command_keeps_that_command(store, offline, tmp_path):
    stored, _ = summarize(store, offline, tmp_path, SESSION_DOCS_PR)
    assert [m for m in stored if m.startswith("`git push` failed") and "git pull --rebase" in m], stored
    assert not [m for m in stored if "git push -u origin docs/" in m], stored  # another branch


def test_destructive_or_abandoning_commands_are_never_learned_as_fixes():
    from memory_cli.llm import command_kinds

    # Commands a real session's "fix" taught, and the ones Claude Code ran on real sessions.
    for cmd in ("git branch -D feat/old-ui", "git push --force origin main", "git reset --hard HEAD~1", "rm -rf dist"):
        assert command_kinds.destructive(cmd), cmd
    assert command_kinds.gives_up("git cherry-pick --skip")
    for cmd in ("git pull --rebase", 'git config user.email "ubuntu@local"', "git push -u origin main"):
        assert not command_kinds.destructive(cmd) and not command_kinds.gives_up(cmd), cmd


def test_the_report_counts_only_the_prompts_people_typed(store, offline, tmp_path):
    # Task notifications and the summary that continues a compacted session are not requests:
    # every real session's count equals the prompts labelled by hand as typed.
    typed = Counter(r["session"] for r in rp.load_prompts())
    wrong = {}
    for path in rp.transcript_files():
        _, report = summarize(store, offline, tmp_path, path.name)  # every extract, by file
        header = report.splitlines()[0]
        session = header.split()[1]
        count = int(header.split(": ", 1)[1].split()[0])
        if count != typed[session]:
            wrong[path.name] = (count, typed[session])
        assert "<task-notification>" not in report and "being continued from a previous" not in report
    assert not wrong, wrong


def test_the_report_says_what_the_person_decided_and_corrected(store, offline, tmp_path):
    _, report = summarize(store, offline, tmp_path, SESSION_CHAT_BACKUP)  # answers to the agent's questions
    assert "Decisions: " in report and "-> Git repo riêng tư" in report, report
    _, report = summarize(store, offline, tmp_path, SESSION_WRAPPER_INSTALL)  # an approved plan
    assert "plan approved: Complete Wrapper Installation Integration Plan" in report, report
    _, report = summarize(store, offline, tmp_path, SESSION_PORTFOLIO)  # "Option 1", typed
    assert "chose 1: Show projects immediately while loading languages in the background" in report, report
    _, report = summarize(store, offline, tmp_path, SESSION_WRAPPER_BANNER)
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
    _, report = summarize(store, offline, tmp_path, SESSION_ESSAY_RUBRIC)
    assert "47 tool call(s), 7 failed" in report, report
