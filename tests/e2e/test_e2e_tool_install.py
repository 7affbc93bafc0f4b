"""memory-cli installed as a Python tool, the route for people who do not use plugins:
``uv tool install`` and ``pipx install`` of a checkout give a working ``memory-cli`` in an
environment of its own, whose ``memory-cli install`` registers hooks that the real Claude Code
runs (a block rule denies in a session). Packages come from the package index, as for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .standin import bash
from .test_e2e_marketplace import export_checkout

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIN = Path(sys.executable).parent


def _base_python() -> str:
    """The interpreter the project's venv was made from (a tool gets its own environment)."""
    return getattr(sys, "_base_executable", None) or sys.executable


def _tool_env(home, tools: Path) -> dict:
    env = home.env()
    env["PATH"] = f"{tools / 'bin'}{os.pathsep}{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        {
            "UV_TOOL_DIR": str(tools / "uv-tools"),
            "UV_TOOL_BIN_DIR": str(tools / "bin"),
            "PIPX_HOME": str(tools / "pipx"),
            "PIPX_BIN_DIR": str(tools / "bin"),
            "PIPX_MAN_DIR": str(tools / "man"),
        }
    )
    # The person's package caches (not the throwaway HOME's) keep a second run fast.
    real_home = os.environ.get("HOME", "")
    env.setdefault("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR") or os.path.join(real_home, ".cache", "uv"))
    env.setdefault("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR") or os.path.join(real_home, ".cache", "pip"))
    return env


def _run(cmd, env, timeout=600) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.mark.parametrize("installer", ["uv", "pipx"])
def test_tool_install_gives_a_memory_cli_whose_hooks_deny(installer, fresh_home, tmp_path):
    if shutil.which(installer, path=str(BIN)) is None:
        pytest.skip(f"{installer} is not installed in the test environment (the [test] extra installs it)")
    home = fresh_home
    home.cli("uninstall")  # the tool's own memory-cli registers the hooks below
    source = export_checkout(tmp_path / "checkout")
    tools = tmp_path / "tools"
    env = _tool_env(home, tools)
    if installer == "uv":
        _run([str(BIN / "uv"), "tool", "install", "--python", _base_python(), str(source)], env)
    else:
        _run([str(BIN / "pipx"), "install", "--python", _base_python(), str(source)], env)
    exe = tools / "bin" / "memory-cli"
    assert exe.exists(), sorted(p.name for p in (tools / "bin").iterdir())

    _run([str(exe), "install"], env)
    hooks = home.settings()["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert str(tools) in hooks and str(BIN) not in hooks, hooks  # the tool's interpreter, not ours
    server = json.loads((home.home / ".claude.json").read_text())["mcpServers"]["memory-cli"]["command"]
    assert str(tools) in server, server  # which answers the gate (the mcp_tool route)
    _run(
        [str(exe), "add", "Never force-push", "--type", "rule", "--pattern", "git push --force", "--action", "block"],
        env,
    )

    s = home.run_session("push it", [bash("git push --force origin main || touch pushed"), "Done."])
    assert s.returncode == 0, s.describe()
    [result] = s.tool_results()
    assert result["is_error"] and "Blocked by memory-cli" in result["text"], s.describe()
    assert not (home.project / "pushed").exists()
    doctor = subprocess.run([str(exe), "doctor"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert "hooks (user)" in doctor.stdout, doctor.stdout
