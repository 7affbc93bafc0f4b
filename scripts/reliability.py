#!/usr/bin/env python3
"""Reliability harness: memory-cli under concurrency, crashes, hostile input and faults.

Every row drives real processes (the installed ``memory-cli`` entry point, real SQLite files,
the real embedding daemon) in a throwaway CLAUDE_CONFIG_DIR, and prints one markdown table row
with its figures. The exit status is non-zero when any checked row fails.

    .venv/bin/python scripts/reliability.py            # full run (the README figures)
    .venv/bin/python scripts/reliability.py --quick    # small counts, for the test suite
    .venv/bin/python scripts/reliability.py --only fuzz,disk --report-only gate

Rows: concurrent writers (CLI + library + hooks on one store), kill -9 during write batches,
fuzzed hook payloads for every registered event, the embedding daemon killed or frozen while
hooks run, a full disk, and the gate under CPU load (measured; ``--report-only gate`` keeps it
out of the exit status).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIN = Path(sys.executable).parent / "memory-cli"
MC = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "memory_cli"]
EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "Stop",
    "PreCompact",
    "SessionEnd",
]


class Ctx:
    def __init__(self, base: Path, quick: bool, fuzz: int = 0):
        self.base = base
        self.quick = quick
        self.fuzz = fuzz
        self.claude = base / "claude"
        self.claude.mkdir(parents=True, exist_ok=True)
        self.env = dict(
            os.environ,
            CLAUDE_CONFIG_DIR=str(self.claude),
            HOME=str(base),
            MEMORY_CLI_DAEMON_AUTOSTART="0",
            PYTHONPATH=str(ROOT),
        )
        for var in ("MEMORY_CLI_DB", "MEMORY_CLI_CONFIG", "CLAUDE_PROJECT_DIR", "MEMORY_CLI_HOOK_DEBUG"):
            self.env.pop(var, None)

    def cli(self, db, *args, timeout=120, env=None, input=None, preexec_fn=None):
        cmd = MC + ["--db", str(db)] + [str(a) for a in args]
        return subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
            env=dict(self.env, **(env or {})),
            preexec_fn=preexec_fn,
        )

    def hook(self, db, event, body: bytes, timeout=60, env=None):
        t = time.perf_counter()
        try:
            p = subprocess.run(
                MC + ["--db", str(db), "hook", event],
                input=body,
                capture_output=True,
                timeout=timeout,
                env=dict(self.env, **(env or {})),
            )
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", b"", b""
        return rc, out, err, (time.perf_counter() - t) * 1000.0


def payload(event: str, cwd: str, **fields) -> dict:
    base = {
        "session_id": "rel-session",
        "transcript_path": f"{cwd}/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    extra = {
        "PreToolUse": dict(
            tool_name="Bash", tool_input={"command": "ls -la", "description": "list"}, tool_use_id="toolu_1"
        ),
        "PostToolUse": dict(
            tool_name="Bash",
            tool_input={"command": "ls"},
            tool_response={"stdout": "", "stderr": "", "interrupted": False},
            tool_use_id="t",
        ),
        "PostToolUseFailure": dict(
            tool_name="Bash", tool_input={"command": "ls"}, error="failed", is_interrupt=False, tool_use_id="t"
        ),
        "PermissionDenied": dict(
            tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t", reason="Permission denied"
        ),
        "UserPromptSubmit": dict(prompt="how do I run the tests?"),
        "SessionStart": dict(source="startup", model="claude-sonnet-4-5"),
        "Stop": dict(stop_hook_active=False, last_assistant_message="Done."),
        "SessionEnd": dict(reason="prompt_input_exit"),
        "PreCompact": dict(trigger="auto", custom_instructions=""),
    }[event]
    base.update(extra)
    base.update(fields)
    return base


def integrity(db) -> str:
    from memory_cli.store.db import Store

    try:
        with Store.open(db, readonly=True) as s:
            return str(s.value("PRAGMA integrity_check"))
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return f"{type(e).__name__}: {e}"


def count_like(db, pattern: str) -> set[str]:
    from memory_cli.store.db import Store

    with Store.open(db, readonly=True) as s:
        return {r["content"] for r in s.rows("SELECT content FROM memory_entries WHERE content LIKE ?", (pattern,))}


# -- 1. concurrent writers ------------------------------------------------------------------
_WORKER = r"""
import os, subprocess, sys, json
sys.path.insert(0, os.environ["REL_ROOT"])
from memory_cli.store.db import Store
from memory_cli import entries
p, n, db = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
mc = json.loads(os.environ["REL_MC"])
locked = failed = 0
errors = []
for i in range(n):
    content = f"concurrent w{p}-{i} entry"
    try:
        if i % 2 == 0:
            with Store.open(db) as s:
                entries.add(s, content=content, type="fact")
        else:
            r = subprocess.run(mc + ["--db", db, "add", "--type", "fact", "--content", content],
                               capture_output=True, text=True)
            if r.returncode:
                failed += 1
                locked += "locked" in r.stderr
                errors.append(f"add exit {r.returncode}: {r.stderr.strip()[:200]}")
        if i % 5 == 0:
            body = json.dumps({"session_id": f"s{p}", "transcript_path": "/tmp/t", "cwd": "/tmp",
                               "hook_event_name": "PreToolUse", "tool_name": "Bash",
                               "tool_input": {"command": "ls"}, "tool_use_id": "t"})
            h = subprocess.run(mc + ["--db", db, "hook", "PreToolUse"], input=body, capture_output=True, text=True)
            locked += "locked" in h.stdout + h.stderr
            body = json.dumps({"session_id": f"s{p}", "transcript_path": "/tmp/t", "cwd": "/tmp",
                               "hook_event_name": "UserPromptSubmit", "prompt": f"remember w{p}-{i}"})
            h = subprocess.run(mc + ["--db", db, "hook", "UserPromptSubmit"], input=body, capture_output=True, text=True)
            locked += "locked" in h.stdout + h.stderr
    except Exception as e:
        failed += 1
        locked += "locked" in str(e)
        errors.append(f"{type(e).__name__}: {str(e)[:200]}")
print(json.dumps({"locked": locked, "failed": failed, "errors": errors}))
"""


def row_concurrency(ctx: Ctx) -> dict:
    procs, writes = (4, 6) if ctx.quick else (16, 50)
    db = ctx.base / "concurrency.db"
    ctx.cli(db, "stats")
    env = dict(ctx.env, REL_ROOT=str(ROOT), REL_MC=json.dumps(MC))
    t = time.perf_counter()
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(p), str(writes), str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for p in range(procs)
    ]
    locked = failed = 0
    errors: list[str] = []
    for c in children:
        out, err = c.communicate(timeout=1800)
        try:
            res = json.loads(out.strip().splitlines()[-1])
            locked += res["locked"]
            failed += res["failed"]
            errors += res["errors"]
        except (ValueError, IndexError):
            failed += writes
            errors.append(err.strip()[-200:])
    present = len(count_like(db, "concurrent w%"))
    expected = procs * writes
    ok_int = integrity(db)
    ok = present == expected and locked == 0 and failed == 0 and ok_int == "ok"
    return dict(
        row=f"concurrent writers: {procs} processes x {writes} writes (CLI + library) with hooks",
        figures=f'{present}/{expected} entries present; {locked} "database is locked"; '
        f"{failed} failed writes{' (' + '; '.join(errors[:2]) + ')' if errors else ''}; "
        f"integrity {ok_int}; {time.perf_counter() - t:.0f} s",
        ok=ok,
    )


# -- 2. kill -9 during write batches ---------------------------------------------------------
_KILL_WRITER = r"""
import os, sys
sys.path.insert(0, os.environ["REL_ROOT"])
from memory_cli.store.db import Store
from memory_cli import entries
batch, db = int(sys.argv[1]), sys.argv[2]
with Store.open(db) as s:
    for i in range(100000):
        content = f"killbatch b{batch}-{i}"
        with s.transaction():
            entries.add(s, content=content, type="fact", tags=["kill"])
        os.write(1, (content + "\n").encode())
"""


def row_kill9(ctx: Ctx) -> dict:
    batches = 5 if ctx.quick else 50
    db = ctx.base / "kill9.db"
    ctx.cli(db, "stats")
    env = dict(ctx.env, REL_ROOT=str(ROOT))
    acked: set[str] = set()
    rng = random.Random(9)
    for b in range(batches):
        p = subprocess.Popen(
            [sys.executable, "-c", _KILL_WRITER, str(b), str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        time.sleep(0.4 + rng.random() * 1.2)
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        acked |= {ln for ln in out.decode(errors="replace").splitlines() if ln.startswith("killbatch ")}
    present = count_like(db, "killbatch %")
    missing = len(acked - present)
    ok_int = integrity(db)
    ok = missing == 0 and ok_int == "ok" and len(acked) > 0
    return dict(
        row=f"kill -9 at random moments in {batches} write batches",
        figures=f"{len(acked)} acknowledged writes, {missing} missing; integrity {ok_int}",
        ok=ok,
    )


# -- 3. fuzzed hook payloads -----------------------------------------------------------------
def _fuzz_cases(event: str, n: int, cwd: str, fifo: str, rng: random.Random, huge_every: int, huge_mb: int):
    wrong = [None, 0, -1, 1.5, True, [], {}, [1, 2], {"a": 1}, "", "x" * 10]
    base = payload(event, cwd)
    fields = list(base) + ["tool_input", "prompt", "source", "transcript_path", "cwd", "tool_name"]
    for i in range(n):
        kind = i % 10
        body = dict(base)
        if i % huge_every == huge_every - 1:
            field = rng.choice(fields)
            body[field] = "A" * (huge_mb * 1024 * 1024)
            yield f"{huge_mb} MB string", json.dumps(body).encode()
            continue
        if kind == 0:
            body[rng.choice(fields)] = rng.choice(wrong)
            yield "wrong type", json.dumps(body).encode()
        elif kind == 1:
            for f in rng.sample(list(body), k=rng.randint(1, len(body))):
                body.pop(f, None)
            yield "missing fields", json.dumps(body).encode()
        elif kind == 2:
            raw = json.dumps(body).encode()
            cut = rng.randint(0, len(raw))
            yield "invalid UTF-8", raw[:cut] + bytes([0xFF, 0xFE, 0xC3]) + raw[cut:]
        elif kind == 3:
            body[rng.choice(fields)] = "nul\x00byte\x00" * rng.randint(1, 50)
            yield "NUL bytes", json.dumps(body).encode()
        elif kind == 4:
            depth = rng.choice([50, 1000, 100_000])
            body[rng.choice(fields)] = json.loads("[" * min(depth, 900) + "]" * min(depth, 900))
            raw = json.dumps(body).encode()
            if depth > 900:
                raw = raw[:-1] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}"
            yield "deep nesting", raw
        elif kind == 5:
            body[rng.choice(["transcript_path", "cwd"])] = rng.choice(
                [fifo, "/dev/zero", "/dev/null", "/nonexistent/x", "../../etc/passwd"]
            )
            yield "FIFO/device paths", json.dumps(body).encode()
        elif kind == 6:
            body["session_id"] = "\udc80" + "s" * rng.randint(0, 5)
            yield "lone surrogate", json.dumps(body).encode()
        elif kind == 7:
            body["hook_event_name"] = rng.choice(["", "Other", 5, None, "A" * 1000])
            yield "wrong event name", json.dumps(body).encode()
        elif kind == 8:
            yield "not JSON", rng.choice([b"", b"null", b"[]", b"{", b"\x00\x01", b"42", b'"str"'])
        else:
            if "tool_input" in body:
                body["tool_input"] = rng.choice(
                    [{"command": 5}, {"command": ["rm", "-rf"]}, "ls", [], {"file_path": None, "content": {"x": 1}}]
                )
            else:
                body[rng.choice(fields)] = {"nested": {"deeper": [1, "two", None]}}
            yield "wrong shapes", json.dumps(body).encode()


def row_fuzz(ctx: Ctx) -> list[dict]:
    per_event = ctx.fuzz or (12 if ctx.quick else 1000)
    huge_every = 12 if ctx.quick else 100
    db = ctx.base / "fuzz.db"
    ctx.cli(db, "add", "--type", "rule", "--content", "Never run pythonw", "--scope", "global")
    ctx.cli(
        db, "rules", "add", "Never use pythonw", "--pattern", "pythonw", "--pattern-type", "regex", "--action", "block"
    )
    cwd = str(ctx.base / "proj")
    os.makedirs(cwd, exist_ok=True)
    fifo = str(ctx.base / "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    rows = []
    from memory_cli.hooks.runner import HARD_DEADLINE_S

    for event in EVENTS:
        rng = random.Random(hash(event) & 0xFFFF)
        cases = list(_fuzz_cases(event, per_event, cwd, fifo, rng, huge_every, 2 if ctx.quick else 20))
        stats = {"codes": {}, "tracebacks": 0, "bad_stdout": 0, "slowest": (0.0, ""), "watchdog": {}}

        def one(case, event=event):
            kind, body = case
            return kind, ctx.hook(db, event, body, timeout=60)

        with ThreadPoolExecutor(max_workers=2) as pool:
            for kind, (rc, out, err, ms) in pool.map(one, cases):
                stats["codes"][rc] = stats["codes"].get(rc, 0) + 1
                if b"Traceback" in err or b"Traceback" in out:
                    stats["tracebacks"] += 1
                if out.strip():
                    try:
                        json.loads(out)
                    except ValueError:
                        stats["bad_stdout"] += 1
                if rc != 0:
                    stats["watchdog"][kind] = stats["watchdog"].get(kind, 0) + 1
                if ms > stats["slowest"][0]:
                    stats["slowest"] = (ms, kind)
        codes = ", ".join(f"exit {k}: {v}" for k, v in sorted(stats["codes"].items(), key=str))
        non_zero = ", ".join(f"{k} {v}" for k, v in stats["watchdog"].items())
        # Quick mode (the test suite) checks behaviour only: on a loaded machine the watchdog
        # (exit 1) and the slowest call are timing, reported but not judged there.
        timing_ok = ctx.quick or (
            set(stats["codes"]) <= {0} and stats["slowest"][0] < HARD_DEADLINE_S.get(event, 5) * 1000
        )
        ok = set(stats["codes"]) <= {0, 1} and stats["tracebacks"] == 0 and stats["bad_stdout"] == 0 and timing_ok
        rows.append(
            dict(
                row=f"fuzz {event}: {len(cases)} payloads",
                figures=f"{codes}{' (' + non_zero + ')' if non_zero else ''}; "
                f"{stats['tracebacks']} tracebacks; {stats['bad_stdout']} non-JSON stdout; "
                f"slowest {stats['slowest'][0]:.0f} ms ({stats['slowest'][1]})",
                ok=ok,
            )
        )
    ok_int = integrity(db)
    rows.append(dict(row="fuzz: store after every fuzzed call", figures=f"integrity {ok_int}", ok=ok_int == "ok"))
    return rows


# -- 4. the embedding daemon killed while hooks run -----------------------------------------
def _daemon_pids(ctx: Ctx) -> list[int]:
    """Processes whose environment names this run's config dir (the daemon and any child)."""
    marker = f"CLAUDE_CONFIG_DIR={ctx.claude}".encode()
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker in env and b"daemon" in cmd:
            out.append(int(pid))
    return out


def row_daemon(ctx: Ctx) -> dict:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        return dict(row="daemon killed while hooks run", figures="skipped: semantic extra not installed", ok=True)
    calls = 4 if ctx.quick else 20
    db = ctx.base / "daemon.db"
    for i in range(5):
        ctx.cli(db, "add", "--type", "fact", "--content", f"the staging server runs on port 80{i}0")
    env = {"MEMORY_CLI_DB": str(db)}
    start = ctx.cli(db, "daemon", "start", "--wait", "120", env=env, timeout=240)
    if start.returncode:
        return dict(
            row="daemon killed while hooks run", figures=f"daemon did not start: {start.stderr.strip()}", ok=False
        )
    from memory_cli.hooks.runner import HARD_DEADLINE_S

    limit = HARD_DEADLINE_S["UserPromptSubmit"] * 1000
    results = {}
    body = json.dumps(payload("UserPromptSubmit", str(ctx.base), prompt="which port does staging use?")).encode()
    for phase in ("warm", "SIGSTOP", "kill -9"):
        pid = (json.loads(ctx.cli(db, "--json", "daemon", "status", env=env).stdout or "{}") or {}).get("pid")
        if phase == "SIGSTOP" and pid:
            os.kill(pid, signal.SIGSTOP)
        if phase == "kill -9" and pid:
            os.kill(pid, signal.SIGKILL)
        times, bad = [], 0
        for _ in range(calls):
            rc, out, err, ms = ctx.hook(db, "UserPromptSubmit", body, env=env)
            times.append(ms)
            bad += rc != 0 or b"Traceback" in err
        if phase == "SIGSTOP" and pid:
            os.kill(pid, signal.SIGCONT)  # thawed, it serves again: the next phase kills it warm
        results[phase] = (max(times), bad)
    restart = ctx.cli(db, "--json", "daemon", "start", "--wait", "120", env=env, timeout=240)
    st = json.loads(ctx.cli(db, "--json", "daemon", "status", env=env).stdout or "{}")
    recovered = st.get("state") == "ready"
    ctx.cli(db, "daemon", "stop", env=env, timeout=60)
    time.sleep(0.5)
    orphans = _daemon_pids(ctx)
    for p in orphans:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    ok = (
        all(b == 0 and m < limit for m, b in results.values()) and recovered and not orphans and restart.returncode == 0
    )
    fig = "; ".join(f"{k}: slowest {m:.0f} ms, {b} failed" for k, (m, b) in results.items())
    return dict(
        row=f"daemon frozen (SIGSTOP) and killed (kill -9) while UserPromptSubmit hooks run ({calls} each)",
        figures=f"{fig} (hard deadline {limit:.0f} ms); restart {'recovered' if recovered else 'FAILED'}; "
        f"{len(orphans)} orphan processes",
        ok=ok,
    )


# -- 5. a full disk --------------------------------------------------------------------------
def row_disk(ctx: Ctx) -> dict:
    mnt = ctx.base / "small-fs"
    mnt.mkdir(exist_ok=True)
    mounted = (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True).returncode
        == 0
    )
    how = "1 MB tmpfs of its own"
    preexec = None
    try:
        db = mnt / "memory.db"
        r = ctx.cli(db, "add", "--type", "fact", "--content", "written before the disk filled")
        if r.returncode:
            return dict(row="full disk", figures=f"could not create the store: {r.stderr.strip()}", ok=False)
        if not mounted:
            how = "RLIMIT_FSIZE (mounting was not possible)"
            limit = db.stat().st_size + 64 * 1024

            def preexec():  # noqa: F811
                import resource

                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        codes, lines = {}, set()
        for i in range(30):
            r = ctx.cli(db, "add", "--type", "fact", "--content", f"{i} " + "filler " * 15000, preexec_fn=preexec)
            codes[r.returncode] = codes.get(r.returncode, 0) + 1
            if r.returncode:
                lines.add(r.stderr.strip())
                if codes.get(4, 0) >= 3:
                    break
        q = ctx.cli(db, "--json", "query", "written before the disk filled")
        kept = q.returncode == 0 and "written before the disk filled" in q.stdout
        one_line = all("\n" not in ln and "Traceback" not in ln for ln in lines)
        ok_int = integrity(db)
        ok = set(codes) <= {0, 4} and 4 in codes and one_line and kept and ok_int == "ok"
        sample = next(iter(lines), "")
        return dict(
            row=f"full disk ({how})",
            figures=f'exit codes {dict(sorted(codes.items()))}; one-line error: "{sample[:110]}"; '
            f"earlier entry {'kept' if kept else 'LOST'}; integrity {ok_int}",
            ok=ok,
        )
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# -- 6. the gate under CPU load --------------------------------------------------------------
def row_gate(ctx: Ctx) -> dict:
    calls = 10 if ctx.quick else 100
    cores = os.cpu_count() or 1
    db = ctx.base / "gate.db"
    r = ctx.cli(
        db,
        "rules",
        "add",
        "Never rm -rf /",
        "--pattern",
        r"rm\s+-rf\s+/",
        "--pattern-type",
        "regex",
        "--action",
        "block",
        "--severity",
        "critical",
    )
    if r.returncode:
        return dict(row="gate under load", figures=f"could not add the rule: {r.stderr.strip()}", ok=False)
    busy = [
        subprocess.Popen([sys.executable, "-c", "import time\nend=time.time()+600\nwhile time.time()<end: pass"])
        for _ in range(6 * cores)
    ]
    denied = allowed = other = 0
    slowest = 0.0
    try:
        body = json.dumps(
            payload(
                "PreToolUse", str(ctx.base), tool_input={"command": "rm -rf / --no-preserve-root", "description": "x"}
            )
        ).encode()
        for _ in range(calls):
            rc, out, err, ms = ctx.hook(db, "PreToolUse", body)
            slowest = max(slowest, ms)
            try:
                d = json.loads(out or b"{}").get("hookSpecificOutput", {}).get("permissionDecision")
            except ValueError:
                d = None
            if d == "deny":
                denied += 1
            elif rc == 0:
                allowed += 1
            else:
                other += 1
    finally:
        for p in busy:
            p.kill()
            p.wait()
    return dict(
        row=f"gate under load: {6 * cores} busy loops on {cores} cores, blocked command via PreToolUse",
        figures=f"{denied}/{calls} denied, {allowed} allowed, {other} killed/errored; slowest {slowest:.0f} ms",
        ok=denied == calls,
    )


ROWS = {
    "concurrency": row_concurrency,
    "kill9": row_kill9,
    "fuzz": row_fuzz,
    "daemon": row_daemon,
    "disk": row_disk,
    "gate": row_gate,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small counts (the test suite's mode)")
    ap.add_argument("--only", default="", help="comma-separated rows: " + ",".join(ROWS))
    ap.add_argument("--report-only", default="", help="rows measured but kept out of the exit status")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    ap.add_argument(
        "--fuzz", type=int, default=0, metavar="N", help="fuzzed payloads per event (default 1000; 12 with --quick)"
    )
    args = ap.parse_args(argv)
    only = [r for r in args.only.split(",") if r] or list(ROWS)
    report_only = {r for r in args.report_only.split(",") if r}
    results = []
    with tempfile.TemporaryDirectory(prefix="memory-cli-reliability-") as tmp:
        ctx = Ctx(Path(tmp), args.quick, args.fuzz)
        for name in only:
            t = time.perf_counter()
            try:
                out = ROWS[name](ctx)
            except Exception as e:  # noqa: BLE001 - a crashed row is a failed row
                out = dict(row=name, figures=f"harness error: {type(e).__name__}: {e}", ok=False)
            for r in out if isinstance(out, list) else [out]:
                r["name"] = name
                r["checked"] = name not in report_only
                r["seconds"] = round(time.perf_counter() - t, 1)
                results.append(r)
                if not args.json:
                    sys.stderr.write(f"[{name}] {'ok' if r['ok'] else 'FAIL'}: {r['figures']}\n")
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print("| check | figures | result |")
        print("|---|---|---|")
        for r in results:
            verdict = "ok" if r["ok"] else ("FAIL" if r["checked"] else "FAIL (reported only)")
            print(f"| {r['row']} | {r['figures']} | {verdict} |")
    return 1 if any(not r["ok"] and r["checked"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
