#!/usr/bin/env python3
"""Dashboard and API timings with 10,000 memories, beside the server's own floor.

A real ``memory-cli serve`` process on 127.0.0.1 and a keep-alive HTTP client, as a browser or
script uses it. For each request: the wall time seen by the client and the server's own time
(its ``Server-Timing`` header: routing, store queries, rendering). The floor is a static file
from the same server (HTTP, security middleware and the event loop, no store), interleaved
with the measured requests so machine noise hits both.

    .venv/bin/python scripts/bench_web.py              # 10,000 memories, 200 runs per row
    .venv/bin/python scripts/bench_web.py --memories 100000 --runs 50
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli import entries  # noqa: E402
from memory_cli.store.db import Store  # noqa: E402

TOKEN = "bench-token-0123456789abcdef"
WORDS = [
    "redis",
    "postgres",
    "deploy",
    "pytest",
    "docker",
    "uv",
    "ruff",
    "timeout",
    "retry",
    "cache",
    "logging",
    "auth",
    "token",
    "ci",
    "build",
    "lint",
    "release",
    "migration",
    "schema",
    "index",
    "queue",
    "worker",
    "cron",
    "backup",
    "alert",
    "metric",
    "trace",
]


def build(db: Path, n: int) -> None:
    rnd = random.Random(7)
    types = entries.TYPES
    with Store.open(db) as store, store.transaction():
        for i in range(n):
            text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 16))) + f" #{i}"
            entries.add(
                store,
                text,
                rnd.choice(types[1:]),
                scope=rnd.choice(["global", "project:web", "project:api"]),
                confidence=round(rnd.uniform(0.1, 1.0), 2),
                category=rnd.choice([None, "timing", "dependency", "behavior"]),
                subject=rnd.choice([None, "redis", "ci", "deploy"]),
            )


def pct(values, q):
    s = sorted(values)
    return s[max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-web-"))
    db = tmp / "memory.db"
    t0 = time.perf_counter()
    build(db, args.memories)
    print(f"built {args.memories:,} memories in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    exe = Path(sys.executable).parent / "memory-cli"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_cli"]
    env = dict(os.environ, MEMORY_CLI_DAEMON_AUTOSTART="0", HOME=str(tmp), CLAUDE_CONFIG_DIR=str(tmp / ".claude"))
    env["MEMORY_CLI_TOKEN"] = TOKEN  # never in argv
    proc = subprocess.Popen(
        cmd + ["--db", str(db), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            print(f"serve did not start: {line!r} {proc.stderr.read()}", file=sys.stderr)
            return 1
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=30)
        headers = {"Authorization": f"Bearer {TOKEN}", "Host": f"127.0.0.1:{m.group(1)}"}

        def get(path):
            t = time.perf_counter()
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            resp.read()
            wall = (time.perf_counter() - t) * 1000
            if resp.status != 200:
                raise SystemExit(f"{path}: HTTP {resp.status}")
            server = float(re.search(r"dur=([\d.]+)", resp.getheader("server-timing")).group(1))
            return wall, server

        rows = [
            ("floor: static file (no store)", "/static/favicon.svg", None),
            ("memories page, 50 rows (HTML)", "/memories", "page < 150 ms"),
            ("memories page, 100 rows, page 50", "/memories?limit=100&offset=4900", "page < 150 ms"),
            ("5 s refresh fragment, 50 rows", "/ui/memories/rows", None),
            ("API list, 50 items", "/api/memories", "p95 < 50 ms"),
            (
                "API list, filtered + sorted",
                "/api/memories?type=fact&min_confidence=0.5&order=confidence",
                "p95 < 50 ms",
            ),
            ("API list, offset 9,000", "/api/memories?offset=9000&limit=50", "p95 < 50 ms"),
            ("API ranked search q= (keywords)", "/api/memories?q=redis+timeout+retry", None),
            ("overview page", "/", None),
        ]
        for _, path, _t in rows:  # warm every route (first request per thread opens its store)
            for _ in range(3):
                get(path)
        results = {path: ([], []) for _, path, _t in rows}
        for _ in range(args.runs):
            for _, path, _t in rows:
                w, s = get(path)
                results[path][0].append(w)
                results[path][1].append(s)
        print(f"\n{args.memories:,} memories, {args.runs} interleaved runs per row, keep-alive client on 127.0.0.1\n")
        print(
            f"| {'request':<34} | {'server p50':>10} | {'server p95':>10} | {'wall p50':>8} | {'wall p95':>8} | target |"
        )
        print(f"|{'-' * 36}|{'-' * 12}|{'-' * 12}|{'-' * 10}|{'-' * 10}|--------|")
        for label, path, target in rows:
            wall, server = results[path]
            verdict = ""
            if target:
                limit = 150 if target.startswith("page") else 50
                value = pct(server, 50) if target.startswith("page") else pct(wall, 95)
                verdict = f"{target}: {'met' if value < limit else 'MISSED'}"
            print(
                f"| {label:<34} | {statistics.median(server):>8.1f} ms | {pct(server, 95):>7.1f} ms | "
                f"{statistics.median(wall):>5.1f} ms | {pct(wall, 95):>5.1f} ms | {verdict} |"
            )
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
