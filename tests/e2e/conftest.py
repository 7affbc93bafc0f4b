"""Fixtures for end-to-end tests: the real Claude Code binary, memory-cli's real hooks, a scripted
model on 127.0.0.1.

Each test runs whole ``claude -p`` sessions. Claude Code is the pinned npm package installed by
``scripts/setup_claude_code.sh`` into ``.e2e/`` (git-ignored); memory-cli is registered with its
own ``memory-cli install`` into a throwaway HOME, exactly as a user would; the model service is
:class:`tests.e2e.standin.StandIn`, which answers from a per-session script and records every
request, so a test can assert what the model was shown. :class:`E2EHome`, :class:`SessionResult`
and the pinned binary's place are in :mod:`tests.e2e.sessions`; this file holds the fixtures built
on them and the end-of-run table.

Fixture interface (kept stable for other test modules)
------------------------------------------------------
``claude_bin`` (session)
    Path of the pinned ``claude`` executable. Skips the test, saying why, when npm is missing or
    the install failed.
``e2e_home`` (module)
    An :class:`E2EHome`: a fresh HOME shared by the tests of one module (state accumulates, which
    is what multi-session scenarios want), with ``memory-cli install`` already run in it and a
    git project at ``e2e_home.project``.
``fresh_home`` (function)
    The same, but private to one test.
``run_session`` (function)
    ``e2e_home.run_session``: ``run_session(prompt, script, subagents=None, extra_args=(),
    env=None, allowed_tools=..., cwd=None, timeout=180) -> SessionResult``. ``prompt`` may be a
    list: the prompts run one after another in one session (``/compact`` works there).

At the end of each home's tests the fixture fails if any hook failed open (audit ``hook_error``
rows or ``hook-errors.log`` lines); a test that breaks hooks on purpose sets
``home.allow_hook_failures = True``.

``E2EHome`` also gives ``cli(*args)`` (run the venv's ``memory-cli`` against this HOME and
return the CompletedProcess; ``--json`` output via ``cli_json``), ``env()`` (the environment
sessions and commands run with), ``db`` (the store's path), ``settings()`` (the installed
``settings.json``), ``write_config(dict)``, ``processes()`` (live processes whose HOME is this
one) and ``hook_failures()``.

``SessionResult`` holds ``events`` (the parsed stream-json lines), ``requests`` (every request
the stand-in received), ``main_requests`` (the conversation turns, in order), ``elapsed_s``,
``returncode``, ``stderr``, and helpers: ``last_request`` (the last main request: what the model
saw last), ``tool_results()``, ``shown()`` (all text of the last request), ``hook_responses(
event)``, ``system_messages()``, ``result`` (the final ``result`` event).

Environment of every session: HOME is the throwaway one, ``CLAUDE_CONFIG_DIR`` and any
``MEMORY_CLI_*`` of the calling shell are removed, ``ANTHROPIC_BASE_URL`` points at the
stand-in, nonessential traffic, telemetry and the auto-updater are off, and
``MEMORY_CLI_DAEMON_AUTOSTART=0`` keeps the embedding daemon (a PyTorch process) from starting in
every test; tests that want it pass ``env={"MEMORY_CLI_DAEMON_AUTOSTART": "1"}``, or ``None``
to let the config decide (a ``None`` value removes a variable).

Turns: see :mod:`tests.e2e.standin` (``bash``, ``tool_use``, ``text``; subagents scripted by
their task prompt). At the end of a run, a table of every session and its time is printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .sessions import (
    CLAUDE_BIN,
    CLAUDE_CODE_VERSION,
    MEMORY_CLI,
    SESSION_TIMES,
    SETUP_SCRIPT,
    _check_no_hook_failures,
    _make_home,
    _right_version,
)


def pytest_terminal_summary(terminalreporter):
    """A table of the real-client sessions this run drove and how long each took."""
    if not SESSION_TIMES:
        return
    tr = terminalreporter
    tr.section("Claude Code sessions (tests/e2e)")
    for test, prompt, secs, turns, rc in SESSION_TIMES:
        name = test.split("::", 1)[-1][:60]
        tr.write_line(f"{secs:6.1f} s  {turns:2d} req  rc={rc}  {name:60s}  {prompt[:40]!r}")
    total = sum(t[2] for t in SESSION_TIMES)
    secs = sorted(t[2] for t in SESSION_TIMES)
    tr.write_line(
        f"{len(SESSION_TIMES)} sessions, {total:.0f} s in all, median {secs[len(secs) // 2]:.1f} s, "
        f"slowest {secs[-1]:.1f} s"
    )


def pytest_collection_modifyitems(items):
    for item in items:
        if "/tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned Claude Code binary; installs it once if npm is there and it is missing."""
    if not MEMORY_CLI.exists():
        pytest.skip(
            f"no memory-cli console script beside {sys.executable}: run the tests with the project's venv (make test)"
        )
    override = os.environ.get("MEMORY_CLI_E2E_CLAUDE")
    if override:
        return Path(override)
    if not _right_version(CLAUDE_BIN):
        if shutil.which("npm") is None:
            pytest.skip(
                "npm not found: the end-to-end tests need Node.js with npm to install "
                f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} (scripts/setup_claude_code.sh)"
            )
        proc = subprocess.run(["bash", str(SETUP_SCRIPT)], capture_output=True, text=True, timeout=600, check=False)
        if not _right_version(CLAUDE_BIN):
            pytest.skip(
                "Claude Code could not be installed by scripts/setup_claude_code.sh: "
                + (proc.stderr or proc.stdout).strip()[-300:]
            )
    return CLAUDE_BIN


@pytest.fixture(scope="module")
def e2e_home(claude_bin, tmp_path_factory):
    home = _make_home(tmp_path_factory.mktemp("e2e"), claude_bin)
    yield home
    _check_no_hook_failures(home)


@pytest.fixture
def fresh_home(claude_bin, tmp_path_factory):
    home = _make_home(tmp_path_factory.mktemp("e2e-fresh"), claude_bin)
    yield home
    _check_no_hook_failures(home)


@pytest.fixture
def run_session(e2e_home):
    return e2e_home.run_session
