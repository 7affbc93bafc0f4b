"""`serve --open` on a machine without a browser says so instead of doing nothing in silence."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers.cli import _cmd


def test_open_without_a_browser_says_so_and_serves(db_path, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PATH"] = f"{empty}{os.pathsep}{os.path.dirname(sys.executable)}"
    proc = subprocess.Popen(
        _cmd() + ["--db", str(db_path), "serve", "--port", "0", "--open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        import select

        ready, _, _ = select.select([proc.stderr], [], [], 60)  # printed before the server starts
        said = proc.stderr.readline() if ready else "(nothing on stderr within 60 s)"
        assert "no browser found" in said and "open the dashboard URL below yourself" in said, said
        assert proc.stdout.readline().startswith("memory-cli dashboard: http://127.0.0.1:")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_demo_names_a_command_that_works_and_a_store_that_is_there(tmp_path):
    """After `make demo` memory-cli is not on PATH, and the demo's store goes with its folder:
    its last lines give the command by absolute path and a kept copy of the demo's store."""
    import re
    import shlex

    env = dict(os.environ, MEMORY_CLI_DAEMON_AUTOSTART="0")
    r = subprocess.run(_cmd() + ["demo"], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    m = re.search(r"see the demo's store in your browser: (.+) serve --open", r.stdout)
    assert m, r.stdout[-1000:]
    words = shlex.split(m.group(1))
    assert os.path.isabs(words[0]) and os.access(words[0], os.X_OK)
    db = words[words.index("--db") + 1]
    listed = subprocess.run(words + ["list", "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert listed.returncode == 0 and "pythonw.exe" in listed.stdout, listed.stderr
    assert os.path.exists(db)
