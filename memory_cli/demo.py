"""A whole Claude Code session, scripted, through the real ``memory-cli hook`` entry points.

Every hook starts the command ``install`` registers as Claude Code would (a fresh process, the
event JSON on stdin) against a throwaway database, Claude configuration directory and project,
and narrates what memory-cli answered; the person's commands run the CLI's own ``main`` in this
process, as typed. Each step states what a person should see; the demo exits
non-zero if any expectation is not met, so it doubles as an end-to-end smoke test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class Demo:
    def __init__(self, root: Path, db: Path, out=None, color: bool = True):
        self.root = root
        self.db = db
        self.out = out or sys.stdout
        self.color = color
        self.claude = root / "claude"
        self.project = root / "whisperclick"
        self.transcript = root / "transcript-s1.jsonl"
        self.failures: list[str] = []
        self.hook_argv: list[str] | None = None  # the command `install` registers, built once
        self.env = dict(
            os.environ,
            CLAUDE_CONFIG_DIR=str(self.claude),
            CLAUDE_PROJECT_DIR=str(self.project),
            MEMORY_CLI_CONFIG=str(self.claude / "memory" / "config.json"),
        )
        self.env.pop("MEMORY_CLI_DB", None)
        self.env.pop("MEMORY_CLI_HOOK_DEBUG", None)

    # -- plumbing --------------------------------------------------------------------------
    def _c(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def cli(self, *args: str, quiet: bool = False) -> subprocess.CompletedProcess:
        proc = self._cli_in_process(["--db", str(self.db), *args])
        if not quiet:
            self.say(self._c("2", "  $ memory-cli " + " ".join(_q(a) for a in args)))
            for line in (proc.stdout.strip().splitlines() or [])[:14]:
                self.say("    " + line)
        return proc

    def _cli_in_process(self, argv: list[str]) -> subprocess.CompletedProcess:
        """The CLI's own ``main`` run in this process, with the demo's environment, working
        directory and streams: what the person would see from ``memory-cli ARGS``, without a
        new interpreter (and typer, rich, pydantic) per command. Hooks still run as processes,
        as Claude Code runs them."""
        from .cli.in_process import run_in_process

        return run_in_process(argv, env=self.env, replace_env=True, cwd=self.project)

    def hook(self, event: str, session: str = "demo-session-1", **fields) -> dict:
        payload = {
            "session_id": session,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project / "src"),
            "permission_mode": "default",
            "hook_event_name": event,
        }
        payload.update(fields)
        if self.hook_argv is None:
            import shlex

            from .install import hook_launcher

            self.hook_argv = shlex.split(hook_launcher())
        t0 = time.perf_counter()
        proc = subprocess.run(
            self.hook_argv + ["--db", str(self.db), "hook", event],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=self.env,
            cwd=str(self.project),
            timeout=60,
        )
        ms = (time.perf_counter() - t0) * 1000
        answer = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
        spec = answer.get("hookSpecificOutput") or {}
        summary = {
            "exit": proc.returncode,
            "ms": ms,
            "decision": spec.get("permissionDecision"),
            "reason": spec.get("permissionDecisionReason") or answer.get("reason"),
            "context": spec.get("additionalContext"),
            "message": answer.get("systemMessage"),
            "raw": answer,
            "stderr": proc.stderr,
        }
        self.say(self._c("2", f"  -> memory-cli hook {event}: exit {proc.returncode}, {ms:.0f} ms whole process"))
        if summary["decision"]:
            self.say(
                f"     permissionDecision: {self._c('1;31' if summary['decision'] == 'deny' else '1;33', summary['decision'])}"
            )
        for label, key in (
            ("reason (Claude sees)", "reason"),
            ("additionalContext (Claude sees)", "context"),
            ("systemMessage (you see)", "message"),
        ):
            if summary[key]:
                self.say(f"     {label}:")
                for line in str(summary[key]).splitlines()[:18]:
                    self.say("       " + line)
        if not answer:
            self.say("     (no output: the call proceeds as normal)")
        if proc.returncode != 0:
            self.failures.append(f"{event} exited {proc.returncode}")
        return summary

    def expect(self, ok: bool, what: str) -> None:
        mark = self._c("32", "ok") if ok else self._c("31", "MISSING")
        self.say(f"     [{mark}] {what}")
        if not ok:
            self.failures.append(what)

    def step(self, title: str, explain: str) -> None:
        self.say()
        self.say(self._c("1;36", f"== {title}"))
        self.say("   " + explain)

    def write_transcript(self, records: list[dict]) -> None:
        with open(self.transcript, "a", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")

    # -- the session -----------------------------------------------------------------------
    def run(self) -> int:
        (self.project / ".git").mkdir(parents=True, exist_ok=True)
        (self.project / "src").mkdir(exist_ok=True)
        (self.claude / "memory").mkdir(parents=True, exist_ok=True)
        self.transcript.touch()
        self.say(self._c("1", "memory-cli demo: one scripted Claude Code session through the real hook entry points"))
        self.say(f"   database {self.db}\n   project  {self.project}\n   claude   {self.claude}")

        self.step("1. You teach it a few things", "Rules and knowledge you want every session to respect.")
        r = self.cli(
            "add", "--type", "rule", "--content", "Never use pythonw.exe", "--scope", "global", "--confidence", "1.0"
        )
        self.pythonw_rule = r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else None
        self.cli(
            "add",
            "--type",
            "rule",
            "--content",
            "Never run git push --force on main; use --force-with-lease",
            "--scope",
            "project:whisperclick",
            "--action",
            "block",
            "--pattern",
            "git push --force",
            "--pattern-type",
            "command",
            "--alternative",
            "git push --force-with-lease",
        )
        self.cli(
            "add",
            "--type",
            "fact",
            "--scope",
            "project:whisperclick",
            "--tags",
            "pywebview,drag",
            "--content",
            "Window drag is started with the WM_APP_DRAGSTART message; pywebview's move() "
            "from the UI thread freezes the window",
        )
        self.cli(
            "add",
            "--type",
            "pattern",
            "--scope",
            "project:whisperclick",
            "--tags",
            "error,pywebview",
            "--content",
            "ModuleNotFoundError: No module named 'webview' means the venv is not active: "
            "run .venv/bin/python, or pip install pywebview inside the venv",
        )
        self.cli(
            "add",
            "--type",
            "decision",
            "--scope",
            "project:whisperclick",
            "--content",
            "Decided to keep settings in a JSON file; rejected SQLite for settings (overkill for 12 keys)",
        )
        self.expect(self.pythonw_rule is not None, "the rule was stored and its id printed")

        self.step("2. A session starts", "SessionStart: memory-cli injects what applies to this project.")
        s = self.hook("SessionStart", source="startup", model="claude-sonnet-4-5")
        ctx = s["context"] or ""
        self.expect("pythonw" in ctx, "the global pythonw.exe rule is injected")
        self.expect("WM_APP_DRAGSTART" in ctx, "the project's drag fact is injected")

        self.step("3. Claude tries a forbidden command", "PreToolUse on `cd app && pythonw.exe src/main.py`.")
        s = self.hook(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_demo1",
            tool_input={
                "command": "cd app && pythonw.exe src/main.py",
                "description": "Run the app",
                "timeout": 120000,
                "run_in_background": False,
            },
        )
        self.expect(s["decision"] == "deny", "blocked, with the rule named")

        self.step(
            "4. The same word as an argument is fine", "PreToolUse on `grep pythonw.exe notes.md`: no false block."
        )
        s = self.hook(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_demo2",
            tool_input={"command": "grep pythonw.exe notes.md", "description": "search notes"},
        )
        self.expect(s["decision"] is None, "allowed: pythonw.exe is an argument here, not the program run")

        self.step("5. A project rule", "PreToolUse on `git push --force origin main` in this project.")
        s = self.hook(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_demo3",
            tool_input={"command": "git push --force origin main"},
        )
        self.expect(s["decision"] == "deny", "blocked with the alternative --force-with-lease")

        self.step(
            "6. Verification after the fact", "PostToolUse: Claude wrote a launcher script that uses pythonw.exe."
        )
        launcher = str(self.project / "run.bat")
        s = self.hook(
            "PostToolUse",
            tool_name="Write",
            tool_use_id="toolu_demo4",
            tool_input={"file_path": launcher, "content": "@echo off\npythonw.exe src\\main.py\n"},
            tool_response={"filePath": launcher, "success": True},
        )
        self.expect(bool(s["reason"] or s["context"]), "the violation is fed back to Claude and counted")

        self.step(
            "7. You correct Claude",
            "UserPromptSubmit: the hook keeps corrections for review without any LLM, quietly; Claude, taught at "
            "session start, records the lesson itself with your words quoted.",
        )
        self.write_transcript(
            [
                {
                    "type": "assistant",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "I'll install the dependencies."},
                            {"type": "tool_use", "name": "Bash", "input": {"command": "npm install"}},
                        ],
                    },
                }
            ]
        )
        s = self.hook("UserPromptSubmit", prompt="No, use pnpm, not npm.")
        waiting = self.cli("review", "--list", "--json", quiet=True)
        self.expect(
            "pnpm" in waiting.stdout and "Recorded correction" not in (s["context"] or ""),
            "the correction waits for review; the hook tells Claude nothing it might have misread",
        )
        s = self.hook(
            "Stop",
            stop_hook_active=False,
            last_assistant_message='Switching to pnpm.\n[LESSON: "No, use pnpm, not npm." -> Use pnpm, not npm]',
        )
        self.expect(
            not s["reason"],
            "Claude's lesson quotes what you typed, so it is accepted and waits for review as the agent's",
        )
        self.hook("UserPromptSubmit", session="demo-session-2", prompt="I already told you: use pnpm instead of npm")
        s = self.hook("UserPromptSubmit", session="demo-session-3", prompt="Again, don't use npm, use pnpm")
        self.expect(
            "rule" in (s["message"] or "").lower(), "third time, two sessions: a rule is proposed (warn) for review"
        )
        s = self.hook(
            "PreToolUse", session="demo-session-3", tool_name="Bash", tool_input={"command": "npm install left-pad"}
        )
        self.expect(
            s["decision"] is None and "pnpm" in (s["context"] or ""), "the proposed rule warns, it does not block"
        )
        s = self.hook("PreToolUse", session="demo-session-3", tool_name="Bash", tool_input={"command": "pnpm install"})
        self.expect(not s["context"] and s["decision"] is None, "`pnpm install` is not mistaken for npm")
        self.cli("review", "--list")

        self.step("8. Claude records what it learned", "Stop: [MEMORY:...] markers in Claude's own text are stored.")
        s = self.hook(
            "Stop",
            stop_hook_active=False,
            last_assistant_message=(
                "Restarted the service.\n[MEMORY:timing:jellyfin] Takes 60s to start after restart -- wait before checking health"
            ),
        )
        q = self.cli("query", "how long does jellyfin take to start", "--json", quiet=True)
        self.expect("60s" in q.stdout, "the marker is now a memory")

        self.step("9. Pin a critical rule", "Pinned rules are written into CLAUDE.md so they survive compaction.")
        if self.pythonw_rule:
            self.cli("pin", self.pythonw_rule)
        claude_md = self.claude / "CLAUDE.md"
        self.expect(claude_md.exists() and "pythonw" in claude_md.read_text(), f"{claude_md} holds the pinned rule")
        self.hook("PreCompact", trigger="auto", custom_instructions="")
        s = self.hook("SessionStart", source="compact")
        self.expect("pythonw" in (s["context"] or ""), "after compaction the pinned rule is injected again")

        self.step("10. A tool fails", "PostToolUseFailure: past solutions to similar errors are offered.")
        s = self.hook(
            "PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": "python src/main.py"},
            error="Traceback (most recent call last):\nModuleNotFoundError: No module named 'webview'",
            is_interrupt=False,
            tool_use_id="toolu_demo5",
        )
        self.expect("venv" in (s["context"] or ""), "the remembered fix is offered")

        self.step("11. The session ends", "SessionEnd: maintenance (decay, backup, log retention) is handed off.")
        self.hook("SessionEnd", reason="prompt_input_exit")

        self.step("12. Inspect everything", "All of it is visible and auditable.")
        self.cli("stats")
        self.cli("audit", "--limit", "8")
        self.cli("daemon", "stop", quiet=True)

        self.say()
        if self.failures:
            self.say(self._c("1;31", f"demo finished with {len(self.failures)} unmet expectation(s):"))
            for f in self.failures:
                self.say("  - " + f)
            return 1
        self.say(self._c("1;32", "demo finished: every step behaved as described"))
        return 0


def _q(a: str) -> str:
    return a if a and all(c.isalnum() or c in "-_./:=," for c in a) else json.dumps(a)


def _command() -> str:
    """How to run this memory-cli from anywhere: the console script beside this interpreter by
    absolute path (``make demo`` puts it in .venv/bin, which is not on PATH)."""
    exe = Path(sys.executable).parent / "memory-cli"
    return _q(str(exe)) if exe.exists() else f"{_q(sys.executable)} -m memory_cli"


def _keep_store(db_path: Path) -> Path | None:
    """A copy of the demo's store that outlives its throwaway folder (one, replaced each run)."""
    import sqlite3

    dest = Path(tempfile.gettempdir()) / f"memory-cli-demo-{os.getuid() if hasattr(os, 'getuid') else 'user'}.db"
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(str(dest) + suffix).unlink(missing_ok=True)
        src, dst = sqlite3.connect(str(db_path)), sqlite3.connect(str(dest))
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        os.chmod(dest, 0o600)
    except (OSError, sqlite3.Error):
        return None
    return dest


def run(db: str | None = None, keep: bool = False, color: bool | None = None) -> int:
    root = Path(tempfile.mkdtemp(prefix="memory-cli-demo-"))
    db_path = Path(db).expanduser().resolve() if db else root / "memory.db"
    color = sys.stdout.isatty() if color is None else color
    demo = Demo(root, db_path, color=color)
    try:
        code = demo.run()
        cmd = _command()
        kept = db_path if (keep or db) else _keep_store(db_path)
        if kept is not None:
            demo.say(f"see the demo's store in your browser: {cmd} --db {_q(str(kept))} serve --open")
        demo.say(f"and your own store: {cmd} serve --open")
        return code
    finally:
        if keep or db:
            demo.say(f"(demo files kept in {root})")
        else:
            shutil.rmtree(root, ignore_errors=True)
