"""Fixtures for end-to-end tests: the real Claude Code binary, memory-cli's real hooks, a scripted
model on 127.0.0.1.

Each test runs whole ``claude -p`` sessions. Claude Code is the pinned npm package installed by
``scripts/setup_claude_code.sh`` into ``.e2e/`` (git-ignored); memory-cli is registered with its
own ``memory-cli install`` into a throwaway HOME, exactly as a user would; the model service is
:class:`tests.e2e.standin.StandIn`, which answers from a per-session script and records every
request, so a test can assert what the model was shown.

Fixture interface (kept stable for other test modules)
------------------------------------------------------
``claude_bin`` (session)
    Path of the pinned ``claude`` executable. Skips the test, saying why, when npm is missing or
    the install failed.
``e2e_home`` (module)
    An :class:`E2EHome`: a fresh HOME shared by the tests of one module (state accumulates, which
    is what multi-session scenarios want), with ``memory-cli install`` already run in it and a
    git project at ``e2e_home.project``.
``fresh_home`` (function)
    The same, but private to one test.
``run_session`` (function)
    ``e2e_home.run_session``: ``run_session(prompt, script, extra_args=(), env=None,
    allowed_tools=..., cwd=None, timeout=180) -> SessionResult``.

``E2EHome`` also gives ``cli(*args)`` (run the venv's ``memory-cli`` against this HOME and
return the CompletedProcess; ``--json`` output via ``cli_json``), ``env()`` (the environment
sessions and commands run with), ``db`` (the store's path), ``settings()`` (the installed
``settings.json``) and ``processes()`` (live processes whose HOME is this one).

``SessionResult`` holds ``events`` (the parsed stream-json lines), ``requests`` (every request
the stand-in received), ``main_requests`` (the conversation turns, in order), ``elapsed_s``,
``returncode``, ``stderr``, and helpers: ``last_request`` (the last main request: what the model
saw last), ``tool_results()``, ``shown()`` (all text of the last request), ``hook_responses(
event)``, ``system_messages()``, ``result`` (the final ``result`` event).

Environment of every session: HOME is the throwaway one, ``CLAUDE_CONFIG_DIR`` and any
``MEMORY_CLI_*`` of the calling shell are removed, ``ANTHROPIC_BASE_URL`` points at the
stand-in, nonessential traffic, telemetry and the auto-updater are off, and
``MEMORY_CLI_DAEMON_AUTOSTART=0`` keeps the embedding daemon (a PyTorch process) from starting in
every test; tests that want it pass ``env={"MEMORY_CLI_DAEMON_AUTOSTART": "1"}``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .standin import Request, StandIn

REPO = Path(__file__).resolve().parents[2]
CLAUDE_CODE_VERSION = "2.1.328"
CLAUDE_BIN = REPO / ".e2e" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
SETUP_SCRIPT = REPO / "scripts" / "setup_claude_code.sh"
MEMORY_CLI = Path(sys.executable).parent / "memory-cli"
DEFAULT_TOOLS = "Bash,Write,Edit,Read"

# Variables of the calling shell that would leak into the throwaway HOME's sessions.
_SCRUB_PREFIXES = ("MEMORY_CLI_", "ANTHROPIC_", "CLAUDE_", "CLAUDECODE")


def pytest_collection_modifyitems(items):
    for item in items:
        if "/tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned Claude Code binary; installs it once if npm is there and it is missing."""
    override = os.environ.get("MEMORY_CLI_E2E_CLAUDE")
    if override:
        return Path(override)
    if not _right_version(CLAUDE_BIN):
        if shutil.which("npm") is None:
            pytest.skip("npm not found: the end-to-end tests need Node.js with npm to install "
                        f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} (scripts/setup_claude_code.sh)")
        proc = subprocess.run(["bash", str(SETUP_SCRIPT)], capture_output=True, text=True, timeout=600)
        if not _right_version(CLAUDE_BIN):
            pytest.skip("Claude Code could not be installed by scripts/setup_claude_code.sh: "
                        + (proc.stderr or proc.stdout).strip()[-300:])
    return CLAUDE_BIN


def _right_version(binary: Path) -> bool:
    if not binary.exists():
        return False
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith(CLAUDE_CODE_VERSION + " ")


@dataclass
class SessionResult:
    """One finished ``claude -p`` session: what it printed and what the model was sent."""

    prompt: str
    returncode: int
    events: list[dict]
    requests: list[Request]
    stderr: str
    elapsed_s: float
    standin: StandIn = field(repr=False)

    @property
    def main_requests(self) -> list[Request]:
        return [r for r in self.requests if r.is_main]

    @property
    def last_request(self) -> Request:
        reqs = self.main_requests
        assert reqs, f"the model was never asked anything; stderr: {self.stderr[-500:]}"
        return reqs[-1]

    @property
    def first_request(self) -> Request:
        reqs = self.main_requests
        assert reqs, f"the model was never asked anything; stderr: {self.stderr[-500:]}"
        return reqs[0]

    def tool_results(self) -> list[dict]:
        """Tool results the model was shown by the end of the session."""
        return self.last_request.tool_results()

    def shown(self) -> str:
        """All text of the last conversation request."""
        return self.last_request.shown_text()

    @property
    def result(self) -> dict:
        for e in reversed(self.events):
            if e.get("type") == "result":
                return e
        raise AssertionError(f"no result event; stderr: {self.stderr[-500:]}")

    def hook_responses(self, event: str | None = None) -> list[dict]:
        """``system``/``hook_response`` events (one per hook run), optionally for one event."""
        out = [e for e in self.events if e.get("type") == "system" and e.get("subtype") == "hook_response"]
        if event:
            out = [e for e in out if e.get("hook_event") == event or e.get("hook_name", "").startswith(event)]
        return out

    def system_messages(self) -> list[str]:
        """What the person was shown by hooks (``systemMessage``), as the stream reports it."""
        out = []
        for e in self.events:
            if e.get("type") == "system" and e.get("subtype") not in ("hook_started", "hook_response", "init"):
                for key in ("content", "message", "text"):
                    if isinstance(e.get(key), str):
                        out.append(e[key])
        for e in self.hook_responses():
            raw = e.get("output") or e.get("stdout") or ""
            try:
                data = json.loads(raw) if isinstance(raw, str) and raw.startswith("{") else {}
            except ValueError:
                data = {}
            if data.get("systemMessage"):
                out.append(data["systemMessage"])
        return out

    def describe(self) -> str:
        """A compact account of the session for assertion messages."""
        lines = [f"rc={self.returncode} {self.elapsed_s:.1f}s, {len(self.main_requests)} turns"]
        for e in self.events:
            if e.get("type") == "system" and e.get("subtype") == "hook_response":
                lines.append(f"  hook {e.get('hook_name')}: exit {e.get('exit_code')} "
                             f"out={str(e.get('output') or e.get('stdout'))[:200]!r}")
        if self.main_requests:
            for tr in self.tool_results():
                lines.append(f"  tool_result error={tr['is_error']}: {tr['text'][:200]!r}")
        if self.stderr.strip():
            lines.append("  stderr: " + self.stderr.strip()[-400:])
        return "\n".join(lines)


class E2EHome:
    """A throwaway HOME with memory-cli installed into its Claude Code settings."""

    def __init__(self, root: Path, claude_bin: Path):
        self.root = root
        self.home = root / "home"
        self.claude_dir = self.home / ".claude"
        self.project = self.home / "work" / "whisperclick"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "src").mkdir()
        self.claude_bin = claude_bin
        self.extra_env: dict[str, str] = {"MEMORY_CLI_DAEMON_AUTOSTART": "0"}
        self.sessions: list[SessionResult] = []

    @property
    def db(self) -> Path:
        return self.claude_dir / "memory" / "memory.db"

    def env(self, extra: dict | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB_PREFIXES)}
        env.update({
            "HOME": str(self.home),
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "ANTHROPIC_API_KEY": "sk-ant-e2e-standin",
        })
        env.update(self.extra_env)
        for k, v in (extra or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def cli(self, *args, check: bool = True, env: dict | None = None, input: str | None = None,
            cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run the venv's ``memory-cli ARGS`` as the person owning this HOME would."""
        proc = subprocess.run([str(MEMORY_CLI), *map(str, args)], capture_output=True, text=True,
                              env=self.env(env), cwd=str(cwd or self.project), input=input, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"memory-cli {' '.join(map(str, args))} exited {proc.returncode}: "
                                 f"{proc.stderr.strip()}")
        return proc

    def cli_json(self, *args, **kw):
        return json.loads(self.cli("--json", *args, **kw).stdout)

    def install(self) -> subprocess.CompletedProcess:
        return self.cli("install")

    def settings(self) -> dict:
        return json.loads((self.claude_dir / "settings.json").read_text())

    def write_config(self, config: dict) -> None:
        path = self.claude_dir / "memory" / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config))

    def processes(self) -> list[tuple[int, str]]:
        """Live processes (pid, command line) whose environment has this HOME."""
        marker = f"HOME={self.home}".encode() + b"\0"
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    environ = f.read() + b"\0"
                if marker not in environ:
                    continue
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if f.read().split(b") ")[-1][:1] == b"Z":
                        continue  # a zombie awaiting its parent runs nothing
            except OSError:
                continue
            out.append((int(entry), cmd))
        return out

    def run_session(self, prompt: str, script=(), *, extra_args=(), env: dict | None = None,
                    allowed_tools: str = DEFAULT_TOOLS, cwd: Path | None = None,
                    timeout: float = 180) -> SessionResult:
        """Run ``claude -p PROMPT`` in the project with the model scripted by ``script``."""
        standin = StandIn(script)
        with standin:
            cmd = [str(self.claude_bin), "-p", prompt, "--output-format", "stream-json", "--verbose",
                   "--allowedTools", allowed_tools, *extra_args]
            run_env = self.env(env)
            run_env["ANTHROPIC_BASE_URL"] = standin.url
            started = time.monotonic()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=run_env,
                                  cwd=str(cwd or self.project), timeout=timeout, stdin=subprocess.DEVNULL)
            elapsed = time.monotonic() - started
        events = []
        for line in proc.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
        result = SessionResult(prompt, proc.returncode, events, list(standin.requests), proc.stderr,
                               elapsed, standin)
        self.sessions.append(result)
        return result


def _make_home(root: Path, claude_bin: Path) -> E2EHome:
    home = E2EHome(root, claude_bin)
    home.install()
    return home


@pytest.fixture(scope="module")
def e2e_home(claude_bin, tmp_path_factory) -> E2EHome:
    return _make_home(tmp_path_factory.mktemp("e2e"), claude_bin)


@pytest.fixture
def fresh_home(claude_bin, tmp_path_factory) -> E2EHome:
    return _make_home(tmp_path_factory.mktemp("e2e-fresh"), claude_bin)


@pytest.fixture
def run_session(e2e_home):
    return e2e_home.run_session
