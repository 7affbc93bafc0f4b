"""memory-cli on a pseudo-terminal, as a person at a keyboard meets it: start a command with its
streams on a pty, wait for what it prints, answer its prompts, press Ctrl-D.

The real console script runs in its own process: an interactive command asks only when its
stdin is a terminal, which an in-process run cannot give it.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path


class Terminal:
    """memory-cli on a pseudo-terminal: read what it prints, type answers."""

    def __init__(self, args: list[str]):
        exe = Path(sys.executable).parent / "memory-cli"
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_cli"]
        self.master, slave = pty.openpty()
        env = dict(os.environ, TERM="dumb", COLUMNS="120")
        self.proc = subprocess.Popen(cmd + args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.buf = b""

    def expect(self, text: str, timeout: float = 60) -> str:
        """Wait until ``text`` is printed; return what came before it (and consume both)."""
        want = text.encode()
        deadline = time.monotonic() + timeout
        while want not in self.buf:
            if time.monotonic() > deadline:
                raise AssertionError(f"did not see {text!r}; screen so far:\n{self.buf.decode(errors='replace')}")
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"exited before {text!r}:\n{self.buf.decode(errors='replace')}")
                self.buf += chunk
        head, _, self.buf = self.buf.partition(want)
        return head.decode(errors="replace")

    def type(self, line: str) -> None:
        """Type ``line`` and press Enter."""
        os.write(self.master, line.encode() + b"\r")

    def answer(self, prompt: str, reply: str) -> str:
        """Wait for ``prompt``, then type ``reply`` (``""``: take what is offered); what the
        screen showed before the prompt."""
        screen = self.expect(prompt)
        self.type(reply)
        return screen

    def end_input(self) -> None:
        """Press Ctrl-D: the end of input at the prompt."""
        os.write(self.master, b"\x04")

    def close(self) -> int:
        """Wait for the command to exit; its exit status."""
        try:
            rc = self.proc.wait(timeout=30)
        finally:
            os.close(self.master)
        return rc

    def kill(self) -> None:
        """Stop the command if it is still running (a test that failed half-way)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def terminals(db_path: Path) -> Iterator[Callable[..., Terminal]]:
    """The body of a pytest fixture: yields ``open(*args)``, which starts ``memory-cli --db DB
    ARGS`` on a terminal; every command still running afterwards is stopped."""
    made: list[Terminal] = []

    def _open(*args: str) -> Terminal:
        t = Terminal(["--db", str(db_path), *args])
        made.append(t)
        return t

    yield _open
    for t in made:
        t.kill()
