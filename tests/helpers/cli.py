"""Running ``memory-cli`` as a person would: in this process (the same ``main`` the console script
calls) by default, or as the real console script where the process boundary is the point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN_DIR = Path(sys.executable).parent
MEMORY_CLI = str(BIN_DIR / "memory-cli") if (BIN_DIR / "memory-cli").exists() else None


def _cmd() -> list[str]:
    return [MEMORY_CLI] if MEMORY_CLI else [sys.executable, "-m", "memory_cli"]


def run_cli(
    *args,
    db: Path | None = None,
    input: str | None = None,
    env: dict | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess:
    """Run ``memory-cli [--db DB] ARGS`` as a person would and return what they would see.

    The CLI runs in this process (the same ``main`` the console script calls, with its own
    stdin, stdout, stderr, environment and working directory), because starting a Python
    process per command made the suite several times slower. ``process=True`` (or a
    ``timeout``, which only a process can honour) runs the real console script instead: use it
    where the process boundary is the point (exit status seen by a shell, signals, limits).
    ``hook`` always runs in a process, as Claude Code runs it.
    """
    argv = (["--db", str(db)] if db is not None else []) + [str(a) for a in args]
    if process or timeout is not None or "hook" in argv[:3]:
        return _run_cli_process(argv, input=input, env=env, cwd=cwd, timeout=timeout or 120)
    from memory_cli.cli.in_process import run_in_process  # typer loads with the first command

    return run_in_process(argv, input=input, env=env, cwd=cwd)


def _run_cli_process(argv, *, input, env, cwd, timeout) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        _cmd() + argv,
        input=input,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=str(cwd) if cwd else None,
        timeout=timeout,
    )
