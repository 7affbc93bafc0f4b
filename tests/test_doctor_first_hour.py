"""`memory-cli doctor` right after install, as a newcomer runs it: each settings file listed
once (run from the home folder, the project's settings file is the user's), the MCP server
checked without loading the MCP SDK, and a last line that counts the verdicts and matches the
exit status."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.cli import run_cli

SUMMARY = re.compile(r"^doctor: (\d+) ok, (\d+) warnings?, (\d+) failed \(.+\)$")


def _marks(out: str) -> dict[str, int]:
    lines = out.splitlines()
    return {
        "ok": sum(ln.startswith("ok   ") for ln in lines),
        "warn": sum(ln.startswith("warn ") for ln in lines),
        "fail": sum(ln.startswith("FAIL ") for ln in lines),
    }


def test_from_the_home_folder_the_user_settings_file_is_listed_once(claude_dir, db_path, project):
    home = Path(os.environ["HOME"])
    assert run_cli("install", "--no-model", db=db_path, cwd=home).returncode == 0
    out = run_cli("doctor", "--no-timing", db=db_path, cwd=home).stdout
    assert "hooks (user)" in out and "hook route (user)" in out
    assert "hooks (project)" not in out and "hook route (project)" not in out, out
    # In a project with its own installation, the project's file is its own line.
    assert run_cli("install", "--no-model", "--scope", "project", db=db_path, cwd=project).returncode == 0
    out = run_cli("doctor", "--no-timing", db=db_path, cwd=project).stdout
    assert "hooks (user)" in out and "hooks (project)" in out and "hook route (project)" in out


def test_doctor_ends_with_counts_that_match_its_lines_and_its_exit_status(claude_dir, db_path):
    assert run_cli("install", "--no-model", db=db_path).returncode == 0
    r = run_cli("doctor", "--no-timing", db=db_path)
    last = r.stdout.strip().splitlines()[-1]
    m = SUMMARY.match(last)
    assert m, last
    assert [int(x) for x in m.groups()] == list(_marks(r.stdout).values())
    assert r.returncode == 0 and m.group(3) == "0"
    # A broken MCP registration is a failure: counted, said last, and the exit status is 1.
    claude_json = claude_dir / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"]["memory-cli"]["command"] = "/bin/false"
    claude_json.write_text(json.dumps(data))
    r = run_cli("doctor", "--no-timing", db=db_path)
    m = SUMMARY.match(r.stdout.strip().splitlines()[-1])
    assert m and int(m.group(3)) >= 1 and "see the FAIL lines above" in r.stdout.splitlines()[-1]
    assert r.returncode == 1
    checks = json.loads(run_cli("--json", "doctor", "--no-timing", db=db_path).stdout)
    mcp = next(c for c in checks["checks"] if c["name"] == "mcp server")
    assert mcp["status"] == "fail" and "the server ended (exit code 1) before answering" in mcp["detail"], mcp
    assert checks["summary"]["fail"] == sum(c["status"] == "fail" for c in checks["checks"])


def test_the_mcp_check_starts_the_registered_server_without_the_mcp_sdk(claude_dir, db_path):
    """The server starts in tens of milliseconds (mcp/lean.py); importing the SDK's client in
    doctor cost a second or more of silence on top: the probe needs none of it."""
    assert run_cli("install", "--no-model", db=db_path).returncode == 0
    script = (
        "import sys, json\n"
        "sys.modules['mcp'] = None  # any import of the SDK fails\n"
        "from memory_cli.mcp import registration\n"
        "from memory_cli.mcp.probe import probe\n"
        "names, took, err = probe(registration.registered('user'))\n"
        "print(json.dumps([names, err]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    names, err = json.loads(out.stdout)
    assert err is None and {"hook", "query_memory", "remember"} <= set(names)
