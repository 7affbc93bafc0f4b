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
    return _run_cli_in_process(argv, input=input, env=env, cwd=cwd)


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


def _run_cli_in_process(argv, *, input, env, cwd) -> subprocess.CompletedProcess:
    import io

    from memory_cli.__main__ import main

    def stream(data: bytes = b""):
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = stream(), stream()
    sys.stdin, sys.stdout, sys.stderr = stream((input or "").encode()), out, err
    try:
        if env:
            for k, v in env.items():
                os.environ[k] = v
        if cwd:
            os.chdir(cwd)
        try:
            code = main(argv)
        except SystemExit as e:  # typer.Exit and friends
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    out.flush()
    err.flush()
    return subprocess.CompletedProcess(
        ["memory-cli", *argv],
        code or 0,
        out.buffer.getvalue().decode("utf-8", "replace"),
        err.buffer.getvalue().decode("utf-8", "replace"),
    )
