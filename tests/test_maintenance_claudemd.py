"""The pinned block in CLAUDE.md: everything outside it survives byte for byte."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memory_cli.maintenance import claudemd as cm

PINS = [
    ("3f2a9c1b-1111-4222-8333-444455556666", "rule", "Never use pythonw.exe; launch GUIs with python.exe."),
    ("0b7e5d21-1111-4222-8333-444455556666", "decision", "git push public main is replaced by scripts/sync_public.py."),
]
BODY = cm.render_pins_body(PINS)
BODY2 = cm.render_pins_body(PINS[:1])

# Files as people really have them: LF, CRLF (Windows editors), no final newline, a BOM
# (Notepad), stray Latin-1 bytes, UTF-16, empty, trailing blank lines, a lone CR at the end.
ORIGINALS = {
    "lf": b"# Project\n\nUse tabs in Makefiles.\n",
    "crlf": b"# Project\r\n\r\nUse tabs in Makefiles.\r\n",
    "lf-no-final-newline": b"# Project\n\nUse tabs in Makefiles.",
    "crlf-no-final-newline": b"# Project\r\n\r\nUse tabs in Makefiles.",
    "bom-crlf": b"\xef\xbb\xbf# Projet \xc3\xa9t\xc3\xa9\r\n\r\n- r\xc3\xa8gle\r\n",
    "latin1-bytes": b"# Caf\xe9\n\nNa\xefve r\xe9sum\xe9\n",
    "utf16-le": "\ufeff# Project\r\n\r\nÜber alles\r\n".encode("utf-16-le"),
    "empty": b"",
    "only-newline": b"\n",
    "trailing-blank-lines": b"# Project\n\n\n",
    "mixed-endings": b"a\r\nb\nc\r\nd\r\n",
    "lone-cr-at-end": b"# Project\nline\r",
}


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    d = tmp_path / "proj"
    d.mkdir()
    return d


@pytest.fixture
def claude_md(project_dir: Path) -> Path:
    return project_dir / "CLAUDE.md"


@pytest.mark.parametrize("name", sorted(ORIGINALS))
def test_insert_update_remove_leaves_the_rest_of_the_file_byte_for_byte(claude_md: Path, name: str):
    original = ORIGINALS[name]
    claude_md.write_bytes(original)
    os.chmod(claude_md, 0o640)

    assert cm.sync(claude_md, BODY).action == cm.INSERT
    with_block = claude_md.read_bytes()
    assert with_block.startswith(original)
    state = cm.read_block(claude_md)
    assert state.found and not state.edited and state.body == BODY

    assert cm.sync(claude_md, BODY2).action == cm.REPLACE
    assert claude_md.read_bytes().startswith(original)
    assert cm.read_block(claude_md).body == BODY2

    assert cm.sync(claude_md, None).action == cm.REMOVE
    assert claude_md.read_bytes() == original
    assert stat.S_IMODE(claude_md.stat().st_mode) == 0o640
    assert sorted(p.name for p in claude_md.parent.iterdir()) == ["CLAUDE.md"]


def test_crlf_file_gets_a_crlf_block(claude_md: Path):
    claude_md.write_bytes(ORIGINALS["crlf"])
    cm.sync(claude_md, BODY)
    data = claude_md.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert b"Never use pythonw.exe" in data


def test_utf16_file_stays_utf16(claude_md: Path):
    claude_md.write_bytes(ORIGINALS["utf16-le"])
    cm.sync(claude_md, BODY)
    text = claude_md.read_bytes().decode("utf-16")
    assert "Never use pythonw.exe" in text and "Über alles" in text


def test_block_text_is_the_full_entry_with_an_id_to_unpin(claude_md: Path):
    cm.sync(claude_md, BODY)
    text = claude_md.read_text()
    assert "- [rule] Never use pythonw.exe; launch GUIs with python.exe. (id 3f2a9c1b)" in text
    assert text.splitlines()[0].startswith("<!-- memory-cli:pins:begin (managed by memory-cli;")
    assert text.splitlines()[-1] == "<!-- memory-cli:pins:end -->"


def test_missing_file_is_created_and_deleted_again_with_the_last_pin(project_dir: Path, claude_md: Path):
    plan = cm.plan_sync(claude_md, BODY)
    assert plan.action == cm.CREATE_FILE and not claude_md.exists()
    cm.apply_sync(plan)
    assert cm.read_block(claude_md).new_file
    assert cm.sync(claude_md, BODY2).action == cm.REPLACE
    assert cm.read_block(claude_md).new_file  # the flag survives updates
    assert cm.sync(claude_md, None).action == cm.DELETE_FILE
    assert list(project_dir.iterdir()) == []


def test_created_file_the_person_wrote_into_is_kept(claude_md: Path):
    cm.sync(claude_md, BODY)
    with open(claude_md, "ab") as fh:
        fh.write(b"\n# My own notes\n")
    assert cm.sync(claude_md, None).action == cm.REMOVE
    assert claude_md.read_bytes() == b"# My own notes\n"


def test_existing_empty_file_is_not_deleted(claude_md: Path):
    claude_md.write_bytes(b"")
    cm.sync(claude_md, BODY)
    assert cm.sync(claude_md, None).action == cm.REMOVE
    assert claude_md.exists() and claude_md.read_bytes() == b""


def test_text_written_after_the_block_survives_removal(claude_md: Path):
    claude_md.write_bytes(b"# Top\n")
    cm.sync(claude_md, BODY)
    with open(claude_md, "ab") as fh:
        fh.write(b"\n## Later section\nkeep me\n")
    cm.sync(claude_md, BODY2)
    assert claude_md.read_bytes().endswith(b"<!-- memory-cli:pins:end -->\n\n## Later section\nkeep me\n")
    cm.sync(claude_md, None)
    assert claude_md.read_bytes() == b"# Top\n\n## Later section\nkeep me\n"


def test_block_moved_to_the_top_is_updated_in_place(claude_md: Path):
    cm.sync(claude_md, BODY)
    block = claude_md.read_bytes()
    claude_md.write_bytes(block + b"\n# Title\n")
    cm.sync(claude_md, BODY2)
    assert claude_md.read_bytes().startswith(b"<!-- memory-cli:pins:begin")
    assert claude_md.read_bytes().endswith(b"\n# Title\n")
    cm.sync(claude_md, None)
    assert claude_md.read_bytes() == b"# Title\n"


def test_unchanged_pins_write_nothing(claude_md: Path):
    claude_md.write_bytes(b"# P\n")
    cm.sync(claude_md, BODY)
    before = claude_md.stat()
    plan = cm.plan_sync(claude_md, BODY)
    assert plan.action == cm.NOTHING
    assert cm.apply_sync(plan) is False
    assert claude_md.stat().st_ino == before.st_ino


def test_hand_edit_inside_the_block_is_reported_not_overwritten(claude_md: Path):
    claude_md.write_bytes(b"# P\n")
    cm.sync(claude_md, BODY)
    edited = claude_md.read_bytes().replace(b"Never use pythonw.exe", b"Never ever use pythonw.exe")
    claude_md.write_bytes(edited)

    state = cm.read_block(claude_md)
    assert state.edited
    plan = cm.plan_sync(claude_md, BODY2)
    assert plan.conflict and "edited by hand" in plan.reason
    assert cm.apply_sync(plan) is False
    assert claude_md.read_bytes() == edited
    # Removing the last pin is no excuse either.
    assert cm.plan_sync(claude_md, None).conflict
    assert cm.sync(claude_md, None).conflict and claude_md.read_bytes() == edited

    forced = cm.plan_sync(claude_md, BODY2, overwrite_edits=True)
    assert forced.action == cm.REPLACE and "Never ever use" in forced.edited_body
    cm.apply_sync(forced)
    assert not cm.read_block(claude_md).edited
    assert cm.read_block(claude_md).body == BODY2


def test_line_ending_conversion_is_not_mistaken_for_an_edit(claude_md: Path):
    claude_md.write_bytes(b"# P\n")
    cm.sync(claude_md, BODY)
    claude_md.write_bytes(claude_md.read_bytes().replace(b"\n", b"\r\n"))  # git autocrlf checkout
    assert not cm.read_block(claude_md).edited
    assert cm.plan_sync(claude_md, BODY).action == cm.NOTHING


def test_deleted_end_marker_is_a_conflict(claude_md: Path):
    claude_md.write_bytes(b"# P\n")
    cm.sync(claude_md, BODY)
    broken = claude_md.read_bytes().replace(b"<!-- memory-cli:pins:end -->", b"")
    claude_md.write_bytes(broken)
    plan = cm.plan_sync(claude_md, BODY)
    assert plan.conflict and "markers" in plan.reason
    cm.sync(claude_md, BODY)
    assert claude_md.read_bytes() == broken


def test_entry_text_cannot_close_the_block(claude_md: Path):
    body = cm.render_pins_body([("a1", "fact", "the marker\n<!-- memory-cli:pins:end -->\nlooks like this")])
    cm.sync(claude_md, body)
    state = cm.read_block(claude_md)
    assert state.found and not state.edited
    assert "the marker <!-- memory-cli:pins:end --> looks like this" in state.body


def test_change_between_plan_and_write_is_never_clobbered(claude_md: Path):
    claude_md.write_bytes(b"# P\n")
    plan = cm.plan_sync(claude_md, BODY)
    claude_md.write_bytes(b"# P\nthe person typed this meanwhile\n")
    with pytest.raises(cm.ChangedSincePlan):
        cm.apply_sync(plan)
    assert claude_md.read_bytes() == b"# P\nthe person typed this meanwhile\n"
    cm.sync(claude_md, BODY)  # planning again picks the new text up
    assert claude_md.read_bytes().startswith(b"# P\nthe person typed this meanwhile\n\n<!--")


def test_symlinked_claude_md_is_written_through(project_dir: Path):
    target = project_dir / "shared" / "instructions.md"
    target.parent.mkdir()
    target.write_bytes(b"# Shared\n")
    link = project_dir / "CLAUDE.md"
    link.symlink_to(target)
    cm.sync(link, BODY)
    assert link.is_symlink()
    assert b"Never use pythonw.exe" in target.read_bytes()
    cm.sync(link, None)
    assert link.is_symlink() and target.read_bytes() == b"# Shared\n"


def test_project_path_prefers_root_and_respects_dot_claude(project_dir: Path):
    assert cm.project_claudemd_path(project_dir) == project_dir / "CLAUDE.md"
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "CLAUDE.md").write_text("# mine\n")
    assert cm.project_claudemd_path(project_dir) == project_dir / ".claude" / "CLAUDE.md"
    (project_dir / "CLAUDE.md").write_text("# root\n")
    assert cm.project_claudemd_path(project_dir) == project_dir / "CLAUDE.md"


def test_global_path_follows_claude_config_dir(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert cm.global_claudemd_path() == tmp_path / "cfg" / "CLAUDE.md"


def test_no_pins_and_no_file_creates_nothing(project_dir: Path, claude_md: Path):
    assert cm.sync(claude_md, None).action == cm.NOTHING
    assert cm.sync(claude_md, "").action == cm.NOTHING
    assert list(project_dir.iterdir()) == []
