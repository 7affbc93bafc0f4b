#!/usr/bin/env python3
"""How fast `rules replay` goes through a person's recorded history, beside reading it alone.

Writes N recorded tool calls as the three agents write them (Claude Code transcripts, Codex
rollouts, Gemini CLI chats; a third of the calls each, 50 calls a session, each with the prompt,
the result records and the metadata around it that real logs carry) into a throwaway HOME, then
times, best of ``--runs``:
- read: every session file found and parsed into calls (``memory_cli.replay.run.sessions``);
- replay: read plus every call through the hook's engine, for a command rule (``git commit``)
  and a regex rule on written files (``\\.env$``), as ``rules replay`` does.

    .venv/bin/python scripts/bench_replay.py                 # 10,000 and 100,000 calls
    .venv/bin/python scripts/bench_replay.py --calls 10000 --runs 1
    .venv/bin/python scripts/bench_replay.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory_cli.replay import run  # noqa: E402

PER_SESSION = 50
COMMANDS = [
    "git status",
    "git diff --stat",
    'git commit -m "fix: handle empty input"',
    "git log --oneline -5",
    "npm test",
    "npm install --save-dev vitest",
    "python -m pytest -q tests/test_parser.py",
    "ls -la src",
    "cat package.json | head -40",
    "rg -n 'TODO' src",
    "docker compose up -d db",
    "make build && ./dist/app --version",
]
FILES = ["src/app.py", "src/parser.ts", "README.md", "config/.env", "tests/test_app.py"]


def _body(rng) -> str:
    return "\n".join(f"line {i}: " + "x" * rng.randint(10, 80) for i in range(rng.randint(5, 60)))


def _call(rng):
    r = rng.random()
    if r < 0.55:
        return "Bash", {"command": rng.choice(COMMANDS), "description": "run a command"}
    if r < 0.75:
        return "Write", {"file_path": "/work/app/" + rng.choice(FILES), "content": _body(rng)}
    if r < 0.9:
        return "Edit", {"file_path": "/work/app/" + rng.choice(FILES), "old_string": "a = 1", "new_string": "a = 2"}
    return "Read", {"file_path": "/work/app/" + rng.choice(FILES)}


def _ts(n: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_790_000_000 + n)) + ".000Z"


def write_claude(home, sid, calls, rng):
    d = os.path.join(home, ".claude", "projects", "-work-app")
    os.makedirs(d, exist_ok=True)
    base = {"sessionId": sid, "cwd": "/work/app", "version": "2.1.0", "gitBranch": "main", "isSidechain": False}
    out = [dict(base, type="user", uuid=f"{sid}-p", timestamp=_ts(0), message={"role": "user", "content": "go on"})]
    for n, (tool, ti) in enumerate(calls):
        tid = f"toolu_{sid}_{n}"
        out.append(
            dict(
                base,
                type="assistant",
                uuid=f"{sid}-a{n}",
                timestamp=_ts(n),
                message={
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [
                        {"type": "text", "text": "Let me do that."},
                        {"type": "tool_use", "id": tid, "name": tool, "input": ti},
                    ],
                    "usage": {"input_tokens": 1000, "output_tokens": 50},
                },
            )
        )
        out.append(
            dict(
                base,
                type="user",
                uuid=f"{sid}-r{n}",
                timestamp=_ts(n),
                message={
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tid, "content": _body(rng)}],
                },
            )
        )
    with open(os.path.join(d, f"{sid}.jsonl"), "w") as f:
        f.write("\n".join(json.dumps(r) for r in out) + "\n")


def write_codex(home, sid, calls, rng):
    d = os.path.join(home, ".codex", "sessions", "2026", "11", "27")
    os.makedirs(d, exist_ok=True)
    out = [
        {
            "timestamp": _ts(0),
            "type": "session_meta",
            "payload": {"id": sid, "cwd": "/work/app", "cli_version": "0.169.0"},
        },
        {
            "timestamp": _ts(0),
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]},
        },
    ]
    for n, (tool, ti) in enumerate(calls):
        if tool == "Bash":
            item = {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": ti["command"]}),
                "call_id": f"call_{n}",
            }
        else:
            path = ti["file_path"][len("/work/app/") :]
            patch = (
                f"*** Begin Patch\n*** Add File: {path}\n+"
                + (ti.get("content") or ti.get("new_string") or "").replace("\n", "\n+")
                + "\n*** End Patch\n"
            )
            item = {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": f"call_{n}"}
        out.append({"timestamp": _ts(n), "type": "response_item", "payload": item})
        out.append(
            {
                "timestamp": _ts(n),
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"call_{n}", "output": _body(rng)},
            }
        )
        out.append(
            {"timestamp": _ts(n), "type": "event_msg", "payload": {"type": "token_count", "info": {"total_tokens": n}}}
        )
    with open(os.path.join(d, f"rollout-2026-11-27T10-00-00-{sid}.jsonl"), "w") as f:
        f.write("\n".join(json.dumps(r) for r in out) + "\n")


GEMINI_TOOLS = {"Bash": "run_shell_command", "Write": "write_file", "Edit": "replace", "Read": "read_file"}


def write_gemini(home, sid, calls, rng):
    d = os.path.join(home, ".gemini", "tmp", "app")
    os.makedirs(os.path.join(d, "chats"), exist_ok=True)
    with open(os.path.join(d, ".project_root"), "w") as f:
        f.write("/work/app")
    out = [
        {"sessionId": sid, "projectHash": "0" * 64, "startTime": _ts(0), "kind": "main"},
        {"id": f"{sid}-p", "timestamp": _ts(0), "type": "user", "content": [{"text": "go on"}]},
    ]
    for n, (tool, ti) in enumerate(calls):
        cid = f"{GEMINI_TOOLS[tool]}_{sid}_{n}"
        out.append(
            {"id": f"{sid}-m{n}", "timestamp": _ts(n), "type": "gemini", "content": "", "model": "gemini-2.5-pro"}
        )
        out.append({"$set": {"lastUpdated": _ts(n)}})
        out.append(
            {
                "id": f"{sid}-m{n}",
                "timestamp": _ts(n),
                "type": "gemini",
                "content": "",
                "model": "gemini-2.5-pro",
                "toolCalls": [
                    {
                        "id": cid,
                        "name": GEMINI_TOOLS[tool],
                        "args": ti,
                        "status": "success",
                        "timestamp": _ts(n),
                        "result": [
                            {
                                "functionResponse": {
                                    "id": cid,
                                    "name": GEMINI_TOOLS[tool],
                                    "response": {"output": _body(rng)},
                                }
                            }
                        ],
                    }
                ],
            }
        )
    with open(os.path.join(d, "chats", f"session-2026-11-27T10-00-{sid[:8]}.jsonl"), "w") as f:
        f.write("\n".join(json.dumps(r) for r in out) + "\n")


def build(home: str, calls: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    writers = [write_claude, write_codex, write_gemini]
    n = 0
    s = 0
    while n < calls:
        k = min(PER_SESSION, calls - n)
        writers[s % 3](home, f"{s:08d}-0000-4000-8000-{s:012d}", [_call(rng) for _ in range(k)], rng)
        n += k
        s += 1


def measure(home: str, runs: int) -> dict:
    def best(fn):
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        return min(times), out

    read_s, sessions = best(lambda: list(run.sessions(home)))
    calls = sum(len(s.calls) for s in sessions)
    out = {"calls": calls, "sessions": len(sessions), "read_s": read_s}
    for name, row in (
        ("command", run.pattern_row("git commit", "command")),
        ("regex", run.pattern_row(r"\.env$", "regex", tools=["Write", "Edit"])),
    ):
        total, report = best(lambda row=row: run.replay(row, home=home))
        out[name] = {
            "total_s": total,
            "check_s": report.check_s,
            "fired": report.fired,
            "calls_per_s": calls / total if total else 0.0,
            "checked_per_s": calls / report.check_s if report.check_s else 0.0,
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, action="append", help="recorded calls (repeatable; default 10000 and 100000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = []
    for n in args.calls or [10_000, 100_000]:
        home = tempfile.mkdtemp(prefix="bench-replay-")
        try:
            build(home, n)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(home) for f in fs)
            r = measure(home, args.runs)
            r["bytes"] = size
            results.append(r)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{'calls':>8} {'sessions':>8} {'MB':>6} {'read s':>7} | {'replay s':>8} {'calls/s':>8} {'checks/s':>9}"
        f" (command rule) | {'replay s':>8} {'calls/s':>8} {'checks/s':>9} (regex rule)"
    )
    for r in results:
        c, x = r["command"], r["regex"]
        print(
            f"{r['calls']:>8} {r['sessions']:>8} {r['bytes'] / 1e6:>6.1f} {r['read_s']:>7.2f} |"
            f" {c['total_s']:>8.2f} {c['calls_per_s']:>8,.0f} {c['checked_per_s']:>9,.0f}                |"
            f" {x['total_s']:>8.2f} {x['calls_per_s']:>8,.0f} {x['checked_per_s']:>9,.0f}"
        )
    print("replay s: read + check, as `rules replay` runs; calls/s: calls / replay s; checks/s: the engine alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
