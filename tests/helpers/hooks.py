"""Running a hook as Claude Code runs it: the command ``memory-cli install`` registers, a payload
shaped like Claude Code's on stdin, and the answer read back as the agent would read it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from .cli import _cmd

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


def run_agent_hook(db_path, agent: str, event: str, body: dict) -> dict | None:
    """Run the hook command `install --agent AGENT` registers, the payload on stdin; its JSON
    answer (None: it said nothing)."""
    proc = subprocess.run(
        [*hook_cmd(), "--db", str(db_path), "hook", "--agent", agent, event],
        input=json.dumps(body).encode(),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert not proc.stderr.strip(), proc.stderr
    out = proc.stdout.decode().strip()
    return json.loads(out) if out else None
