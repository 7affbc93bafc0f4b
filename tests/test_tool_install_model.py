"""The two tool routes end with a working embedding model and a doctor without warnings: a real
``pipx install`` of this checkout (pipx makes environments without pip) run with a PATH that holds
no uv, and a real ``uv tool install``; then the tool's own ``memory-cli install`` and ``doctor``,
as their users run them."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]


def export_checkout(dest: Path) -> Path:
    """The files a clone holds (tracked and new, not ignored), without .venv or .e2e."""
    names = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in filter(None, names):
        src = REPO / raw.decode()
        if not os.path.lexists(src):
            continue
        target = dest / raw.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
        else:
            shutil.copy2(src, target)
    return dest


def _run(cmd, env, timeout=900) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _tool_env(tmp_path: Path, with_uv: bool) -> dict:
    tools = tmp_path / "tools"
    real_home = pwd.getpwuid(os.getuid()).pw_dir  # the person's caches, not the test's HOME
    path = os.environ.get("PATH", "")
    if not with_uv:  # only folders without uv (pipx itself is run by absolute path)
        path = os.pathsep.join(p for p in path.split(os.pathsep) if not shutil.which("uv", path=p))
    env = dict(
        os.environ,
        PATH=f"{BIN}{os.pathsep}{path}" if with_uv else path,
        PIPX_HOME=str(tools / "pipx"),
        PIPX_BIN_DIR=str(tools / "bin"),
        PIPX_MAN_DIR=str(tools / "man"),
        UV_TOOL_DIR=str(tools / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tools / "bin"),
        MEMORY_CLI_DAEMON_AUTOSTART="0",
    )
    env.setdefault("PIP_CACHE_DIR", os.path.join(real_home, ".cache", "pip"))
    env.setdefault("UV_CACHE_DIR", os.path.join(real_home, ".cache", "uv"))
    return env


def _installed_route_works(exe: Path, venv_python: Path, env: dict) -> None:
    """`memory-cli install` gets the model, the model runs, and doctor has no warning."""
    inst = _run([str(exe), "install"], env)
    assert "neither pip nor uv" not in inst.stderr, inst.stderr
    vec = _run(
        [str(venv_python), "-c", "from memory_cli.embeddings import model; print(len(model.embed(['hi'])[0]))"], env
    )
    assert vec.stdout.strip() == "1536", inst.stderr  # 384 float32 values: the model ran
    doctor = subprocess.run([str(exe), "doctor", "--json"], capture_output=True, text=True, env=env, timeout=300)
    checks = json.loads(doctor.stdout)["checks"]
    assert [c for c in checks if c["status"] != "ok"] == [], doctor.stdout
    assert {c["name"]: c for c in checks}["embedding model"]["status"] == "ok"


def test_pipx_install_without_pip_or_uv_gets_the_model(tmp_path):
    pipx = BIN / "pipx"
    if not pipx.exists():
        pytest.skip("pipx is not installed in the test environment (the [test] extra installs it)")
    env = _tool_env(tmp_path, with_uv=False)
    tools = tmp_path / "tools"
    base = getattr(sys, "_base_executable", None) or sys.executable
    _run([str(pipx), "install", "--python", base, str(export_checkout(tmp_path / "checkout"))], env)
    venv_python = tools / "pipx" / "venvs" / "memory-cli" / "bin" / "python"
    no_pip = subprocess.run([str(venv_python), "-m", "pip", "--version"], capture_output=True, env=env)
    if no_pip.returncode == 0:
        pytest.skip("this pipx gave its environment a pip (its pip back end): the case is the environment without")
    assert shutil.which("uv", path=env["PATH"]) is None and not (venv_python.parent / "uv").exists()
    _installed_route_works(tools / "bin" / "memory-cli", venv_python, env)


def test_uv_tool_install_gets_the_model(tmp_path):
    uv = BIN / "uv"
    if not uv.exists():
        pytest.skip("uv is not installed in the test environment (the [test] extra installs it)")
    env = _tool_env(tmp_path, with_uv=True)
    tools = tmp_path / "tools"
    base = getattr(sys, "_base_executable", None) or sys.executable
    _run([str(uv), "tool", "install", "--python", base, str(export_checkout(tmp_path / "checkout"))], env)
    _installed_route_works(tools / "bin" / "memory-cli", tools / "uv-tools" / "memory-cli" / "bin" / "python", env)
