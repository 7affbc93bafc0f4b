"""The plugin's first use, as Claude Code runs it: SessionStart through ``plugin/bin/run`` with an
empty ``CLAUDE_PLUGIN_DATA``. The hooks' part is ready before SessionStart answers; the rest
installs in the background, and ``prepare.log`` says what each stage did and when the background
stage finished (until then a plugin-only user has no command line). Packages come from the
package index, as for a user."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
PLUGIN_ROOT = REPO / "plugin"
BIN = Path(sys.executable).parent
EMBED = "from memory_cli.embeddings import model; print(len(model.embed(['hi'])[0]))"


def wait_for_second_stage(data: Path, bound_s: float) -> None:
    """Until the environment is marked complete and the preparation's lock is gone (both are
    the script's own signals), failing with the log when the bound passes."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if (data / "env" / ".requirements").exists() and not (data / ".preparing").exists():
            return
        time.sleep(0.5)
    log = data / "prepare.log"
    raise AssertionError(f"not complete after {bound_s:.0f} s:\n" + (log.read_text() if log.exists() else "no log"))


def test_prepare_log_records_each_stage_and_the_end_of_the_background_one(claude_dir, tmp_path):
    if shutil.which("uv", path=str(BIN)) is None and shutil.which("uv") is None:
        pytest.skip("uv is not installed (the [test] extra installs it)")
    data = tmp_path / "plugin-data"
    real_home = pwd.getpwuid(os.getuid()).pw_dir  # the person's package cache, not the test's HOME
    env = dict(
        os.environ,
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        CLAUDE_PLUGIN_ROOT=str(PLUGIN_ROOT),
        CLAUDE_PLUGIN_DATA=str(data),
    )
    env.setdefault("UV_CACHE_DIR", os.path.join(real_home, ".cache", "uv"))
    body = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}
    started = subprocess.run(
        ["sh", str(PLUGIN_ROOT / "bin" / "run"), "hook", "SessionStart"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert started.returncode == 0, started.stderr
    assert "progress: " in started.stdout  # the person is told where to follow it
    log = (data / "prepare.log").read_text()
    assert "first stage finished" in log and "second stage runs in the background" in log, log
    early = subprocess.run(
        [str(data / "bin" / "memory-cli"), "--version"], capture_output=True, text=True, env=env, timeout=120
    )
    if early.returncode != 0:  # asked before the background stage ended: it says where it is
        assert "still installing in the background; last step: " in early.stderr, early.stderr
    wait_for_second_stage(data, bound_s=900)
    log = (data / "prepare.log").read_text()
    lines = [ln.split(" ", 1)[1] for ln in log.splitlines() if ln[:4].isdigit()]
    order = ["first stage: making", "first stage finished", "second stage started", "dependencies installed"]
    order += ["embedding model installed", "second stage finished"]
    seen = [next((i for i, ln in enumerate(lines) if ln.startswith(step)), None) for step in order]
    assert None not in seen and seen == sorted(seen), log
    cli = subprocess.run(
        [str(data / "bin" / "memory-cli"), "--version"], capture_output=True, text=True, env=env, timeout=120
    )
    assert cli.returncode == 0, cli.stderr
    # the environment it made runs the embedding model, and its doctor has no warning
    dims = subprocess.run(
        [str(data / "env" / "bin" / "python"), "-c", EMBED], capture_output=True, text=True, env=env, timeout=300
    )
    assert dims.returncode == 0 and dims.stdout.strip() == "1536", dims.stderr  # 384 float32 values
    doctor = subprocess.run(
        ["sh", str(PLUGIN_ROOT / "bin" / "run"), "run-cli", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=dict(env, CLAUDE_CONFIG_DIR=str(claude_dir)),
        timeout=600,
    )
    checks = json.loads(doctor.stdout)["checks"]
    # "hook latency" times hook starts on the machine as it is (here, beside the rest of the
    # suite): a figure about the load, not about what the prepare made; it is a benchmark's job
    assert [c for c in checks if c["status"] != "ok" and c["name"] != "hook latency"] == [], doctor.stdout
    assert "hook latency" in {c["name"] for c in checks}, doctor.stdout
    assert {c["name"]: c for c in checks}["embedding model"]["status"] == "ok"
