#!/usr/bin/env python3
"""What queueing the transcript costs SessionEnd, beside the interpreter floor.

Whole-process wall time of ``memory-cli hook SessionEnd`` fed a real-shaped payload, interleaved
with the floor ``python -c "import sqlite3, json"``, in three conditions on a store whose daily
maintenance already ran today:

* ``off``: ``llm.session_end = false`` (nothing queued, nothing spawned: the old path);
* ``queue``: the transcript is queued and the session-summary job is spawned (the new path);

and the detached job's own time to summarise the queued transcript (extractive, provider none).
Between runs the script waits for the detached job to finish so runs do not overlap.

    .venv/bin/python scripts/bench_session_end.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = sys.executable
MEMORY_CLI = str(Path(PY).parent / "memory-cli")
FIXTURE = ROOT / "tests" / "fixtures" / "llm" / "session_whisperclick.jsonl"


def timed(cmd, stdin: str | None, env) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, input=stdin, text=True, capture_output=True, env=env, check=False)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    from memory_cli.maintenance import detached
    from memory_cli.store import kvstate
    from memory_cli.store.db import Store

    tmp = Path(tempfile.mkdtemp(prefix="bench-session-end-"))
    try:
        claude = tmp / ".claude"
        (claude / "memory").mkdir(parents=True)
        db = tmp / "memory.db"
        Store.open(db).close()
        env = dict(os.environ, HOME=str(tmp), CLAUDE_CONFIG_DIR=str(claude), MEMORY_CLI_DAEMON_AUTOSTART="0")
        env.pop("MEMORY_CLI_DB", None)
        run_dir = claude / "memory" / "run"
        run_dir.mkdir(parents=True, exist_ok=True)
        detached.write_stamp(run_dir, detached.db_key(db))  # the daily part already ran today
        config = claude / "memory" / "config.json"
        hook = [MEMORY_CLI, "--db", str(db), "hook", "SessionEnd"]
        floor = [PY, "-c", "import sqlite3, json"]
        results = {"floor": [], "off": [], "queue": [], "job": []}
        for i in range(args.runs):
            t = tmp / f"t{i}.jsonl"
            shutil.copy(FIXTURE, t)
            body = json.dumps(
                {
                    "session_id": f"s{i}",
                    "transcript_path": str(t),
                    "cwd": str(tmp),
                    "permission_mode": "default",
                    "hook_event_name": "SessionEnd",
                    "reason": "exit",
                }
            )
            results["floor"].append(timed(floor, None, env))
            config.write_text(json.dumps({"llm": {"session_end": False}}))
            results["off"].append(timed(hook, body, env))
            config.write_text("{}")
            started = time.perf_counter()
            results["queue"].append(timed(hook, body, env))
            while True:  # wait for the detached job to take the transcript off the queue
                with Store.open(db) as store:
                    if not kvstate.with_prefix(store, "llm.pending:"):
                        break
                time.sleep(0.05)
            results["job"].append((time.perf_counter() - started) * 1000)
        print(f"SessionEnd whole process, median of {args.runs} interleaved runs (ms)")
        print(f"{'condition':<44}{'median':>8}{'min':>8}")
        rows = [
            ("floor: python -c 'import sqlite3, json'", "floor"),
            ("SessionEnd, llm.session_end = false", "off"),
            ("SessionEnd, transcript queued + job spawned", "queue"),
            ("hook start -> transcript summarised (job)", "job"),
        ]
        for label, key in rows:
            print(f"{label:<44}{statistics.median(results[key]):>8.1f}{min(results[key]):>8.1f}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
