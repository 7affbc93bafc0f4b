"""Codex's hook trust with the pinned Codex CLI: `memory-cli install --agent codex` trusts
exactly memory-cli's hooks at their current hashes through Codex's app-server, and `doctor`
notices when a rewrite of hooks.json un-trusts one."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
CODEX_BIN = REPO / ".e2e-agents" / "node_modules" / ".bin"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not (CODEX_BIN / "codex").exists() or shutil.which("node") is None,
        reason="the pinned Codex CLI is not installed (scripts/setup_agents.sh)",
    ),
]


def _trust(db_path, project) -> dict:
    r = run_cli("--db", db_path, "doctor", "--json", cwd=project, process=True, timeout=300)
    return next(c for c in json.loads(r.stdout)["checks"] if c["name"] == "codex hook trust")


def test_install_trusts_memory_clis_codex_hooks_and_doctor_sees_a_rewrite(db_path, project, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{CODEX_BIN}{os.pathsep}{os.environ['PATH']}")
    codex_home = Path(os.environ["HOME"]) / ".codex"
    other = {"type": "command", "command": "echo someone-elses-hook", "timeout": 5}
    codex_home.mkdir()
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [other]}]}}))
    r = run_cli("--db", db_path, "install", "--agent", "codex", "--no-model", "--no-mcp", cwd=project, process=True)
    assert r.returncode == 0, r.stderr
    assert "Codex now trusts memory-cli's hooks" in r.stderr, r.stderr
    config = (codex_home / "config.toml").read_text()
    trusted = [line for line in config.splitlines() if line.startswith("[hooks.state.")]
    assert len(trusted) >= 5 and all(":stop:0:" not in t for t in trusted), config  # not the other hook
    check = _trust(db_path, project)
    assert check["status"] == "ok" and "at their current hashes" in check["detail"], check

    # a rewrite of memory-cli's PreToolUse entry un-trusts it in Codex, and doctor says so
    hooks = json.loads((codex_home / "hooks.json").read_text())
    for group in hooks["hooks"]["PreToolUse"]:
        for h in group["hooks"]:
            h["timeout"] = 60
    (codex_home / "hooks.json").write_text(json.dumps(hooks))
    check = _trust(db_path, project)
    assert check["status"] == "warn" and "preToolUse" in check["detail"], check
