"""Shared fixtures: every test runs against a real SQLite file in its own temporary Claude
configuration directory, and hooks run through the real installed entry point with payloads
shaped exactly like Claude Code's (shared/reference/claude-code-hooks.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN_DIR = Path(sys.executable).parent
MEMORY_CLI = str(BIN_DIR / "memory-cli") if (BIN_DIR / "memory-cli").exists() else None


def _cmd() -> list[str]:
    return [MEMORY_CLI] if MEMORY_CLI else [sys.executable, "-m", "memory_cli"]


_LAUNCHER: list[str] = []


def hook_cmd() -> list[str]:
    """The command ``memory-cli install`` registers for hooks (the lean launcher), so hook tests
    run what Claude Code runs; ``MEMORY_CLI_TEST_HOOK_ENTRY=console``: the console script."""
    if os.environ.get("MEMORY_CLI_TEST_HOOK_ENTRY") == "console":
        return _cmd()
    if not _LAUNCHER:
        import shlex

        from memory_cli.install import hook_launcher

        _LAUNCHER[:] = shlex.split(hook_launcher())  # threads may race here: same words
    return list(_LAUNCHER)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """No test may touch the real ~/.claude: config dir, HOME and project are all temporary."""
    home = tmp_path / "home"
    claude = home / ".claude"
    claude.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    for var in (
        "MEMORY_CLI_DB",
        "MEMORY_CLI_CONFIG",
        "CLAUDE_PROJECT_DIR",
        "MEMORY_CLI_BUDGET",
        "MEMORY_CLI_HOOK_DEBUG",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDECODE",  # the agents' markers: tests run the CLI as the person, even from an agent
        "CODEX_THREAD_ID",
        "CODEX_SANDBOX",
        "GEMINI_CLI",
    ):
        monkeypatch.delenv(var, raising=False)
    # SessionStart starts the embedding daemon; tests that want one turn this back on.
    monkeypatch.setenv("MEMORY_CLI_DAEMON_AUTOSTART", "0")
    return claude


@pytest.fixture
def claude_dir(isolated_env) -> Path:
    return isolated_env


@pytest.fixture
def detector_speaks(claude_dir) -> None:
    """The hook tells the agent of its own detections ("Recorded correction: ...") only when the
    agent is not recording lessons itself: turn ``capture.agent_lessons`` off for a test that
    reads that line."""
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"capture": {"agent_lessons": false}}')


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def store(db_path):
    from memory_cli.db import Store

    s = Store.open(db_path)
    yield s
    s.close()


@pytest.fixture
def project(tmp_path) -> Path:
    """A git-looking project directory named 'whisperclick'."""
    p = tmp_path / "work" / "whisperclick"
    (p / ".git").mkdir(parents=True)
    (p / "src").mkdir()
    return p


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


class HookResult:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.proc = proc
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None

    @property
    def decision(self):
        return ((self.json or {}).get("hookSpecificOutput") or {}).get("permissionDecision")

    @property
    def reason(self) -> str:
        return ((self.json or {}).get("hookSpecificOutput") or {}).get("permissionDecisionReason") or ""

    @property
    def context(self) -> str:
        return ((self.json or {}).get("hookSpecificOutput") or {}).get("additionalContext") or ""

    @property
    def system_message(self) -> str:
        return (self.json or {}).get("systemMessage") or ""

    def __repr__(self):
        return f"HookResult(rc={self.returncode}, stdout={self.stdout!r}, stderr={self.stderr!r})"


def run_hook(
    event: str,
    payload,
    *,
    db: Path | None = None,
    env: dict | None = None,
    timeout: float = 60,
    new_session: bool = False,
) -> HookResult:
    """Run the registered hook command for EVENT with the payload on stdin, as Claude Code does.

    ``new_session`` starts it in a session of its own, so that with autogroup scheduling it
    competes for the CPU as one process among the others rather than sharing one group's
    share with every other process this test run started."""
    cmd = hook_cmd()
    if db is not None:
        cmd += ["--db", str(db)]
    cmd += ["hook", event]
    if isinstance(payload, (dict, list)):
        data = json.dumps(payload)
    else:
        data = payload
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        cmd,
        input=data.encode() if isinstance(data, str) else data,
        capture_output=True,
        env=full_env,
        timeout=timeout,
        start_new_session=new_session,
    )
    return HookResult(
        subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    )


def agent_turn_transcript(
    path, said: str, *, tools=("Edit", "Bash"), error: bool = False, asked_before: str = "fix the login redirect"
):
    """Write a transcript shaped like Claude Code's: the person's request ``asked_before``, then
    one agent turn that called ``tools`` (each answered by a tool result, the last one failing
    when ``error``) and ended by saying ``said``. Returns the path as a string."""
    records = [{"type": "user", "message": {"role": "user", "content": asked_before}, "userType": "external"}]
    for i, name in enumerate(tools):
        tool_input = {"command": "pytest -q"} if name == "Bash" else {"file_path": "/home/u/proj/app.py"}
        records.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"m{i}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": tool_input}],
                },
            }
        )
        failing = error and i == len(tools) - 1
        records.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{i}",
                            "content": "exit 1" if failing else "ok",
                            "is_error": failing,
                        }
                    ],
                },
            }
        )
    records.append(
        {"type": "assistant", "message": {"id": "mz", "role": "assistant", "content": [{"type": "text", "text": said}]}}
    )
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def payload(event: str, *, cwd: str = "/home/u/proj", session_id: str = "abc123", **fields) -> dict:
    """A payload shaped like Claude Code's for ``event``; ``fields`` override or add."""
    base = {
        "session_id": session_id,
        "transcript_path": f"/home/u/.claude/projects/p/{session_id}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event == "PreToolUse":
        base.update(
            tool_name="Bash",
            tool_input={"command": "ls", "description": "list", "timeout": 120000, "run_in_background": False},
            tool_use_id="toolu_01ABC",
        )
    elif event == "PostToolUse":
        base.update(
            tool_name="Bash",
            tool_input={"command": "ls", "description": "list"},
            tool_response={"stdout": "", "stderr": "", "interrupted": False, "isImage": False},
            tool_use_id="toolu_01ABC",
        )
    elif event == "PostToolUseFailure":
        base.update(
            tool_name="Bash",
            tool_input={"command": "ls"},
            error="Command failed",
            is_interrupt=False,
            tool_use_id="toolu_01ABC",
        )
    elif event == "PermissionDenied":  # auto mode's permission check refused the call
        base.update(
            permission_mode="auto",
            tool_name="Bash",
            tool_input={"command": "rm -rf build", "description": "clean"},
            tool_use_id="toolu_01ABC",
            reason="Permission denied",
        )
    elif event == "UserPromptSubmit":
        base.update(prompt="hello")
    elif event == "SessionStart":
        base.update(source="startup", model="claude-sonnet-4-5")
    elif event == "Stop":
        base.update(stop_hook_active=False, last_assistant_message="Done.")
    elif event == "SessionEnd":
        base.update(reason="prompt_input_exit")
    elif event == "PreCompact":
        base.update(trigger="auto", custom_instructions="")
    base.update(fields)
    return base


@pytest.fixture
def cli(db_path):
    def _run(*args, **kw):
        kw.setdefault("db", db_path)
        return run_cli(*args, **kw)

    return _run


@pytest.fixture
def hook(db_path):
    """Run a hook against ``db_path``, created first as `memory-cli install` does (the gate
    refuses every call while the store is missing)."""

    def _run(event, body, **kw):
        kw.setdefault("db", db_path)
        if kw["db"] == db_path and not db_path.exists():
            from memory_cli.db import Store

            Store.open(db_path).close()
        return run_hook(event, body, **kw)

    return _run


def add_rule(db_path, content, **kw):
    """Store a rule through the rules API, in its own connection (as the CLI would)."""
    from memory_cli.db import Store
    from memory_cli.rules import api

    with Store.open(db_path) as s:
        return api.create_rule(s, content, **kw)


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL server for the session, with the team roles and three members' logins."""
    from tests.pgserver import ADMIN_PASSWORD, PASSWORDS, PgServer

    server = PgServer().init().start()
    try:
        from memory_cli.team import api

        api.init(server.url(password=ADMIN_PASSWORD))  # creates the cluster-wide team roles
        for user, pw in PASSWORDS.items():
            server.sql(f"CREATE ROLE {user} LOGIN PASSWORD '{pw}'")
        server.sql("GRANT memory_cli_member TO alice, carol")
        server.sql("GRANT memory_cli_maintainer TO bob")
        yield server
    finally:
        server.destroy()


@pytest.fixture
def team(pg, tmp_path, monkeypatch):
    """A fresh team database on the shared server, and the members' passwords in a pgpass file
    (the documented way: memory-cli never stores a password)."""
    import uuid

    from tests.pgserver import ADMIN_PASSWORD, PASSWORDS, Team

    name = "t_" + uuid.uuid4().hex[:10]
    pg.sql(f"CREATE DATABASE {name}")
    passfile = tmp_path / "pgpass"
    passfile.write_text(
        "".join(f"127.0.0.1:{pg.port}:*:{u}:{p}\n" for u, p in PASSWORDS.items())
        + f"127.0.0.1:{pg.port}:*:postgres:{ADMIN_PASSWORD}\n"
    )
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    r = run_cli("team", "init", pg.url(db=name))
    assert r.returncode == 0, r.stderr
    return Team(pg, name, tmp_path)
