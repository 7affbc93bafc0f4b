"""Reading flat-file memory (CLAUDE.md, auto-memory folders, the seed's logs) into candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_cli.markdown_import.markdown import (
    collect,
    decode_project_folder,
    discover,
    fingerprint,
    infer_type,
    parse_file,
    parse_text,
    rejected_in_text,
    scope_for_file,
)

FIXTURES = Path(__file__).parent / "fixtures" / "flatfiles"
HOME = FIXTURES / "claude_home"
SOURCES = [HOME, FIXTURES / "repos" / "whisperclick", FIXTURES / "shared" / "memory"]


@pytest.fixture(autouse=True)
def _home(monkeypatch):
    # The fixtures were written on a machine whose home was /home/u.
    monkeypatch.setenv("HOME", "/home/u")


@pytest.fixture()
def candidates():
    found, errors = collect(SOURCES, claude_home=HOME)
    assert errors == []
    return found


def find(candidates, needle):
    hits = [c for c in candidates if needle in c.content]
    assert len(hits) == 1, (needle, [c.content for c in hits])
    return hits[0]


def test_every_fixture_file_is_found_and_readmes_are_not(candidates):
    files = {Path(p).relative_to(FIXTURES).as_posix() for p in discover(SOURCES, claude_home=HOME)}
    assert files == {
        "claude_home/CLAUDE.md",
        "claude_home/projects/-home-u-whisperclick/memory/MEMORY.md",
        "claude_home/projects/-home-u-whisperclick/memory/debugging.md",
        "claude_home/projects/-home-u-whisperclick/memory/feedback_pythonw.md",
        "claude_home/projects/-home-u-whisperclick/memory/project_drag.md",
        "claude_home/projects/-home-u-work-acme-billing-api/memory/MEMORY.md",
        "repos/whisperclick/CLAUDE.md",
        "repos/whisperclick/CLAUDE.local.md",
        "shared/memory/context-memory.md",
        "shared/memory/corrections-log.md",
        "shared/memory/decisions-log.md",
        "shared/memory/hot-memory.md",
    }


def test_glob_source_as_the_seed_writes_it():
    files = discover([str(HOME / "projects" / "*" / "memory")], claude_home=HOME)
    assert len(files) == 5 and all("/memory/" in str(f) for f in files)


def test_managed_pin_block_code_fences_toc_and_boilerplate_are_not_imported(candidates):
    text = "\n".join(c.content for c in candidates)
    assert "git push --force" not in text  # memory-cli's own pin block
    assert "Pinned rules" not in text
    assert "git commit -m" not in text  # inside a code fence
    assert "(#tooling)" not in text and "Tooling" not in text  # table of contents
    assert "This file provides guidance" not in text  # /init boilerplate
    assert "Last updated" not in text
    assert "personal-notes" not in text  # @import line
    assert "Example of the layout" not in text  # lead-in to the fenced example
    for c in candidates:
        assert c.content.strip() not in ("TODO", "...", "")


@pytest.mark.parametrize(
    "needle, expected",
    [
        ("Never use pythonw.exe to launch GUI apps", "rule"),
        ("Always use `uv` for Python environments", "rule"),
        ("Don't push to the `public` remote", "rule"),
        ("Prefer ripgrep", "preference"),
        ("I like small functions", "preference"),
        ("I prefer running the app from PowerShell", "preference"),
        ("If the tray icon disappears", "pattern"),
        ("Windows 11 desktop, Python 3.12", "fact"),
        ("The frameless pywebview window is dragged", "fact"),
        ("Stop summarising diffs", "correction"),
        ("Wrong: ran `python -m unittest`", "correction"),
        ("Decision: SQLite with FTS5", "decision"),
        ("Chose PyInstaller over Nuitka", "decision"),
        ("Launch WhisperClick with python.exe", "correction"),
    ],
)
def test_types_are_inferred(candidates, needle, expected):
    assert find(candidates, needle).type == expected


@pytest.mark.parametrize(
    "needle, scope",
    [
        ("Never use pythonw.exe to launch GUI apps", "global"),  # ~/.claude/CLAUDE.md
        ("Never call the OpenAI API from the UI thread", "project:whisperclick"),  # project CLAUDE.md
        ("My test microphone", "project:whisperclick"),  # CLAUDE.local.md
        ("posting WM_APP_DRAGSTART", "project:whisperclick"),  # -home-u-whisperclick/memory/
        ("Invoices are stored in cents", "project:billing-api"),  # decoded from the transcript's cwd
        ("Dana reviews UI changes", "global"),  # the seed's shared memory files
    ],
)
def test_scope_comes_from_where_the_file_lives(candidates, needle, scope):
    assert find(candidates, needle).scope == scope


def test_project_folder_names_are_decoded():
    assert decode_project_folder(HOME / "projects" / "-home-u-whisperclick") == "whisperclick"
    # Ambiguous dashes: the transcript's recorded cwd wins over guessing.
    assert decode_project_folder(HOME / "projects" / "-home-u-work-acme-billing-api") == "billing-api"
    # No transcript, no such directory: the part after the home folder, minus a container dir.
    assert decode_project_folder("/nowhere/projects/-home-u-code-data-pipeline") == "data-pipeline"


def test_scope_for_file_in_the_global_claude_dir_and_a_project_root(tmp_path):
    assert scope_for_file(HOME / "CLAUDE.md", claude_home=HOME) == "global"
    (tmp_path / "Some Project").mkdir()
    (tmp_path / "Some Project" / "CLAUDE.md").write_text("- Use tabs everywhere\n")
    assert scope_for_file(tmp_path / "Some Project" / "CLAUDE.md", claude_home=HOME) == "project:some-project"
    (tmp_path / "Some Project" / ".claude").mkdir()
    assert (
        scope_for_file(tmp_path / "Some Project" / ".claude" / "CLAUDE.md", claude_home=HOME) == "project:some-project"
    )
    loose = tmp_path / "notes"
    loose.mkdir()
    assert scope_for_file(loose / "hot-memory.md", claude_home=HOME) == "global"


def test_tags_come_from_section_headings_not_the_document_title(candidates):
    assert find(candidates, "PortAudioError -9996").tags == ["audio-capture"]
    assert find(candidates, "Never call the OpenAI API").tags == ["rules"]
    assert find(candidates, "Windows 11 desktop").tags == ["environment"]
    assert find(candidates, "Launch WhisperClick with python.exe").tags == ["never-use-pythonw"]


def test_nested_bullets_under_a_label_become_separate_memories(candidates):
    assert (
        find(candidates, "use WM_APP_DRAGSTART for window drag").content
        == "Drag and drop: use WM_APP_DRAGSTART for window drag"
    )
    assert "Drag and drop: file drops arrive through" in find(candidates, "on_drop").content


def test_auto_memory_index_lines_pointing_at_imported_files_are_skipped(candidates):
    text = "\n".join(c.content for c in candidates)
    assert "tracebacks vanish with pythonw.exe" not in text
    # The index line whose file does not exist is the only record of that memory: kept.
    assert find(candidates, "Release checklist").scope == "project:whisperclick"


def test_one_fact_per_frontmatter_file_with_its_why():
    (c,) = parse_file(HOME / "projects" / "-home-u-whisperclick" / "memory" / "feedback_pythonw.md", claude_home=HOME)
    assert c.content.startswith("Launch WhisperClick with python.exe, never pythonw.exe.")
    assert "Why: pythonw has no console" in c.content
    assert c.line == 7


def test_log_records_stay_whole_and_keep_their_date(candidates):
    c = find(candidates, "Wrong: launched WhisperClick with pythonw.exe")
    assert "Right: use python.exe" in c.content
    assert c.date == "2025-03-14"
    d = find(candidates, "Decision: SQLite with FTS5")
    assert "Why: zero infrastructure" in d.content
    assert d.date == "2025-02-03"


def test_decisions_record_rejected_alternatives_as_tags(candidates):
    assert {"rejected:postgresql", "rejected:chroma"} <= set(find(candidates, "Decision: SQLite").tags)
    assert "rejected:redis" in find(candidates, "decided against Redis").tags
    assert "rejected:nuitka" in find(candidates, "Chose PyInstaller").tags
    assert rejected_in_text("We went with Typer over Click and argparse.") == ["rejected:click", "rejected:argparse"]


def test_line_numbers_point_at_the_source_line(candidates):
    import re

    for c in candidates:
        lines = Path(c.source_file).read_text().splitlines()
        at = lines[c.line - 1]
        assert at.strip(), c
        # The first distinctive word is on that line, its heading or the record fields after it.
        window = " ".join(lines[max(0, c.line - 3) : c.line + 3]).lower()
        word = next(w for w in re.findall(r"[A-Za-z]{5,}", c.content))
        assert word.lower() in window, (c, at)


def test_same_memory_in_two_files_of_one_scope_is_kept_once():
    found, _ = collect(
        [FIXTURES / "shared" / "memory", FIXTURES / "shared" / "memory" / "hot-memory.md"], claude_home=HOME
    )
    fps = [c.fingerprint for c in found]
    assert len(fps) == len(set(fps))


def test_fingerprints_are_stable_across_runs_and_spellings():
    first, _ = collect(SOURCES, claude_home=HOME)
    second, _ = collect(SOURCES, claude_home=HOME)
    assert [c.fingerprint for c in first] == [c.fingerprint for c in second]
    assert fingerprint("Never use **pythonw.exe**.", "global") == fingerprint("never use  pythonw.exe", "global")
    assert fingerprint("Never use pythonw.exe", "global") != fingerprint("Never use pythonw.exe", "project:x")


def test_scope_override_and_crlf_files(tmp_path):
    f = tmp_path / "CLAUDE.md"
    f.write_bytes(b"# Notes\r\n\r\n## Deploy\r\n- Never deploy on Fridays\r\n")
    (c,) = parse_file(f, scope="project:override", claude_home=HOME)
    assert (c.content, c.type, c.scope, c.tags, c.line) == (
        "Never deploy on Fridays",
        "rule",
        "project:override",
        ["deploy"],
        4,
    )


def test_prose_section_becomes_one_memory_with_its_heading():
    (c,) = parse_text("## Architecture\nThe API is a FastAPI app\nbehind nginx.\n", source_file="x.md")
    assert c.content == "Architecture: The API is a FastAPI app behind nginx."
    assert c.line == 2


def test_infer_type_uses_headings_when_wording_is_neutral():
    assert infer_type("Tabs, width 4", headings=["Style preferences"]) == "preference"
    assert infer_type("Tabs, width 4") == "fact"
    assert infer_type("When the build fails with E1234, clear ~/.cache/foo") == "pattern"
    assert infer_type("Anything at all", kind="corrections") == "correction"
