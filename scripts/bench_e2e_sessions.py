"""What memory-cli's hooks add to a whole real Claude Code session, measured end to end.

Runs the pinned Claude Code (``scripts/setup_claude_code.sh``) against the scripted model of
``tests/e2e/standin.py``: sessions of two lengths (``--short`` and ``--long`` Bash calls, one
call per model turn) in three HOMEs, interleaved so that machine load falls on all alike:

- ``mcp_tool``: `memory-cli install` as it is by default (the MCP server answers the per-call
  events), 100 rules;
- ``command``: `memory-cli install` with ``enforcement.hook_route: command`` (a hook process per
  call), the same 100 rules;
- ``bare``: no hooks.

Prints the time added per call (the slope between the two lengths, against bare) and per
session (the rest), then each event kind's own time: in the real sessions (the hook's
``elapsed_ms`` audit rows: from its start to its answer, the process start not included) and
as bare processes started as Claude Code starts them, beside the interpreter floor; and the
machine's load average before and after.

    .venv/bin/python scripts/bench_e2e_sessions.py [--pairs 3] [--short 5] [--long 35]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.sessions import CLAUDE_BIN, E2EHome  # noqa: E402
from tests.e2e.standin import bash  # noqa: E402

RULES = 100
SESSION_EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
# Claude Code's debug log (in every HOME alike) times each mcp_tool hook call from the inside.
DEBUG = ["--debug", "hooks,mcp"]
CALL_EVENTS = ("PreToolUse", "PostToolUse")


def seed_rules(db: Path, n: int = RULES) -> None:
    """n rules none of the benchmark's calls breaks: half command rules that block, half regex
    rules that warn (as scripts/bench_hooks.py seeds them)."""
    from memory_cli.rules import api
    from memory_cli.store.db import Store

    with Store.open(str(db)) as s, s.transaction():
        for i in range(n):
            if i % 2:
                api.create_rule(
                    s, f"Never run legacytool{i}", pattern=f"legacytool{i}", pattern_type="command", action="block"
                )
            else:
                api.create_rule(
                    s,
                    f"Never write forbidden_token_{i}",
                    pattern=rf"forbidden_token_{i}\b",
                    pattern_type="regex",
                    action="warn",
                )


def make_home(root: Path, name: str, route: str | None) -> E2EHome:
    home = E2EHome(root / name, CLAUDE_BIN)
    if route is not None:
        home.write_config({"enforcement": {"hook_route": route}})
        home.install()
        seed_rules(home.db)
        home.cli("rules", "list")  # the rule cache built once, as after any `rules add`
    return home


def script(calls: int) -> list:
    return [bash(f"echo step {i}", f"step {i}") for i in range(calls)] + ["Done."]


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def timed_process(cmd: str, stdin: str, env: dict, n: int) -> float:
    """Median wall time (ms) of ``cmd`` started through /bin/sh as Claude Code starts a hook."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(cmd, shell=True, input=stdin, capture_output=True, text=True, env=env, check=False)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def hook_payload(event: str, home: E2EHome) -> str:
    base = {
        "session_id": "bench-events",
        "transcript_path": str(home.root / "t.jsonl"),
        "cwd": str(home.project),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    extra = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "run the build and tell me what failed"},
        "PreToolUse": {"tool_name": "Bash", "tool_input": {"command": "echo step 1"}, "tool_use_id": "t1"},
        "PostToolUse": {
            "tool_name": "Bash",
            "tool_input": {"command": "echo step 1"},
            "tool_response": {"stdout": "step 1", "stderr": "", "interrupted": False},
            "tool_use_id": "t1",
        },
        "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
        "SessionEnd": {"reason": "other"},
    }[event]
    return json.dumps({**base, **extra})


def mcp_round_trip_ms(home: E2EHome, n: int) -> float:
    """Median time of one PreToolUse answered by a running MCP server (the server started as
    `install` registered it; what Claude Code waits for on the mcp_tool route)."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from memory_cli.hook_routes import mcp_tool_input

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_hook_mcp_route import interpolate  # Claude Code's ${field} interpolation

    entry = json.loads((home.home / ".claude.json").read_text())["mcpServers"]["memory-cli"]
    env = home.env(entry.get("env") or {})
    arguments = interpolate(mcp_tool_input("PreToolUse"), json.loads(hook_payload("PreToolUse", home)))

    async def run() -> list[float]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(home.project))
        out = []
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for _ in range(n + 3):
                t0 = time.perf_counter()
                await s.call_tool("hook", arguments)
                out.append((time.perf_counter() - t0) * 1000)
        return out[3:]  # the first calls import the handlers

    return statistics.median(asyncio.run(run()))


def mcp_hook_spans(home: E2EHome) -> list[float]:
    """ms from Claude Code's "mcp_tool calling" to its "parsed and validated hook JSON output",
    per mcp_tool hook call, read from the sessions' debug logs: what one call waits for."""
    from datetime import datetime

    spans = []
    for path in (home.claude_dir / "debug").glob("*.txt"):
        started = None
        for line in path.read_text(errors="replace").splitlines():
            try:
                at = datetime.fromisoformat(line[:23])
            except ValueError:
                continue
            if "Hooks: mcp_tool calling" in line:
                started = at
            elif started is not None and "parsed and validated hook JSON output" in line:
                spans.append((at - started).total_seconds() * 1000)
                started = None
    return spans


def server_start_ms(cmd: list[str], env: dict, n: int) -> float:
    """Median ms from starting an MCP server to its answer to ``initialize`` (what Claude Code
    waits for before a session's first model request)."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
    }
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        p.stdin.write((json.dumps(hello) + "\n").encode())
        p.stdin.flush()
        p.stdout.readline()
        times.append((time.perf_counter() - t0) * 1000)
        p.stdin.close()
        p.wait()
    return statistics.median(times)


def audit_elapsed(home: E2EHome) -> dict[str, float]:
    rows = home.cli_json("audit", "--action", "hook", "--limit", "100000")
    by: dict[str, list[float]] = {}
    for r in rows:
        if r.get("elapsed_ms") is not None:
            by.setdefault(r["hook_event"], []).append(float(r["elapsed_ms"]))
    return {k: statistics.median(v) for k, v in by.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--short", type=int, default=5)
    ap.add_argument("--long", type=int, default=35)
    ap.add_argument("--process-runs", type=int, default=15)
    args = ap.parse_args()
    if not CLAUDE_BIN.exists():
        print("Claude Code is not installed: run scripts/setup_claude_code.sh", file=sys.stderr)
        return 2
    load_before = loadavg()
    root = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
    homes = {
        "mcp_tool": make_home(root, "mcp", "mcp_tool"),
        "command": make_home(root, "command", "command"),
        "bare": make_home(root, "bare", None),
    }
    lengths = (args.short, args.long)
    times: dict[tuple[str, int], list[float]] = {(k, n): [] for k in homes for n in lengths}
    for _ in range(args.pairs):
        for n in lengths:
            for name, home in homes.items():
                s = home.run_session(f"run the {n} steps", script(n), extra_args=DEBUG, timeout=600)
                if s.returncode != 0 or len(s.main_requests) != n + 1:
                    print(s.describe(), file=sys.stderr)
                    return 1
                times[(name, n)].append(s.elapsed_s)
    med = {k: statistics.median(v) for k, v in times.items()}
    short, long_ = lengths
    print(
        f"Claude Code {CLAUDE_BIN.name} sessions of {short} and {long_} Bash calls, {RULES} rules, "
        f"median of {args.pairs} interleaved runs; load average before {load_before}, after {loadavg()}"
    )
    print(
        f"{'setup':10s} {f'{short} calls s':>11s} {f'{long_} calls s':>12s} {'per call ms':>12s} {'per session s':>14s}"
    )
    base_slope = (med[("bare", long_)] - med[("bare", short)]) / (long_ - short)
    for name in homes:
        slope = (med[(name, long_)] - med[(name, short)]) / (long_ - short)
        added_call = (slope - base_slope) * 1000
        added_session = (med[(name, short)] - med[("bare", short)]) - short * added_call / 1000
        extra = "" if name == "bare" else f" {added_call:12.1f} {added_session:14.2f}"
        print(f"{name:10s} {med[(name, short)]:11.2f} {med[(name, long_)]:12.2f}{extra}")
    mins = {k: min(v) for k, v in times.items()}
    base_min = (mins[("bare", long_)] - mins[("bare", short)]) / (long_ - short)
    for name in ("mcp_tool", "command"):
        slope = (mins[(name, long_)] - mins[(name, short)]) / (long_ - short)
        added_call = (slope - base_min) * 1000
        added_session = (mins[(name, short)] - mins[("bare", short)]) - short * added_call / 1000
        print(f"{name:10s} from the fastest runs: {added_call:.1f} ms per call, {added_session:.2f} s per session")
    spans = mcp_hook_spans(homes["mcp_tool"])
    if spans:
        spans.sort()
        print(
            f"mcp_tool hook calls inside Claude Code (debug log, {len(spans)} calls): median "
            f"{statistics.median(spans):.1f} ms, p90 {spans[int(0.9 * (len(spans) - 1))]:.1f} ms each; "
            "two per tool call (PreToolUse, PostToolUse)"
        )
    print("targets: <= 5 ms per call, <= 0.5 s per session (added against bare)")

    print()
    print("per event kind, ms (median): in the sessions = the hook's own elapsed_ms from its audit rows")
    in_mcp, in_cmd = audit_elapsed(homes["mcp_tool"]), audit_elapsed(homes["command"])
    home = homes["command"]
    settings = home.settings()["hooks"]
    env = home.env()
    py = Path(sys.executable)
    floor = timed_process(f"{shlex.quote(str(py))} -c 'import sqlite3, json'", "", env, args.process_runs)
    bare_py = timed_process(f"{shlex.quote(str(py))} -I -S -c pass", "", env, args.process_runs)
    print(f"{'event':20s} {'mcp_tool route':>15s} {'command route':>14s} {'as a process':>13s} {'x floor':>8s}")
    for event in SESSION_EVENTS[:2] + CALL_EVENTS + SESSION_EVENTS[2:]:
        cmd = settings[event][0]["hooks"][0]["command"]
        proc = timed_process(cmd, hook_payload(event, home), env, args.process_runs)
        a, b = in_mcp.get(event), in_cmd.get(event)
        print(
            f"{event:20s} {'' if a is None else f'{a:.1f}':>15s} {'' if b is None else f'{b:.1f}':>14s}"
            f" {proc:13.1f} {proc / floor:8.2f}"
        )
    rt = mcp_round_trip_ms(homes["mcp_tool"], args.process_runs)
    print(f"{'PreToolUse via MCP':20s} {'':>15s} {'':>14s} {rt:13.1f} {rt / floor:8.2f}  (one tools/call round trip)")
    entry = json.loads((homes["mcp_tool"].home / ".claude.json").read_text())["mcpServers"]["memory-cli"]
    server_env = homes["mcp_tool"].env(entry.get("env") or {})
    lean = server_start_ms([entry["command"], *entry["args"]], server_env, args.process_runs)
    sdk_cmd = [sys.executable, "-c", "from memory_cli.mcp import server; server.app.run('stdio')"]
    sdk = server_start_ms(sdk_cmd, server_env, args.process_runs)
    print(f"{'MCP server start':20s} {'':>15s} {'':>14s} {lean:13.1f} {lean / floor:8.2f}  (to `initialize` answered)")
    print(
        f"{'  the SDK server':20s} {'':>15s} {'':>14s} {sdk:13.1f} {sdk / floor:8.2f}  (as before: imports the MCP SDK)"
    )
    print(f"floor: python -c 'import sqlite3, json' {floor:.1f} ms; python -I -S -c pass {bare_py:.1f} ms")
    print(f"load average at the end: {loadavg()} ({os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
