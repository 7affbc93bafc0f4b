"""`memory-cli doctor` as a newcomer runs it right after `memory-cli install`: every check ok
(a fresh install is not a fault), each line printed as its check finishes, within 80 columns."""

from __future__ import annotations

import json
import os
import subprocess

from conftest import _cmd


def test_a_fresh_install_has_no_warnings(cli, claude_dir):
    r = cli("install", "--no-model", process=True)
    assert r.returncode == 0, r.stderr
    out = cli("doctor", "--json", process=True, timeout=300)
    checks = json.loads(out.stdout)["checks"]
    bad = [c for c in checks if c["status"] != "ok"]
    assert bad == [], bad
    names = {c["name"] for c in checks}
    assert {"hook latency", "maintenance", "backups", "hook bytecode", "mcp server"} <= names


def test_doctor_prints_each_check_as_it_finishes_within_80_columns(cli, db_path):
    assert cli("install", "--no-model").returncode == 0
    env = dict(os.environ, COLUMNS="80")
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "doctor"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        first = proc.stdout.readline()
        # The timed hook calls and the MCP server's start come later: still running now.
        still_running = proc.poll() is None
        rest = proc.stdout.read()
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert first.startswith("ok   config"), first
    assert still_running, "doctor printed nothing until it had finished"
    lines = (first + rest).splitlines()
    assert max(len(ln) for ln in lines) <= 80, [ln for ln in lines if len(ln) > 80]
    assert any(ln.startswith("ok   hook latency") for ln in lines), rest
