#!/usr/bin/env python3
"""What a Stop check costs per turn, measured: memory-cli's own Stop hook (the command Claude Code
runs, on a real store and a transcript of a long turn) with no lesson, with a deterministic
lesson ("always commit before you finish a turn that edited files") and with judged lessons
(which it only counts); and the judge's request in characters and estimated tokens (about 4
characters a token) for 1 and 8 lessons. The model's own time for a judged lesson is Claude
Code's evaluator (its small fast model) and is not measured here: no model service is reachable
offline; ``tests/e2e/test_e2e_stop_checks.py`` shows the round trip through the real binary.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_stop_checks.py [--runs 15] [--calls 200]

Timings are printed beside their floor (the Stop hook with no lesson): a budget, not an assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def transcript(path: Path, calls: int) -> None:
    recs = [{"type": "user", "message": {"role": "user", "content": "refactor the parser"}}]
    for i in range(calls):
        name, inp = ("Edit", {"file_path": f"src/m{i}.py"}) if i % 3 == 0 else ("Bash", {"command": f"pytest -q t{i}"})
        recs.append(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": inp}],
                },
            }
        )
        recs.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok " * 200}],
                },
            }
        )
    recs.append({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def run_hook(launcher: list[str], db: Path, payload: dict, env: dict, event: str = "Stop") -> tuple[float, dict | None]:
    t0 = time.perf_counter()
    p = subprocess.run(
        [*launcher, "--db", str(db), "hook", event], input=json.dumps(payload), capture_output=True, text=True, env=env
    )
    ms = (time.perf_counter() - t0) * 1000
    return ms, (json.loads(p.stdout) if p.stdout.strip().startswith("{") else None)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    from memory_cli.checks import judge
    from memory_cli.install import hook_launcher

    launcher = shlex.split(hook_launcher())
    tmp = Path(tempfile.mkdtemp(prefix="bench-stop-"))
    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), MEMORY_CLI_DAEMON_AUTOSTART="0")
    project = home / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    db = tmp / "memory.db"
    t = tmp / "turn.jsonl"
    transcript(t, a.calls)
    cli = [sys.executable, "-m", "memory_cli", "--db", str(db)]

    def approve(said: str, form: str) -> None:
        cid = json.loads(
            subprocess.run(
                [*cli, "capture", "-m", said, "--json"],
                capture_output=True,
                text=True,
                env=env,
                cwd=project,
                check=True,
            ).stdout
        )["id"]
        subprocess.run(
            [*cli, "review", "--approve", cid, "--form", form], capture_output=True, env=env, cwd=project, check=True
        )

    def measure(label: str, session: str) -> float:
        for i in range(3):  # warm the page cache and the bytecode first
            run_hook(
                launcher,
                db,
                {
                    "session_id": f"w{session}{i}",
                    "transcript_path": str(t),
                    "cwd": str(project),
                    "hook_event_name": "Stop",
                },
                env,
            )
        times = []
        for i in range(a.runs):
            payload = {
                "session_id": f"{session}{i}",
                "transcript_path": str(t),
                "cwd": str(project),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": "Done.",
            }
            ms, out = run_hook(launcher, db, payload, env)
            times.append(ms)
        med = statistics.median(times)
        print(f"  {label:<44} median {med:7.1f} ms  (p90 {sorted(times)[int(0.9 * len(times)) - 1]:.1f} ms)")
        return med

    subprocess.run([*cli, "stats"], capture_output=True, env=env, cwd=project)  # create the store
    print(
        f"Stop hook on a turn of {a.calls} calls ({t.stat().st_size // 1024} KiB transcript), {a.runs} runs each, load {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    floor = measure("no lesson (floor)", "a")
    approve("no, state your confidence when you ask me something", "stop-check")
    judged = measure("1 judged lesson (counted only)", "b")
    approve("no, always commit before you finish a turn that edited files", "stop-check")
    det = measure("+ commit lesson (deterministic, turn read)", "c")
    print(f"  extra over the floor: judged {judged - floor:+.1f} ms, deterministic {det - floor:+.1f} ms")

    def measure_pre(label: str) -> float:
        body = {
            "session_id": "p",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "transcript_path": str(t),
        }
        for _ in range(3):
            run_hook(launcher, db, body, env, "PreToolUse")
        times = sorted(run_hook(launcher, db, body, env, "PreToolUse")[0] for _ in range(a.runs))
        med = statistics.median(times)
        print(f"  {label:<44} median {med:7.1f} ms  (p90 {times[int(0.9 * len(times)) - 1]:.1f} ms)")
        return med

    print("PreToolUse (Bash) with the lessons above, then with a reminder lesson about Bash:")
    pre = measure_pre("no reminder")
    approve("no, run commands through the project's MCP shell tool, not Bash", "reminder")
    pre_rem = measure_pre("1 reminder lesson (its context added)")
    print(f"  extra over no reminder: {pre_rem - pre:+.1f} ms")
    one = judge.prompt([("00000000", "State your confidence when you ask me something.")])
    eight = judge.prompt(
        [
            (f"{i:08d}", "State your confidence when you ask me something, and say which files changed.")
            for i in range(8)
        ]
    )
    print("Judge request (memory-cli's part; Claude Code adds its own system prompt and the conversation):")
    for label, text in (("1 lesson", one), ("8 lessons (the cap)", eight)):
        print(f"  {label:<20} {len(text):5d} chars  ~{len(text) // 4:4d} tokens  + the hook input (the final message)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
