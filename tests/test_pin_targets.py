"""`pin` writes only regular files inside the project or the Claude config dir.

A symlinked CLAUDE.md pointing elsewhere, a device or a FIFO is refused with one line and exit
4, before anything is stored; the file it points at is left exactly as it was.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
from helpers.cli import run_cli


def _add(db, scope="global"):
    r = run_cli("--json", "add", "--type", "rule", "--content", "Never use pythonw.exe", "--scope", scope, db=db)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["id"]


def _pinned(db, eid):
    r = run_cli("--json", "show", eid, db=db)
    return json.loads(r.stdout)["pinned"]


def _refused(r):
    assert r.returncode == 4, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def test_global_claude_md_symlinked_outside_is_refused(tmp_path, db_path, claude_dir):
    outside = tmp_path / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text("precious\n")
    (claude_dir / "CLAUDE.md").symlink_to(outside)
    eid = _add(db_path)
    line = _refused(run_cli("pin", eid, db=db_path))
    assert "outside" in line and str(outside) in line
    assert outside.read_text() == "precious\n"
    assert _pinned(db_path, eid) is False


def test_project_claude_md_symlinked_outside_is_refused(tmp_path, db_path, project):
    outside = tmp_path / "victim.md"
    outside.write_text("do not touch\n")
    (project / "CLAUDE.md").symlink_to(outside)
    eid = _add(db_path, scope="project:whisperclick")
    r = run_cli("pin", eid, "--project-dir", str(project), db=db_path)
    _refused(r)
    assert outside.read_text() == "do not touch\n"


def test_claude_md_linked_to_a_device_is_refused(db_path, claude_dir, tmp_path):
    # A null device of the test's own, so that a regression replaces it and not the machine's
    # /dev/null (which other processes write to).
    device = tmp_path / "null-device"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError):
        pytest.skip("cannot create a character device here (needs root)")
    (claude_dir / "CLAUDE.md").symlink_to(device)
    eid = _add(db_path)
    line = _refused(run_cli("pin", eid, db=db_path))
    assert "outside" in line or "device" in line
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_claude_md_that_is_a_fifo_is_refused_without_hanging(db_path, claude_dir):
    os.mkfifo(claude_dir / "CLAUDE.md")
    eid = _add(db_path)
    line = _refused(run_cli("pin", eid, db=db_path, timeout=30))
    assert "FIFO" in line
    r = run_cli("pins", "--sync", db=db_path, timeout=30)
    assert r.returncode == 1 and "Traceback" not in r.stderr  # reported as a conflict


def test_symlink_inside_the_project_is_still_written_through(db_path, project):
    target = project / "docs" / "AGENTS.md"
    target.parent.mkdir()
    target.write_text("# Agents\n")
    (project / "CLAUDE.md").symlink_to(target)
    eid = _add(db_path, scope="project:whisperclick")
    r = run_cli("pin", eid, "--project-dir", str(project), db=db_path)
    assert r.returncode == 0, r.stderr
    assert (project / "CLAUDE.md").is_symlink()
    assert "Never use pythonw.exe" in target.read_text()
