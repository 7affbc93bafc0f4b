"""``memory-cli ARGS`` run in this process: the same ``main`` the console script calls, with its
own stdin, stdout, stderr, environment and working directory, returned as a finished process.

Starting a Python interpreter (and typer, rich, pydantic) per command costs far more than the
command itself, so the demo and the test suite run the person's commands here. Everything the
command changes in the process (streams, ``os.environ``, the working directory) is put back
before returning, whether the command returned, exited or raised.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def run_in_process(
    argv: Sequence[str],
    *,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    replace_env: bool = False,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``memory-cli ARGV`` here and return its exit code, stdout and stderr as text.

    ``input`` is what the command reads on stdin (nothing by default). ``env`` is laid over
    this process's environment, or, with ``replace_env``, is the whole environment the command
    sees. ``cwd`` is the working directory it runs in. A ``SystemExit`` (typer's exits) becomes
    the exit code, as a shell would see it.
    """
    from ..__main__ import main

    argv = list(argv)
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _stream(), _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream((input or "").encode()), out, err
    try:
        if replace_env:
            os.environ.clear()
        if env:
            os.environ.update(env)
        if cwd:
            os.chdir(cwd)
        try:
            code: int = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["memory-cli", *argv], code or 0, _text(out), _text(err))
