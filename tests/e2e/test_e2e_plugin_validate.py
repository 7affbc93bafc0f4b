"""`claude plugin validate` of the pinned Claude Code accepts the plugin and the marketplace as
they are shipped, with --strict (its warnings fail too): what a CI run of the plugin directory
would refuse is seen here first. No session runs; each validation takes under a second."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_cli import install

from .sessions import REPO

EVENTS = set(install.EVENTS)  # every event memory-cli registers, PermissionDenied included


def validate(claude_bin: Path, target: Path, home: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "ANTHROPIC_", "MEMORY_CLI_"))}
    env.update(HOME=str(home), DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1")
    proc = subprocess.run(
        [str(claude_bin), "plugin", "validate", "--strict", "--json", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = {}
    return proc, report


@pytest.fixture
def shipped_plugin(tmp_path) -> Path:
    """The plugin folder as Claude Code copies it when it installs it (links followed)."""
    root = tmp_path / "memory-cli-plugin"
    shutil.copytree(REPO / "plugin", root, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_plugin_passes_strict_validation_with_every_hook_in_exec_form(claude_bin, shipped_plugin, tmp_path):
    proc, report = validate(claude_bin, shipped_plugin, tmp_path)
    assert proc.returncode == 0 and report.get("success") is True, proc.stdout + proc.stderr
    hooks = report["provides"]["hooks"]
    assert {h["event"] for h in hooks} == EVENTS
    for h in hooks:  # a program and its arguments: no shell parses a command line
        assert h["command"] == "/bin/sh" and h["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/run", "hook", h["event"]], h
    assert (shipped_plugin / "bin" / "run").is_file()


def test_the_marketplace_passes_strict_validation(claude_bin, tmp_path):
    proc, report = validate(claude_bin, REPO, tmp_path)
    assert proc.returncode == 0 and report.get("success") is True, proc.stdout + proc.stderr


def test_validation_reads_the_hooks_file(claude_bin, shipped_plugin, tmp_path):
    """The check above is not vacuous: a hook whose arguments are not a list fails it."""
    path = shipped_plugin / "hooks" / "hooks.json"
    hooks = json.loads(path.read_text())
    hooks["hooks"]["PreToolUse"][0]["hooks"][0]["args"] = "hook PreToolUse"
    path.write_text(json.dumps(hooks))
    proc, report = validate(claude_bin, shipped_plugin, tmp_path)
    assert proc.returncode != 0 and report.get("success") is not True, proc.stdout + proc.stderr
