"""`make test`'s two parts (scripts/run_tests.sh): a failure in the parallel part does not stop
the exclusive part from running, and the end reports both."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, fail_when: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    calls = tmp_path / "calls"
    fake = tmp_path / "python"  # a stand-in for pytest that records each run and fails one part
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\ncase "$*" in *"{fail_when}"*) exit 1;; esac\nexit 0\n')
    fake.chmod(0o755)
    env = dict(os.environ, PYTHON=str(fake), TEST_WORKERS="2")
    r = subprocess.run(
        ["bash", str(REPO / "scripts" / "run_tests.sh")], capture_output=True, text=True, env=env, timeout=60
    )
    return r, calls.read_text().splitlines()


def test_the_exclusive_part_runs_after_a_failed_parallel_part(tmp_path):
    r, calls = _run(tmp_path, "not exclusive")
    assert r.returncode == 1
    assert len(calls) == 2 and "-n 2" in calls[0] and calls[1].endswith("-m exclusive"), calls
    assert "parallel part (-n 2): FAILED (pytest exit 1)" in r.stdout
    assert "exclusive part (alone): passed" in r.stdout


def test_both_parts_passing_exit_0(tmp_path):
    r, calls = _run(tmp_path, "never-matches")
    assert r.returncode == 0 and len(calls) == 2
    assert r.stdout.count(": passed in") == 2, r.stdout


def test_the_log_says_why_each_skipped_test_was_skipped(tmp_path):
    """The real pytest under the script: a skipped test's reason is in the output CI keeps."""
    import sys

    test = tmp_path / "test_skips.py"
    test.write_text(
        "import pytest\n\n"
        "def test_runs():\n    pass\n\n"
        "def test_needs_a_browser():\n    pytest.skip('no chromium on this machine')\n"
    )
    env = dict(os.environ, PYTHON=sys.executable, TEST_WORKERS="1")
    r = subprocess.run(
        ["bash", str(REPO / "scripts" / "run_tests.sh"), str(test), "--rootdir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SKIPPED" in r.stdout and "no chromium on this machine" in r.stdout, r.stdout
