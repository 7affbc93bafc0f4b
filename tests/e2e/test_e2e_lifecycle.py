"""Session lifecycle through the real Claude Code: PreCompact re-syncing CLAUDE.md during a
``/compact``, SessionEnd leaving no process behind, the store switched off, and the embedding
daemon started by SessionStart but not yet up while the session runs."""

from __future__ import annotations

import json
import os
import time

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e

PINNED = "The whisperclick API listens on port 8080 behind the dev proxy"
HEADER = "# whisperclick\n\nBuild with `uv sync`.\n"


def _wait_until_gone(home, seconds: float) -> list:
    """Poll (bounded) until no process runs with this HOME; return what is left."""
    deadline = time.monotonic() + seconds
    left = home.processes()
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = home.processes()
    return left


def test_pre_compact_restores_the_pinned_block_before_claude_code_rereads_claude_md(e2e_home):
    """``/compact`` runs in print mode when prompts come as stream-json input, so one session
    holds a turn, the compaction and a turn after it. Between the session's start and the
    compaction the project's CLAUDE.md lost its pinned block (a branch switch reset the file);
    PreCompact writes it back, and the turn after compaction shows the model the pinned line."""
    claude_md = e2e_home.project / "CLAUDE.md"
    claude_md.write_text(HEADER)
    entry = e2e_home.cli("add", PINNED, "--scope", "project:whisperclick").stdout.strip()
    e2e_home.cli("pin", entry)
    assert PINNED in claude_md.read_text()

    s = e2e_home.run_session(
        ["reset CLAUDE.md to the main branch's copy", "/compact", "which port does the API use?"],
        [
            bash(f"printf '{HEADER.replace(chr(10), chr(92) + 'n')}' > CLAUDE.md && git --version", "reset CLAUDE.md"),
            "Reset.",
            "Port 8080.",
        ],
    )
    assert s.returncode == 0, s.describe()
    reset = s.main_requests[1].tool_results()[-1]
    assert not reset["is_error"], reset

    boundaries = [e for e in s.events if e.get("subtype") == "compact_boundary"]
    assert boundaries and boundaries[0]["compact_metadata"]["trigger"] == "manual", s.describe()
    assert any(r.is_compaction for r in s.requests), s.describe()
    text = claude_md.read_text()
    assert text.startswith(HEADER) and PINNED in text and "memory-cli:pins:begin" in text, text
    syncs = e2e_home.cli_json("audit", "--action", "pin")
    assert any(r["context"] == "sync" and r["details"].get("path") == str(claude_md) for r in syncs), syncs
    precompact = [r for r in e2e_home.cli_json("audit", "--action", "hook") if r["hook_event"] == "PreCompact"]
    assert precompact and precompact[0]["result"] == "ok", precompact

    # Before compaction the model's view of CLAUDE.md was the reset one... after it, the block.
    after = s.last_request
    assert after.messages[-1]["role"] != "assistant"
    assert "which port does the API use?" in after.shown_text()
    assert f"[fact] {PINNED}" in after.shown_text(), s.describe()


def test_session_end_leaves_no_process_behind(e2e_home):
    """SessionEnd (and SessionStart) hand maintenance to a detached process; once the session is
    over, nothing started from this HOME is left running: not a hook, not maintenance."""
    s = e2e_home.run_session("list the files", [bash("ls", "list"), "Listed."])
    assert s.returncode == 0, s.describe()
    left = _wait_until_gone(e2e_home, 60)
    assert left == [], left
    ends = [
        r
        for r in e2e_home.cli_json("audit", "--action", "hook", "--limit", "200")
        if r["hook_event"] == "SessionEnd" and r["session_id"] == s.result["session_id"]
    ]
    assert ends and ends[0]["result"] == "ok", ends
    runs = e2e_home.cli_json("audit", "--action", "maintenance", "--limit", "200")
    assert any(r["result"] == "done" for r in runs), runs


def test_memory_switched_off_from_the_environment_keeps_the_rules_and_says_so(e2e_home):
    """``MEMORY_CLI_DB=""`` in the session's environment (which a repository's settings can
    set): memory is off (nothing injected, no correction captured), but the installed hooks pin
    their store, so the person's block rule still denies, and the session start says so."""
    e2e_home.cli("rules", "add", "Never use telnet")
    entries_before = e2e_home.cli_json("list")
    s = e2e_home.run_session(
        "No, use ssh, not telnet.",
        [bash("touch unguarded.txt && telnet --version; true", "try telnet"), "Done."],
        env={"MEMORY_CLI_DB": ""},
    )
    assert s.returncode == 0, s.describe()
    assert s.result.get("subtype") == "success"
    assert not (e2e_home.project / "unguarded.txt").exists()
    assert s.tool_results()[-1]["is_error"], s.describe()
    assert not [o for o in s.first_request.hook_outputs() if o[0] == "SessionStart" and o[1] == "context"]
    start = [e.get("output", "") for e in s.hook_responses("SessionStart")]
    said = [json.loads(o)["systemMessage"] for o in start if "ignored MEMORY_CLI_DB=(empty)" in o]
    assert len(said) == 1 and "enforcing" in said[0] and "\n" not in said[0], start
    assert e2e_home.cli_json("list") == entries_before


@pytest.mark.semantic
def test_hooks_answer_while_the_daemon_is_still_starting_and_it_leaves_by_itself(fresh_home):
    """With autostart on (the default), SessionStart forks the embedding daemon and returns at
    once; the session's hooks do not wait for the model: injection (by keywords), the deny and
    the failure lookup all answer while the daemon loads. When idle past
    ``daemon.idle_timeout_s`` it exits by itself, leaving no process behind."""
    home = fresh_home
    home.write_config({"daemon": {"idle_timeout_s": 5}})
    home.cli("rules", "add", "Never use pythonw.exe")
    home.cli(
        "add",
        "whisperclick-daemon: command not found means the audio service is not "
        "installed; make audio-service installs it",
        "--category",
        "remediation",
    )
    s = home.run_session(
        "start the service",
        [
            bash("memory-cli daemon status", "daemon state"),
            bash("pythonw.exe run.py", "try pythonw"),
            bash("whisperclick-daemon --start", "start"),
            "Done.",
        ],
        env={"MEMORY_CLI_DAEMON_AUTOSTART": None, "PATH": f"{home.cli_bin_dir}:{os.environ['PATH']}"},
    )
    assert s.returncode == 0, s.describe()
    started = [r for r in home.cli_json("audit", "--action", "maintenance") if r["context"] == "daemon autostart"]
    assert started and started[0]["result"].startswith("started pid"), started
    start = s.first_request.hook_contexts("SessionStart")
    assert start and "Never use pythonw.exe" in start[0]
    status = s.main_requests[1].tool_results()[-1]["text"]
    print("daemon status during the session:", status)
    denied = s.main_requests[2].tool_results()[-1]
    assert denied["is_error"] and "Never use pythonw.exe" in denied["text"], denied
    offered = s.last_request.hook_contexts("PostToolUseFailure:Bash")
    assert offered and "make audio-service" in offered[-1], s.describe()
    assert not [m for m in s.system_messages() if "failed open" in m], s.system_messages()
    left = _wait_until_gone(home, 180)
    assert left == [], left


def test_uninstall_takes_memory_cli_out_of_the_next_session(e2e_home):
    """Runs last in this module: after ``memory-cli uninstall`` the next session gets no
    memory-cli context and no gate, and the settings file keeps no memory-cli hook."""
    e2e_home.cli("uninstall")
    settings = e2e_home.claude_dir / "settings.json"  # install created it: gone once it holds nothing else
    assert not settings.exists() or "memory-cli" not in json.dumps(e2e_home.settings())
    s = e2e_home.run_session("launch it", [bash("touch after-uninstall.txt && pythonw.exe x.py || true"), "ok"])
    assert s.returncode == 0, s.describe()
    assert not any("memory-cli" in text for r in s.main_requests for _l, _k, text in r.hook_outputs())
    assert not s.hook_responses("SessionStart")
    assert (e2e_home.project / "after-uninstall.txt").exists()
