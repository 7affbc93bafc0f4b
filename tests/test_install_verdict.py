"""`memory-cli install` ends on a verdict a newcomer can act on: what is installed, whether the
embedding model is ready (as doctor then sees it), and the next step."""

from __future__ import annotations

import json

from helpers.cli import run_cli

from memory_cli.cli.install_verdict import lines


def test_install_ends_with_what_is_installed_the_model_state_and_the_next_step(claude_dir, db_path, project):
    r = run_cli("install", "--no-model", db=db_path)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-2:]
    assert last[0].startswith("memory-cli is installed for Claude Code (hooks and MCP server, user scope); ")
    assert last[1] == "next: `memory-cli doctor` checks everything, then start a Claude Code session (`claude`)"
    # The model state said is the one doctor then reports.
    checks = json.loads(run_cli("--json", "doctor", "--no-timing", db=db_path).stdout)["checks"]
    model = next(c for c in checks if c["name"] == "embedding model")
    assert ("embedding model ready" in last[0]) == (model["status"] == "ok"), (last, model)

    hooks_only = (
        run_cli("install", "--no-mcp", "--scope", "project", db=db_path, cwd=project).stdout.strip().splitlines()
    )
    assert "(hooks (no MCP server), project scope)" in hooks_only[-2]
    codex = run_cli("install", "--agent", "codex", "--no-mcp", db=db_path).stdout.strip().splitlines()
    assert codex[-1].endswith("start a Codex CLI session (`codex`)")
    # A dry run and --json print no verdict: nothing was installed, and JSON stays one object.
    assert "memory-cli is installed" not in run_cli("install", "--dry-run", db=db_path).stdout
    json.loads(run_cli("--json", "install", db=db_path).stdout)


def test_without_the_model_the_verdict_says_search_is_by_keywords_and_how_to_retry():
    skipped = lines("claude", "user", True, False, no_model=True)[0]
    assert skipped.endswith("embedding model not installed (--no-model): search works by keywords")
    failed = lines("gemini", "user", False, False, no_model=False)[0]
    assert "search works by keywords; `memory-cli install` again retries it" in failed
