"""`memory-cli daemon start|stop|status`, `memory-cli reindex` and SessionStart autostart,
run as a person and as Claude Code run them: the console script and real hook processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest
from helpers.cli import _cmd
from helpers.hooks import payload
from test_daemon import _daemon_pids, _wait

from memory_cli.daemon import control, protocol

ON = {"MEMORY_CLI_DAEMON_AUTOSTART": "1"}


@pytest.fixture
def rundir(claude_dir):
    rd = os.path.abspath(protocol.run_dir())
    yield rd
    control.stop(rd, timeout_s=10)
    for pid in _daemon_pids(rd):
        os.kill(pid, signal.SIGKILL)
    assert _wait(lambda: not _daemon_pids(rd), 5), "a daemon survived the test"


def test_status_when_nothing_runs(cli, rundir):
    r = cli("daemon", "status")
    assert r.returncode == 0 and "daemon: not running" in r.stdout
    out = json.loads(cli("daemon", "status", "--json").stdout)
    assert out["running"] is False and out["state"] == "stopped"
    r = cli("daemon", "stop")
    assert r.returncode == 0 and "not running" in r.stdout


def test_session_start_in_a_test_run_or_switched_off_starts_nothing(hook, rundir):
    # Under pytest autostart is off unless asked for, so suites never leak daemons.
    assert hook("SessionStart", payload("SessionStart")).returncode == 0
    assert hook("SessionStart", payload("SessionStart"), env={"MEMORY_CLI_DAEMON_AUTOSTART": "0"}).returncode == 0
    assert not os.path.exists(protocol.socket_path(rundir))
    assert _daemon_pids(rundir) == []


@pytest.mark.semantic
def test_twenty_parallel_session_starts_leave_exactly_one_daemon(db_path, rundir):
    body = json.dumps(payload("SessionStart")).encode()
    env = dict(os.environ, **ON)
    procs = [
        subprocess.Popen(
            _cmd() + ["--db", str(db_path), "hook", "SessionStart"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(20)
    ]
    for p in procs:
        p.stdin.write(body)
        p.stdin.close()
    codes = [p.wait(timeout=60) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert codes == [0] * 20

    assert _wait(lambda: control.status(rundir).get("pid"), 30)
    assert len(_daemon_pids(rundir)) == 1
    st = control.wait_ready(180, rundir)
    assert st["state"] == "ready" and _daemon_pids(rundir) == [st["pid"]]
    assert str(db_path) in st["databases"]
    from memory_cli.store.db import Store

    s = Store.open(db_path)
    starts = s.rows("SELECT * FROM memory_audit_log WHERE context = 'daemon autostart'")
    s.close()
    assert len(starts) == 1 and starts[0]["result"] == f"started pid {st['pid']}"


@pytest.mark.semantic
def test_start_status_reindex_stop_as_a_person_would(cli, rundir):
    for text in ("Run the tests with pytest -q", "Deploy with ansible", "Use ruff for linting"):
        assert cli("add", text).returncode == 0
    r = cli("daemon", "start", "--wait", "180")
    assert r.returncode == 0, r.stderr
    assert "started the embedding daemon" in r.stdout and "model ready" in r.stdout
    again = cli("daemon", "start")
    assert "already running" in again.stdout

    st = json.loads(cli("daemon", "status", "--json").stdout)
    assert st["running"] and st["state"] == "ready" and st["model"] == "all-MiniLM-L6-v2"
    # The size target (< 600 MB, about 490 measured idle) is scripts/bench_daemon.py's; under the
    # parallel suite the same daemon has read 601 MB. Here: one model, not two.
    assert st["pid"] == _daemon_pids(rundir)[0] and st["rss_mb"] < 1000 and st["uptime_s"] > 0
    assert {"requests_served", "texts_embedded", "idle_timeout_s"} <= set(st)
    human = cli("daemon", "status").stdout
    assert "resident memory:" in human and "requests served:" in human

    out = json.loads(cli("reindex", "--json").stdout)
    assert out["via"] == "daemon" and out["vectors"] == 3 and out["remaining"] == 0
    assert out["model"] == "all-MiniLM-L6-v2" and out["dim"] == 384

    r = cli("daemon", "stop")
    assert r.returncode == 0 and "stopped the embedding daemon" in r.stdout
    assert _daemon_pids(rundir) == []
    assert json.loads(cli("daemon", "status", "--json").stdout)["running"] is False


@pytest.mark.semantic
def test_reindex_without_a_daemon_loads_the_model_itself(cli, rundir):
    cli("add", "Prefer httpx over requests", "--type", "preference")
    out = json.loads(cli("reindex", "--json", timeout=300).stdout)
    assert out["via"] == "in-process" and out["embedded"] == 1 and out["vectors"] == 1
    assert _daemon_pids(rundir) == []  # reindex never leaves a daemon behind
    pending = json.loads(cli("reindex", "--pending", "--json").stdout)
    assert pending["embedded"] == 0 and pending["vectors"] == 1


@pytest.mark.semantic
def test_imported_and_restored_entries_become_searchable_without_waiting_for_the_poll(cli, rundir, db_path, tmp_path):
    """The daemon polls known databases once a minute; a command that queued entries asks it
    to drain them at once, so they are searchable by meaning within seconds."""
    import time

    from memory_cli.embeddings import vectors
    from memory_cli.store.db import Store

    other = tmp_path / "other.db"
    for text in (
        "Deploy with ansible from the bastion host",
        "Rotate the staging TLS certificates monthly",
        "The billing service needs Redis 7",
    ):
        assert cli("add", text, db=other).returncode == 0
    export = tmp_path / "export.jsonl"
    assert cli("export", "--output", str(export), db=other).returncode == 0
    assert cli("daemon", "start", "--wait", "180").returncode == 0
    cli("add", "warm the daemon up with this database")  # the daemon now knows this database

    def pending() -> int:
        with Store.open(db_path) as s:
            return vectors.pending_count(s)

    def settles(limit_s: float = 30) -> bool:
        end = time.monotonic() + limit_s  # well under the daemon's 60 s poll
        while time.monotonic() < end:
            if pending() == 0:
                return True
            time.sleep(0.25)
        return False

    assert settles()
    r = cli("import", str(export), "--on-conflict", "replace")
    assert r.returncode == 0, r.stderr
    assert settles(), f"{pending()} entries still queued after import"
    hits = json.loads(cli("query", "which host do deployments run from", "--json").stdout)
    assert hits and "ansible" in hits[0]["content"]

    backup_file = json.loads(cli("backup", "--json").stdout)["backup"]
    with Store.open(db_path) as s:  # a restore puts back entries whose vectors are gone
        s.execute("DELETE FROM memory_vec_queue")
    assert cli("restore", backup_file, "--yes").returncode == 0
    assert settles(), f"{pending()} entries still queued after restore"
