"""Claude Code sessions in a throwaway HOME: the pinned binary's place, an :class:`E2EHome` with
memory-cli installed into it as a user would, and the :class:`SessionResult` of one ``claude -p``
run against the scripted model (``tests/e2e/conftest.py`` describes the fixtures built on these).

Every session run here is added to ``SESSION_TIMES``, which the conftest prints at the end."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .standin import Request, StandIn

REPO = Path(__file__).resolve().parents[2]
CLAUDE_CODE_VERSION = "2.1.328"
CLAUDE_BIN = REPO / ".e2e" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
SETUP_SCRIPT = REPO / "scripts" / "setup_claude_code.sh"
MEMORY_CLI = Path(sys.executable).parent / "memory-cli"
DEFAULT_TOOLS = "Bash,Write,Edit,Read"

# Variables of the calling shell that would leak into the throwaway HOME's sessions.
_SCRUB_PREFIXES = ("MEMORY_CLI_", "ANTHROPIC_", "CLAUDE_", "CLAUDECODE")


# (test, prompt, seconds, conversation requests, exit code) of every session of this run.
SESSION_TIMES: list[tuple[str, str, float, int, int]] = []


def _right_version(binary: Path) -> bool:
    if not binary.exists():
        return False
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False).stdout
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
        """The final ``result`` event (the last one when several prompts ran)."""
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
        """What hooks showed the person (``systemMessage``): the stream's ``informational``
        lines, as Claude Code words them (``"UserPromptSubmit says: memory-cli: ..."``)."""
        return [
            e.get("content", "")
            for e in self.events
            if e.get("type") == "system" and e.get("subtype") == "informational"
        ]

    def describe(self) -> str:
        """A compact account of the session for assertion messages."""
        lines = [f"rc={self.returncode} {self.elapsed_s:.1f}s, {len(self.main_requests)} turns"]
        for e in self.events:
            if e.get("type") == "system" and e.get("subtype") == "hook_response":
                lines.append(
                    f"  hook {e.get('hook_name')}: exit {e.get('exit_code')} "
                    f"out={str(e.get('output') or e.get('stdout'))[:200]!r}"
                )
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
        # Set by a test that makes hooks fail on purpose; otherwise the fixture checks at the end
        # that no hook failed open (audit ``hook_error`` rows, ``hook-errors.log``).
        self.allow_hook_failures = False

    @property
    def cli_bin_dir(self) -> Path:
        """The folder holding the ``memory-cli`` the hooks run (put it on a session's PATH for
        scripted Bash calls of ``memory-cli``)."""
        return MEMORY_CLI.parent

    @property
    def db(self) -> Path:
        return self.claude_dir / "memory" / "memory.db"

    def env(self, extra: dict | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB_PREFIXES)}
        env.update(
            {
                "HOME": str(self.home),
                "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "ANTHROPIC_API_KEY": "sk-ant-e2e-standin",
            }
        )
        env.update(self.extra_env)
        for k, v in (extra or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def cli(
        self,
        *args,
        check: bool = True,
        env: dict | None = None,
        input: str | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess:
        """Run the venv's ``memory-cli ARGS`` as the person owning this HOME would."""
        proc = subprocess.run(
            [str(MEMORY_CLI), *map(str, args)],
            capture_output=True,
            text=True,
            check=False,
            env=self.env(env),
            cwd=str(cwd or self.project),
            input="" if input is None else input,
            timeout=timeout,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"memory-cli {' '.join(map(str, args))} exited {proc.returncode}: {proc.stderr.strip()}"
            )
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

    def hook_failures(self) -> list[str]:
        """Every record of a hook that failed open: audit ``hook_error`` rows and the lines of
        ``hook-errors.log`` (where failures go when the store cannot take them)."""
        out = []
        if self.db.exists():
            rows = self.cli_json("audit", "--action", "hook_error", "--limit", "1000", env={"MEMORY_CLI_DB": None})
            out += [f"{r['hook_event']}: {r['result']} {r.get('details')}" for r in rows]
        log = self.claude_dir / "memory" / "hook-errors.log"
        if log.exists():
            out += [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        return out

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

    def run_session(
        self,
        prompt: str | list[str],
        script=(),
        *,
        subagents: dict | None = None,
        extra_args=(),
        env: dict | None = None,
        allowed_tools: str = DEFAULT_TOOLS,
        cwd: Path | None = None,
        timeout: float = 180,
        evaluator=None,
    ) -> SessionResult:
        """Run ``claude -p PROMPT`` in the project with the model scripted by ``script``.

        A list of prompts runs them one after another in the same session (``--input-format
        stream-json``), slash commands such as ``/compact`` included; the script's turns are
        used in order across them. ``subagents={task_prompt: turns}`` scripts subagents started
        with the Task tool (see :class:`StandIn`)."""
        standin = StandIn(script, subagents=subagents, evaluator=evaluator)
        with standin:
            cmd = [str(self.claude_bin), "-p"]
            prompts = None
            if isinstance(prompt, str):
                cmd.append(prompt)
            else:
                cmd += ["--input-format", "stream-json"]
                prompts = list(prompt)
            cmd += ["--output-format", "stream-json", "--verbose", "--allowedTools", allowed_tools, *extra_args]
            run_env = self.env(env)
            run_env["ANTHROPIC_BASE_URL"] = standin.url
            started = time.monotonic()
            if prompts is None:
                # An empty pipe, not /dev/null: print mode appends whatever stdin holds to the
                # prompt, and a shared machine's /dev/null is not always the device it should be.
                proc = subprocess.run(
                    cmd,
                    capture_output=True,
                    text=True,
                    env=run_env,
                    input="",
                    check=False,
                    cwd=str(cwd or self.project),
                    timeout=timeout,
                )
                returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
            else:
                returncode, stdout, stderr = _converse(cmd, prompts, run_env, cwd or self.project, timeout)
            elapsed = time.monotonic() - started
        events = []
        for line in stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
        result = SessionResult(
            prompt if isinstance(prompt, str) else " | ".join(prompt),
            returncode,
            events,
            list(standin.requests),
            stderr,
            elapsed,
            standin,
        )
        self.sessions.append(result)
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        SESSION_TIMES.append((test, result.prompt, elapsed, len(result.main_requests), returncode))
        return result


def _converse(cmd, prompts, env, cwd, timeout) -> tuple[int, str, str]:
    """Feed prompts one at a time as stream-json input, each after the previous turn's
    ``result`` (a prompt sent while a turn runs is folded into that turn as a side note)."""
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(cwd)
    )
    lines: queue.Queue = queue.Queue()
    err: list[str] = []
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)], daemon=True).start()
    threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True).start()
    deadline = time.monotonic() + timeout
    out: list[str] = []
    pending = list(prompts)

    def send_next():
        msg = {"type": "user", "message": {"role": "user", "content": pending.pop(0)}}
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        if not pending:
            proc.stdin.close()

    try:
        send_next()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(cmd, timeout)
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                break
            out.append(line)
            if pending and _is_result(line):
                send_next()
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(out), "".join(err)


def _is_result(line: str) -> bool:
    try:
        return json.loads(line).get("type") == "result"
    except (ValueError, AttributeError):
        return False


def _make_home(root: Path, claude_bin: Path) -> E2EHome:
    home = E2EHome(root, claude_bin)
    home.install()
    return home


def _check_no_hook_failures(home: E2EHome) -> None:
    if not home.allow_hook_failures:
        failures = home.hook_failures()
        assert not failures, "hooks failed open during the sessions:\n" + "\n".join(failures[:20])
