"""`make demo` / `make test` run scripts/setup.sh every time: a second run with the same
pyproject.toml must not reinstall (pip's editable build took 10-60 s of every demo)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# A stand-in interpreter for .venv/bin/python: every import check passes, every call is logged.
FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "{log}"
exit 0
"""


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / "memory_cli").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", root / "scripts" / "setup.sh")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    log = tmp_path / "calls"
    py = root / ".venv" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text(FAKE_PYTHON.format(log=log))
    py.chmod(0o755)
    return root, log


def _setup(root: Path, log: Path, profile: str) -> list[str]:
    log.write_text("")
    r = subprocess.run(
        ["bash", str(root / "scripts" / "setup.sh"), profile], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return [ln for ln in log.read_text().splitlines() if "pip install" in ln]


def test_a_second_run_installs_nothing_until_pyproject_changes(tmp_path):
    root, log = _checkout(tmp_path)
    first = _setup(root, log, "user")
    assert any(" -e ." in c for c in first), first
    assert _setup(root, log, "user") == []
    with (root / "pyproject.toml").open("a") as f:
        f.write("\n# a new dependency\n")
    assert any(" -e ." in c for c in _setup(root, log, "user"))


def test_the_test_profile_is_stamped_apart_from_the_user_profile(tmp_path):
    root, log = _checkout(tmp_path)
    _setup(root, log, "user")
    assert any("[semantic,test,llm,team]" in c for c in _setup(root, log, "test"))
    assert _setup(root, log, "test") == []
