"""`memory-cli serve` and `memory-cli purge` as a person runs them: refusals with one line and
their exit code, the printed URL, and the web stack never loaded by other commands."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import urllib.request

from conftest import _cmd, run_cli


def test_serve_refuses_a_non_loopback_host_without_a_token(db_path):
    r = run_cli("serve", "--host", "0.0.0.0", "--port", "0", db=db_path)
    assert r.returncode == 2
    assert "explicit --token" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_serve_refuses_a_short_token(db_path):
    r = run_cli("serve", "--token", "abc", "--port", "0", db=db_path)
    assert r.returncode == 2 and "16 characters" in r.stderr


def test_serve_refuses_a_port_in_use(db_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run_cli("serve", "--port", str(port), db=db_path)
    assert r.returncode == 1 and f"127.0.0.1:{port}" in r.stderr and "--port" in r.stderr


def test_serve_refuses_a_foreign_file(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("not a database")
    r = run_cli("serve", "--port", "0", db=bad)
    assert r.returncode == 4 and bad.read_text() == "not a database"


def test_serve_prints_a_working_url_and_stops_on_sigterm(db_path):
    run_cli("add", "served memory", db=db_path)
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"memory-cli dashboard: (http://127\.0\.0\.1:\d+)/\?token=(\S+)\n", line)
        assert m, line
        base, token = m.groups()
        req = urllib.request.Request(base + "/api/memories", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = json.loads(resp.read())
        assert body["total"] == 1 and body["items"][0]["content"] == "served memory"
        try:
            urllib.request.urlopen(base + "/api/memories", timeout=10)
            raise AssertionError("served without a token")
        except urllib.error.HTTPError as e:
            assert e.code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert token not in proc.stderr.read()  # the access log never prints the token


def test_other_commands_never_load_the_web_stack(db_path):
    code = (
        "import sys; from memory_cli.cli import run; run(['--db', sys.argv[1], 'list']);"
        "run(['--db', sys.argv[1], 'stats']);"
        "bad=[m for m in ('fastapi','starlette','uvicorn','jinja2','memory_cli.web') if m in sys.modules];"
        "sys.stderr.write('WEB:'+','.join(bad))"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(db_path)], capture_output=True, text=True, timeout=120)
    assert proc.stderr.split("WEB:")[1].strip() == "", proc.stderr


def _ids(db):
    return {m["id"] for m in json.loads(run_cli("--json", "list", "--status", "all", "--limit", "1000", db=db).stdout)}


def test_purge_a_scope(db_path):
    run_cli("add", "a", "--scope", "project:old", db=db_path)
    run_cli("add", "b", "--scope", "project:old", "--source", "imported", db=db_path)
    keep = run_cli("add", "c", "--scope", "project:keep", db=db_path).stdout.strip()
    # no terminal and no --yes: refused, nothing lost
    r = run_cli("purge", "--scope", "project:old", db=db_path)
    assert r.returncode == 2 and "--yes" in r.stderr and len(_ids(db_path)) == 3
    r = run_cli("--json", "purge", "--scope", "project:old", "--source", "imported", "--yes", db=db_path)
    assert json.loads(r.stdout) == {"deleted": 1, "scope": "project:old", "source": "imported"}
    r = run_cli("purge", "--scope", "project:old", "--yes", db=db_path)
    assert r.returncode == 0 and "purged 1 memory from project:old" in r.stdout
    assert _ids(db_path) == {keep}
    r = run_cli("purge", "--scope", "project:old", "--yes", db=db_path)
    assert r.returncode == 0 and "nothing to purge" in r.stdout
    audit = json.loads(run_cli("--json", "audit", "--action", "delete", db=db_path).stdout)
    assert sorted(a["details"]["entry"]["content"] for a in audit) == ["a", "b"]


def test_purge_bad_input(db_path):
    run_cli("add", "a", "--scope", "project:old", db=db_path)
    for args, word in (
        (["--scope", "team:x"], "scope"),
        (["--scope", "project:old", "--source", "dream"], "source"),
        ([], "--scope"),
    ):
        r = run_cli("purge", *args, "--yes", db=db_path)
        assert r.returncode == 2 and word in r.stderr, (args, r.stderr)
    assert len(_ids(db_path)) == 1


def test_purge_asks_on_a_terminal(db_path):
    """typer.confirm reads stdin; a 'n' keeps everything."""
    import pty

    run_cli("add", "a", "--scope", "project:old", db=db_path)
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(_cmd()[0], _cmd() + ["--db", str(db_path), "purge", "--scope", "project:old"])
    out = b""
    while b"?" not in out:
        out += os.read(fd, 1024)
    os.write(fd, b"n\n")
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    assert b"Delete 1 memory in project:old" in out and b"kept" in out
    assert len(_ids(db_path)) == 1


def test_concurrent_requests_to_a_real_server(db_path):
    """Reads and writes from many clients at once: every write lands once, none fails."""
    from concurrent.futures import ThreadPoolExecutor

    token = "concurrency-token-0123456789"
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0", "--token", token],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = re.search(r"(http://\S+)/\?token=", proc.stdout.readline()).group(1)

        def call(i):
            h = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            data = json.dumps({"content": f"concurrent memory {i}"}).encode()
            with urllib.request.urlopen(
                urllib.request.Request(base + "/api/memories", data=data, headers=h), timeout=60
            ) as r:
                assert r.status == 201
            with urllib.request.urlopen(
                urllib.request.Request(base + "/api/memories?limit=5", headers=h), timeout=60
            ) as r:
                assert r.status == 200
            return True

        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(call, range(40)))
        with urllib.request.urlopen(
            urllib.request.Request(base + "/api/memories?limit=0", headers={"Authorization": f"Bearer {token}"}),
            timeout=60,
        ) as r:
            assert json.loads(r.read())["total"] == 40
    finally:
        proc.terminate()
        proc.wait(timeout=10)
