#!/usr/bin/env python3
"""Run the whole test suite on a machine loaded on purpose, the way CI runs it on a busy runner.

Starts ``--load`` busy loops (plain CPU spinners, one process each, at normal priority) so that the
load average settles near that number, then runs ``CI=true bash .ci/run`` (the README's second
set-up command: install, lint, the parallel tests, then the exclusive ones) in a fresh clone of
this checkout's HEAD, and stops the loops whatever happens. Repeats ``--runs`` times and prints, per
run, whether it passed, how long it took and the load average seen, so a test that fails only
under load is found before CI finds it.

    .venv/bin/python scripts/load_check.py [--load 8] [--runs 3] [--keep]

The clone shares nothing with this checkout but the package caches (pip's, npm's), as a CI runner
with a warm cache would. ``--in-place`` runs ``make test`` here instead of in a clone (faster:
the environment is already installed). It takes a while: a fresh clone's install and the suite,
times the number of runs; it is not part of CI's time budget.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPIN = "while True:\n    pass\n"


def start_load(n: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(n)
    ]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def clone(dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(dest)], check=True)
    return dest


def one_run(i: int, args) -> dict:
    work = Path(tempfile.mkdtemp(prefix="memory-cli-load-"))
    where = ROOT if args.in_place else clone(work / "clone")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=where, capture_output=True, text=True
    ).stdout.strip()
    cmd = ["make", "test"] if args.in_place else ["bash", ".ci/run"]
    env = dict(os.environ, CI="true")
    env.pop("VIRTUAL_ENV", None)
    log = work / "run.log"
    load = start_load(args.load)
    loads: list[float] = []
    started = time.monotonic()
    try:
        with log.open("w") as fh:
            proc = subprocess.Popen(cmd, cwd=where, env=env, stdout=fh, stderr=subprocess.STDOUT)
            while proc.poll() is None:
                time.sleep(15)
                loads.append(os.getloadavg()[0])
        code = proc.returncode
    finally:
        stop_load(load)
    elapsed = time.monotonic() - started
    tail = log.read_text(errors="replace").splitlines()[-12:]
    result = {
        "run": i,
        "commit": commit,
        "passed": code == 0,
        "exit": code,
        "minutes": round(elapsed / 60, 1),
        "load_avg": round(sum(loads) / len(loads), 1) if loads else None,
        "log": str(log),
        "tail": tail,
    }
    if code == 0 and not args.keep and not args.in_place:
        shutil.rmtree(work / "clone", ignore_errors=True)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=int, default=8, help="busy loops to run beside the suite")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep each clone (failed runs are always kept)")
    ap.add_argument("--in-place", action="store_true", help="run `make test` in this checkout, not a clone")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; {args.load} busy loops beside the suite; {args.runs} run(s)", flush=True)
    results = []
    for i in range(1, args.runs + 1):
        r = one_run(i, args)
        results.append(r)
        outcome = "passed" if r["passed"] else f"FAILED (exit {r['exit']})"
        print(
            f"run {i} ({r['commit']}): {outcome} in {r['minutes']} min, load average {r['load_avg']}; log {r['log']}",
            flush=True,
        )
        if not r["passed"]:
            print("\n".join("    " + line for line in r["tail"]), flush=True)
    return 0 if all(r["passed"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
