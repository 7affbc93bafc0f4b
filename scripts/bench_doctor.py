#!/usr/bin/env python3
"""What `memory-cli doctor` costs a newcomer right after `memory-cli install`: the whole run
(`--no-timing` and with the timed hook calls), and its MCP check alone, by the stdlib probe it
uses (:mod:`memory_cli.mcp.probe`) against the MCP SDK client it used before; each printed
beside its floor, a bare interpreter start. Every sample is a fresh process, in a throwaway
HOME, interleaved so a loaded machine slows all alike.

    .venv/bin/python scripts/bench_doctor.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SDK_PROBE = """
import asyncio, subprocess, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from memory_cli.mcp import registration
e = registration.registered("user")
async def run():
    params = StdioServerParameters(command=e["command"], args=list(e["args"]), env=None)
    async with stdio_client(params, errlog=subprocess.DEVNULL) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        return [t.name for t in (await s.list_tools()).tools]
assert asyncio.run(run())
"""
LEAN_PROBE = """
from memory_cli.mcp import registration
from memory_cli.mcp.probe import probe
names, _took, err = probe(registration.registered("user"))
assert names and err is None, err
"""


def _timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        (home / ".claude").mkdir(parents=True)
        env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"))
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["MEMORY_CLI_DAEMON_AUTOSTART"] = "0"
        cli = [sys.executable, "-m", "memory_cli"]
        subprocess.run([*cli, "install", "--no-model"], env=env, check=True, capture_output=True)
        cases = {
            "floor: bare interpreter": [sys.executable, "-c", "pass"],
            "MCP check, SDK client (before)": [sys.executable, "-c", SDK_PROBE],
            "MCP check, stdlib probe (now)": [sys.executable, "-c", LEAN_PROBE],
            "doctor --no-timing": [*cli, "doctor", "--no-timing"],
            "doctor": [*cli, "doctor"],
        }
        times: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(args.runs):
            for name, cmd in cases.items():
                try:
                    times[name].append(_timed(cmd, env))
                except subprocess.CalledProcessError as e:
                    if name != "doctor":  # doctor exits 1 only when a check fails
                        raise SystemExit(f"{name} failed: {e.stderr.decode()[-300:]}") from None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    floor = statistics.median(times["floor: bare interpreter"])
    print(f"runs {args.runs}, load {load:.1f}, {os.cpu_count()} CPUs; fresh processes, medians")
    print(f"{'case':34} {'median ms':>10} {'x floor':>8}")
    for name, ts in times.items():
        if ts:
            m = statistics.median(ts)
            print(f"{name:34} {m:10.0f} {m / floor:8.1f}")


if __name__ == "__main__":
    main()
