"""The embedding daemon's life, with real processes and real Unix sockets.

Most tests here start the daemon with a model directory that does not exist: the daemon's
lifecycle (lock, socket, idle exit, crash clean-up) does not depend on the model, and a model
that cannot load is itself a real situation (a misconfigured ``embedding.model``) that must not
make the daemon misbehave. The tests marked ``semantic`` load the real all-MiniLM-L6-v2.
Every test's teardown stops its daemon and kills anything left, so no test leaks a process.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

import pytest

from memory_cli.daemon import client, control, protocol

NO_MODEL = "/nonexistent/model-dir"  # loads fail fast: lifecycle tests need no PyTorch


def _daemon_pids(rd: str) -> list[int]:
    """Processes that are the daemon for this run directory (portable: ps, not /proc)."""
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    pids = []
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if "memory_cli.daemon.server run" in args and f"--run-dir {rd} " in args:
            pids.append(int(pid))
    return pids


def _wait(cond, timeout: float = 20.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(step)
    return cond()


@pytest.fixture
def rundir(claude_dir):
    rd = os.path.abspath(protocol.run_dir())
    yield rd
    for pid in _daemon_pids(rd):  # a SIGSTOPped daemon cannot hear shutdown
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
    control.stop(rd, timeout_s=5)
    for pid in _daemon_pids(rd):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert _wait(lambda: not _daemon_pids(rd), 5), "a daemon survived the test"


def _start(rd, model=NO_MODEL, idle=60.0):
    out = control.start(model=model, idle_timeout_s=idle, rundir=rd)
    assert _wait(lambda: client.ping(1000, protocol.socket_path(rd))), "daemon never answered"
    return out


def _raw(rd: str, line: bytes) -> dict:
    """Send one raw line on the daemon's socket, as a client from another version would."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(protocol.socket_path(rd))
        s.sendall(line)
        return json.loads(s.makefile("rb").readline())


def test_client_gives_up_at_once_when_no_daemon_runs(rundir):
    assert client.embed(["how do we run the tests?"]) is None
    assert client.last_failure == "no_daemon"
    assert client.status() is None
    assert client.ping() is False


def test_twenty_parallel_starts_leave_exactly_one_daemon(rundir):
    code = (
        "import json, sys; from memory_cli.daemon import control; "
        f"print(json.dumps(control.start(model={NO_MODEL!r}, idle_timeout_s=60)))"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(20)]
    results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]

    assert sum(r["started"] for r in results) == 1
    assert _wait(lambda: client.ping(1000, protocol.socket_path(rundir)))
    time.sleep(0.5)  # any second daemon would have had time to appear
    pids = _daemon_pids(rundir)
    assert len(pids) == 1
    assert control.read_pid(rundir) == pids[0]
    assert control.status(rundir)["pid"] == pids[0]
    # A start while it runs starts nothing either.
    again = control.start(model=NO_MODEL, idle_timeout_s=60, rundir=rundir)
    assert again["started"] is False and again["pid"] == pids[0]
    assert _daemon_pids(rundir) == pids


def test_socket_is_private_to_the_user(rundir):
    os.makedirs(rundir, mode=0o755)
    os.chmod(rundir, 0o755)  # a run directory left too open is tightened
    _start(rundir)
    sock = protocol.socket_path(rundir)
    assert stat.S_ISSOCK(os.stat(sock).st_mode)
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(rundir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode) == 0o700


def test_other_protocol_versions_and_garbage_get_an_error_not_a_crash(rundir):
    _start(rundir)
    newer = _raw(rundir, b'{"v": 2, "op": "embed", "texts": ["hi"]}\n')
    assert newer["ok"] is False and newer["error"] == "unsupported_version"
    assert newer["supported"] == [1] and newer["v"] == 1
    missing = _raw(rundir, b'{"op": "ping"}\n')
    assert missing["error"] == "unsupported_version"
    assert _raw(rundir, b"not json\n")["error"] == "bad_request"
    assert _raw(rundir, b'{"v": 1, "op": "dance"}\n')["error"] == "unknown_op"
    assert _raw(rundir, b'{"v": 1, "op": "embed", "texts": "hi"}\n')["error"] == "bad_request"
    # Still serving after all that.
    assert _raw(rundir, b'{"v": 1, "op": "ping"}\n')["ok"] is True
    assert client.status(socket_path=protocol.socket_path(rundir))["requests_served"] >= 6


def test_model_that_cannot_load_is_reported_and_embed_falls_back(rundir):
    _start(rundir)
    st = _wait(lambda: (s := control.status(rundir))["state"] == "failed" and s)
    assert "not a local directory" in st["error"]
    assert client.embed(["anything"], 2000, protocol.socket_path(rundir)) is None
    assert client.last_failure == "model_failed"


def test_kill_9_leaves_debris_that_the_next_start_cleans(rundir):
    first = _start(rundir)["pid"]
    sock = protocol.socket_path(rundir)
    os.kill(first, signal.SIGKILL)
    assert _wait(lambda: not control.pid_alive(first), 5)
    assert os.path.exists(sock) and os.path.exists(protocol.pid_path(rundir))

    assert client.embed(["hello"], 1000, sock) is None
    assert client.last_failure == "refused"
    st = control.status(rundir)
    assert st["running"] is False and sock in st["stale"]

    out = _start(rundir)
    assert out["started"] is True and sock in out["cleaned"]
    assert out["pid"] != first
    assert _daemon_pids(rundir) == [out["pid"]]


def test_hung_daemon_cannot_hold_a_hook_past_its_limit(rundir):
    pid = _start(rundir)["pid"]
    os.kill(pid, signal.SIGSTOP)  # alive, socket open, never answers
    try:
        assert client.embed(["hello"], 300, protocol.socket_path(rundir)) is None
        assert client.last_failure == "timeout"
    finally:
        os.kill(pid, signal.SIGCONT)


def test_daemon_exits_when_idle_and_removes_its_files(rundir):
    pid = _start(rundir, idle=1.0)["pid"]
    assert _wait(lambda: not control.pid_alive(pid), 20)
    assert not os.path.exists(protocol.socket_path(rundir))
    assert not os.path.exists(protocol.pid_path(rundir))
    assert control.status(rundir) == {"running": False, "state": "stopped", "pid": None}
    assert "idle" in open(protocol.log_path(rundir)).read()


def test_sigterm_and_stop_leave_nothing_behind(rundir):
    pid = _start(rundir)["pid"]
    os.kill(pid, signal.SIGTERM)
    assert _wait(lambda: not control.pid_alive(pid), 10)
    assert not os.path.exists(protocol.socket_path(rundir))
    assert not os.path.exists(protocol.pid_path(rundir))

    pid = _start(rundir)["pid"]
    out = control.stop(rundir)
    assert out["was_running"] and out["stopped"] and out["how"] == "shutdown"
    assert not control.pid_alive(pid)
    assert not os.path.exists(protocol.socket_path(rundir))
    assert control.stop(rundir)["was_running"] is False


def test_the_hook_client_imports_nothing_heavy():
    code = (
        "import sys; from memory_cli.daemon import client; client.embed(['x']); "
        "print(sorted(m for m in ('torch', 'numpy', 'sentence_transformers', 'typer', "
        "'rich', 'pydantic', 'sqlite_vec', 'threading', 'subprocess') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ with the real model


def _unpack(v: bytes) -> tuple[float, ...]:
    return struct.unpack("<384f", v)


def _dot(a, b) -> float:
    return sum(x * y for x, y in zip(a, b))


@pytest.mark.semantic
def test_daemon_is_cold_while_loading_then_embeds_and_reports_itself(rundir):
    out = control.start(model=None, idle_timeout_s=600, rundir=rundir)
    sock = protocol.socket_path(rundir)
    assert _wait(lambda: os.path.exists(sock) and client.ping(2000, sock))
    # Loading takes seconds; an embed now is refused at once, not queued behind the model.
    assert client.embed(["use pytest, not unittest"], 2000, sock) is None
    assert client.last_failure == "cold"
    assert control.status(rundir)["state"] == "loading"

    st = control.wait_ready(120, rundir)
    assert st["state"] == "ready", st
    texts = [
        "Always run the tests with pytest.",
        "Use pytest to run the test suite.",
        "The deploy target is a Raspberry Pi.",
    ]
    vectors = client.embed(texts, 5000, sock)
    assert vectors is not None and [len(v) for v in vectors] == [1536] * 3
    a, b, c = map(_unpack, vectors)
    assert abs(_dot(a, a) - 1) < 1e-4
    assert _dot(a, b) > _dot(a, c) + 0.2

    st = control.status(rundir)
    assert st["pid"] == out["pid"] and st["model"] == "all-MiniLM-L6-v2" and st["dim"] == 384
    assert st["texts_embedded"] == 3 and st["requests_served"] >= 3
    # numpy's run of the model holds about 90 MB, PyTorch's about 500 MB
    assert 30 * 2**20 < st["rss_bytes"] < 2**30 and st["uptime_s"] > 0


@pytest.mark.semantic
def test_daemon_vectors_match_in_process_model(rundir):
    from memory_cli.embeddings import model

    control.start(model=None, idle_timeout_s=600, rundir=rundir)
    assert control.wait_ready(120, rundir)["state"] == "ready"
    text = ["Never commit directly to main; open a pull request."]
    remote = client.embed(text, 5000, protocol.socket_path(rundir))[0]
    local = model.embed(text)[0]
    assert _dot(_unpack(remote), _unpack(local)) > 0.9999
