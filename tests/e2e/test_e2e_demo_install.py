"""``make demo`` installs what a user installs: memory-cli and its embedding model on numpy, no
PyTorch, in a fresh clone's own ``.venv``; then the demo runs through the real hooks and its
search is by meaning (the model is there), not the keyword fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .test_e2e_marketplace import export_checkout

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _base_python() -> str:
    return getattr(sys, "_base_executable", None) or sys.executable


def test_make_demo_installs_no_pytorch_and_the_model_runs_on_numpy(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    clone = export_checkout(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_CLI_", "VIRTUAL_ENV"))}
    env["PYTHON"] = _base_python()
    env.setdefault("PIP_CACHE_DIR", os.path.join(os.environ.get("HOME", "/root"), ".cache", "pip"))
    proc = subprocess.run(["make", "demo"], cwd=clone, capture_output=True, text=True, env=env, timeout=1200)
    assert proc.returncode == 0, f"make demo exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "demo finished: every step behaved as described" in proc.stdout
    py = Path(clone) / ".venv" / "bin" / "python"
    probe = subprocess.run(
        [
            str(py),
            "-c",
            "import importlib.util as u, sys; from memory_cli.embeddings import model;"
            "e = model.load_model(); v = e.embed(['hello']);"
            "print(u.find_spec('torch') is None, u.find_spec('sentence_transformers') is None,"
            " e.backend, len(v[0]), 'torch' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["True", "True", "numpy", "1536", "False"]
