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
from pathlib import Path

import pytest
from helpers.cli import _cmd, run_cli


def _private(path, text: str) -> None:
    """A token file as the person keeps it: theirs alone (serve refuses anything wider)."""
    path.write_text(text)
    path.chmod(0o600)


def test_serve_refuses_a_non_loopback_host_without_a_token(db_path):
    r = run_cli("serve", "--host", "0.0.0.0", "--port", "0", db=db_path)
    assert r.returncode == 2
    assert "explicit token" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_serve_refuses_a_short_token(db_path, tmp_path):
    _private(tmp_path / "tok", "abc\n")
    r = run_cli("serve", "--token-file", str(tmp_path / "tok"), "--port", "0", db=db_path)
    assert r.returncode == 2 and "16 characters" in r.stderr


def test_serve_refuses_a_token_on_the_command_line(db_path):
    try:
        r = run_cli("serve", "--token", "a-long-enough-token-0123", "--port", "0", db=db_path, timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("served with the token in its arguments") from None
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "process list" in r.stderr and "--token-file" in r.stderr


def _serve(db_path, *args, env=None, stdin=None):
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0", *args],
        stdin=subprocess.PIPE if stdin is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    line = proc.stdout.readline()
    m = re.fullmatch(r"memory-cli dashboard: (http://127\.0\.0\.1:\d+)/\?code=(\S+)\n", line)
    if not m:
        proc.kill()
        raise AssertionError(f"serve printed {line!r}: {proc.stderr.read()}")
    return proc, m.group(1), m.group(0).split(": ", 1)[1].strip()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kw):
        return None


def _get(url, headers=None):
    """(status, headers) without following redirects."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status, r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.headers


def test_a_token_file_keeps_the_token_out_of_the_process_list(db_path, tmp_path):
    token = "file-token-abcdefghijklmnop"
    _private(tmp_path / "tok", token + "\n")
    proc, base, _ = _serve(db_path, "--token-file", str(tmp_path / "tok"))
    try:
        with open(f"/proc/{proc.pid}/cmdline", "rb") as f:
            assert token.encode() not in f.read()
        assert _get(base + "/api/memories", {"Authorization": f"Bearer {token}"})[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # and from stdin, or the environment
    proc, base, _ = _serve(db_path, "--token-file", "-", stdin=token + "\n")
    try:
        assert _get(base + "/api/memories", {"Authorization": f"Bearer {token}"})[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    proc, base, _ = _serve(db_path, env=dict(os.environ, MEMORY_CLI_TOKEN=token))
    try:
        assert _get(base + "/api/memories", {"Authorization": f"Bearer {token}"})[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_browser_cookie_holds_a_session_of_this_server_not_the_token(db_path, tmp_path):
    token = "cookie-token-abcdefghijklmnop"
    _private(tmp_path / "tok", token)
    proc, base, url = _serve(db_path, "--token-file", str(tmp_path / "tok"))
    other, other_base, other_url = _serve(db_path, "--token-file", str(tmp_path / "tok"))
    try:
        assert token not in url
        status, headers = _get(url)
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"]
        assert token not in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        name, value = cookie.split(";", 1)[0].split("=", 1)
        assert _get(base + "/api/memories", {"Cookie": f"{name}={value}"})[0] == 200
        # the one-time link is spent
        assert _get(url)[0] == 401
        # what another port on 127.0.0.1 receives opens nothing there, nor works as the token
        other_port = other_base.rsplit(":", 1)[1]
        other_name = name.rsplit("_", 1)[0] + "_" + other_port
        assert _get(other_base + "/api/memories", {"Cookie": f"{other_name}={value}"})[0] == 401
        assert _get(base + "/api/memories", {"Authorization": f"Bearer {value}"})[0] == 401
        # a token in the URL is refused: the history would keep it
        assert _get(base + f"/?token={token}")[0] == 401
    finally:
        for p in (proc, other):
            p.terminate()
            p.wait(timeout=10)


def test_open_keeps_the_one_time_code_out_of_every_process_argv(db_path, tmp_path):
    """Every local user can read a process's arguments: the browser is given a page only this
    user can read, and the page hands over the code."""
    import time
    from urllib.parse import unquote, urlparse

    token = "open-token-abcdefghijklmnop"
    _private(tmp_path / "tok", token)
    seen = tmp_path / "browser-argv"
    page_copy = tmp_path / "page"
    fake = tmp_path / "fake-browser"
    # The stand-in browser records its arguments, reads the page it was given, and stays up a
    # moment (as a browser does) while the test looks at every process's command line.
    fake.write_text(
        f'#!/bin/sh\nprintf "%s" "$*" > {seen}.tmp\ncat "$(echo "$1" | sed s,^file://,,)" > {page_copy}\n'
        f"mv {seen}.tmp {seen}\nsleep 3\n"
    )
    fake.chmod(0o755)
    env = dict(os.environ, BROWSER=str(fake))
    proc, base, url = _serve(db_path, "--token-file", str(tmp_path / "tok"), "--open", env=env)
    try:
        for _ in range(200):
            if seen.exists():
                break
            time.sleep(0.05)
        opened = seen.read_text().strip()
        code = re.search(r"\?code=([^'\"&\s]+)", page_copy.read_text() + " " + opened).group(1)
        assert code not in url and token not in opened
        assert code not in opened, "the browser's command line holds the code"
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                assert code.encode() not in cmdline.read_bytes(), cmdline
            except OSError:
                continue  # the process ended
        page = Path(unquote(urlparse(opened).path))
        assert page.stat().st_mode & 0o777 == 0o600 and page.parent.stat().st_mode & 0o777 == 0o700
        target = base + "/?code=" + code
        assert _get(target)[0] == 303 and _get(target)[0] == 401  # one use
        for _ in range(50):  # the page goes once the code is spent
            if not page.exists():
                break
            time.sleep(0.1)
        assert not page.parent.exists()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.skipif(
    os.getuid() != 0 or not os.access("/usr/bin/python3", os.X_OK), reason="needs root to act as another local user"
)
def test_a_session_cookie_replayed_by_another_local_user_is_refused(db_path, tmp_path):
    """Cookies ignore ports: another user's server on 127.0.0.1 receives the dashboard's cookie.
    Replayed from that user's process, it opens nothing; from the person's own, it works."""
    token = "peer-token-abcdefghijklmnop"
    _private(tmp_path / "tok", token)
    proc, base, url = _serve(db_path, "--token-file", str(tmp_path / "tok"))
    try:
        cookie = _get(url)[1]["set-cookie"].split(";", 1)[0]
        assert _get(base + "/api/memories", {"Cookie": cookie})[0] == 200
        fetch = (
            "import sys, urllib.request, urllib.error\n"
            "req = urllib.request.Request(sys.argv[1], headers={'Cookie': sys.argv[2]})\n"
            "try:\n    print(urllib.request.urlopen(req, timeout=10).status)\n"
            "except urllib.error.HTTPError as e:\n    print(e.code)\n"
        )
        other = subprocess.run(
            ["/usr/bin/python3", "-I", "-c", fetch, base + "/api/memories", cookie],  # one that user may run
            user=65534,
            group=65534,
            capture_output=True,
            text=True,
            timeout=30,
            cwd="/",
        )
        assert other.stdout.strip() == "403", other.stderr
        assert _get(base + "/api/memories", {"Cookie": cookie})[0] == 200  # still the person's
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_login_form_gives_a_session_only_for_the_token_from_this_origin(db_path, tmp_path):
    token = "form-token-abcdefghijklmnop"
    _private(tmp_path / "tok", token)
    proc, base, _ = _serve(db_path, "--token-file", str(tmp_path / "tok"))
    opener = urllib.request.build_opener(_NoRedirect)

    def post(body, origin):
        req = urllib.request.Request(base + "/login", data=body.encode(), headers={"Origin": origin})
        try:
            with opener.open(req, timeout=10) as r:
                return r.status, r.headers
        except urllib.error.HTTPError as e:
            return e.code, e.headers

    try:
        status, _ = _get(base + "/memories")
        assert status == 401
        assert post(f"token={token}", "http://evil.example")[0] == 403
        assert post("token=wrong-token-0000000000", base)[0] == 401
        status, headers = post(f"token={token}", base)
        assert status == 303 and token not in headers["set-cookie"]
        assert _get(base + "/memories", {"Cookie": headers["set-cookie"].split(";")[0]})[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serving_beyond_loopback_warns_that_http_is_clear_text(db_path, tmp_path):
    _private(tmp_path / "tok", "lan-token-abcdefghijklmnop")
    with socket.socket() as taken:  # the port is taken: the command stops after its checks
        taken.bind(("0.0.0.0", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        r = run_cli("serve", "--host", "0.0.0.0", "--port", port, "--token-file", str(tmp_path / "tok"), db=db_path)
    assert r.returncode == 1
    warning = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "clear text" in warning[0]


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
        m = re.fullmatch(r"memory-cli dashboard: (http://127\.0\.0\.1:\d+)/\?code=\S+\n", line)
        assert m, line
        base = m.group(1)
        token = re.fullmatch(r"memory-cli token: (\S+)\n", proc.stdout.readline()).group(1)
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
    proc, base, _ = _serve(db_path, env=dict(os.environ, MEMORY_CLI_TOKEN=token))
    try:

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


def test_ctrl_c_says_it_is_stopping_and_an_open_browser_connection_does_not_hold_it(db_path):
    import signal

    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        m = re.fullmatch(r"memory-cli dashboard: http://127\.0\.0\.1:(\d+)/\?code=\S+\n", proc.stdout.readline())
        assert m
        tab = socket.create_connection(("127.0.0.1", int(m.group(1))), timeout=10)  # a keep-alive tab
        tab.sendall(f"GET /login HTTP/1.1\r\nHost: 127.0.0.1:{m.group(1)}\r\n\r\n".encode())
        assert tab.recv(64).startswith(b"HTTP/1.1")
        proc.send_signal(signal.SIGINT)
        out, _err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "memory-cli dashboard: stopping..." in out and out.rstrip().endswith("memory-cli dashboard: stopped"), out
    assert proc.returncode in (0, -signal.SIGINT, 130)
