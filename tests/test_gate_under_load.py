"""The gate holds when the machine is busy.

With 6 x cores busy-loop processes competing for the CPU (not niced), every confirmed block
rule of every kind denies every one of its matching calls through the real ``memory-cli hook``
process with the default budgets, and allows every look-alike. A slow interpreter start must
never turn a cheap check into an allow. Behaviour, not speed: what is timed is only the
precondition that the machine really was busy (hooks ran several times slower than idle).

Each busy loop and each hook runs in a session of its own. With autogroup scheduling (the
Linux default) a process competes for the CPU through its session's group, so a hook is one
process among the loops, slowed about tenfold here; hooks sharing the test run's group would
all share one loop's share, which slows the test more than it loads each hook.

``MEMORY_CLI_LOAD_CALLS`` sets the calls per rule kind and side: 40 in the everyday suite
(about 700 hook processes under load), 100 for the full run (`MEMORY_CLI_LOAD_CALLS=100`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers.hooks import payload, run_hook

from memory_cli import audit
from memory_cli.rules import api
from memory_cli.rules.importers import import_hookify
from memory_cli.store import spool
from memory_cli.store.db import Store

# Loads the machine on purpose or needs it quiet: `make test` runs these after the parallel part.
pytestmark = pytest.mark.exclusive

CALLS = int(os.environ.get("MEMORY_CLI_LOAD_CALLS", "40"))
WORKERS = 2 * (os.cpu_count() or 1)
# Hooks under load must take at least this many times their idle time, or the test did not
# test what it claims.
SLOWED_AT_LEAST = 3.0

HOOKIFY_RULE = """---
name: console-log-prod-only
enabled: true
event: file
action: block
conditions:
  - field: file_path
    operator: regex_match
    pattern: \\.(tsx?|jsx?)$
  - field: file_path
    operator: not_regex_match
    pattern: (\\.test\\.|\\.spec\\.|__tests__)
  - field: new_text
    operator: regex_match
    pattern: console\\.(log|debug|info)\\(
---

No console statements in production code.
"""


@contextlib.contextmanager
def busy_machine():
    """os.cpu_count() * 6 plain busy loops, each in a session of its own, killed at the end
    whatever happens (and each ends by itself after ten minutes should this process die first)."""
    procs = []
    try:
        for _ in range((os.cpu_count() or 1) * 6):
            procs.append(
                subprocess.Popen(
                    ["timeout", "-s", "KILL", "600", sys.executable, "-c", "while True: pass"],
                    start_new_session=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield len(procs)
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in procs:
            p.wait(timeout=30)


@pytest.fixture
def gated(db_path, tmp_path):
    """One store holding a confirmed block rule of every kind; returns the projects."""
    project = tmp_path / "work" / "whisperclick"
    other = tmp_path / "work" / "otherproj"
    for p in (project, other):
        (p / ".git").mkdir(parents=True)
        (p / "src").mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "hookify.console.local.md").write_text(HOOKIFY_RULE)
    s = Store.open(db_path)
    try:
        add = api.create_rule
        add(
            s,
            "No rm -rf of the root",
            name="bash-regex",
            pattern=r"rm\s+-rf\s+/",
            pattern_type="regex",
            action="block",
            tools=["Bash"],
        )
        add(
            s,
            "No debugger breakpoints in code",
            name="content-regex",
            pattern=r"pdb\.set_trace\(\)",
            pattern_type="regex",
            action="block",
            tools=["Write", "Edit"],
            fields=["content"],
        )
        add(
            s,
            "Never write .env files",
            name="path-regex",
            pattern=r"(^|/)\.env$",
            pattern_type="regex",
            action="block",
            tools=["Write", "Edit"],
            fields=["file_path"],
        )
        add(
            s,
            "Never run pythonw.exe",
            name="command-rule",
            pattern="pythonw.exe",
            pattern_type="command",
            action="block",
        )
        add(
            s,
            "No terraform destroy in whisperclick",
            name="project-rule",
            pattern=r"terraform\s+destroy",
            pattern_type="regex",
            action="block",
            tools=["Bash"],
            scope="project:whisperclick",
        )
        add(
            s,
            "No hard-coded secrets in settings.py",
            name="file-rule",
            pattern=r"hardcoded_secret\s*=",
            pattern_type="regex",
            action="block",
            tools=["Write", "Edit"],
            scope="file:src/settings.py",
        )
        report = import_hookify(s, str(project))
        assert len(report["created"]) == 1
    finally:
        s.close()
    return project, other


def _bash(cwd, command):
    return payload(
        "PreToolUse",
        cwd=str(cwd),
        tool_name="Bash",
        tool_input={"command": command, "description": "run it", "timeout": 120000, "run_in_background": False},
    )


def _write(cwd, path, content, i):
    if i % 2:
        return payload(
            "PreToolUse",
            cwd=str(cwd),
            tool_name="Edit",
            tool_input={"file_path": str(path), "old_string": "pass", "new_string": content},
        )
    return payload(
        "PreToolUse", cwd=str(cwd), tool_name="Write", tool_input={"file_path": str(path), "content": content}
    )


def _cases(project, other):
    """kind -> (rule message, matching payload(i), look-alike payload(i))."""
    src = project / "src"
    return {
        "regex on a Bash command": (
            "No rm -rf of the root",
            lambda i: _bash(project, f"rm -rf / --no-preserve-root  # {i}"),
            lambda i: _bash(project, f"rm -rf ./build/{i}"),
        ),
        "regex on Write/Edit content": (
            "No debugger breakpoints",
            lambda i: _write(project, src / f"m{i}.py", f"import pdb\npdb.set_trace()  # {i}\n", i),
            lambda i: _write(project, src / f"m{i}.py", f"import pdb\npdb.run('x')  # {i}\n", i),
        ),
        "regex on a file path": (
            "Never write .env files",
            lambda i: _write(project, project / ".env", f"TOKEN_{i}=1\n", i),
            lambda i: _write(project, project / ".env.example", f"TOKEN_{i}=\n", i),
        ),
        "command rule": (
            "Never run pythonw.exe",
            lambda i: _bash(project, f"cd src && pythonw.exe app.py --n {i}"),
            lambda i: _bash(project, f"cd src && python.exe app.py --n {i}"),
        ),
        "imported hookify conditions": (
            "No console statements",
            lambda i: _write(project, src / f"app{i}.ts", f"console.log({i});\n", i),
            lambda i: _write(project, src / f"app{i}.test.ts", f"console.log({i});\n", i),
        ),
        "rule scoped to a project": (
            "No terraform destroy in whisperclick",
            lambda i: _bash(project, f"terraform destroy -auto-approve -var n={i}"),
            lambda i: _bash(other, f"terraform destroy -auto-approve -var n={i}"),
        ),
        "rule scoped to a file": (
            "No hard-coded secrets",
            lambda i: _write(project, src / "settings.py", f"hardcoded_secret = 'x{i}'\n", i),
            lambda i: _write(project, src / "other.py", f"hardcoded_secret = 'x{i}'\n", i),
        ),
    }


def _timed_hook(event, body, db_path):
    t0 = time.perf_counter()
    r = run_hook(event, body, db=db_path, timeout=120, new_session=True)
    return r, time.perf_counter() - t0


def _run_all(jobs, db_path, event="PreToolUse"):
    """Every job through the hook under load; fails unless the load really slowed them."""
    # Look-alikes (odd jobs) leave no audit row behind to miscount later.
    idle = statistics.median(_timed_hook(event, jobs[i], db_path)[1] for i in range(1, 10, 2))
    with busy_machine(), ThreadPoolExecutor(WORKERS) as pool:
        timed = list(pool.map(lambda body: _timed_hook(event, body, db_path), jobs))
    loaded = statistics.median(t for _r, t in timed)
    assert loaded >= SLOWED_AT_LEAST * idle, f"hooks took {loaded:.3f} s under load vs {idle:.3f} s idle"
    return [r for r, _t in timed]


@pytest.mark.slow
def test_every_block_rule_kind_holds_every_call_under_full_load(gated, db_path):
    project, other = gated
    cases = _cases(project, other)
    jobs, labels = [], []
    for kind, (_msg, hit, miss) in cases.items():
        for i in range(CALLS):
            jobs.append(hit(i))
            labels.append((kind, "match"))
            jobs.append(miss(i))
            labels.append((kind, "look-alike"))
    results = _run_all(jobs, db_path)

    tally: dict = {}
    problems = []
    for (kind, what), r in zip(labels, results):
        msg = cases[kind][0]
        if what == "match":
            ok = (
                r.returncode == 0
                and r.decision == "deny"
                and msg in r.json["hookSpecificOutput"]["permissionDecisionReason"]
            )
        else:
            ok = r.returncode == 0 and r.decision is None
        tally[(kind, what)] = tally.get((kind, what), 0) + ok
        if not ok and len(problems) < 5:
            problems.append((kind, what, r))
    expected = {key: CALLS for key in tally}
    assert tally == expected, problems
    s = Store.open(db_path)
    try:
        # Nothing was skipped: every rule here is cheap, and cheap checks are always made.
        # Hooks that found the write lock taken by another hook left their rows in the spool,
        # which the next process that writes empties: this one.
        spool.drain(s, wait=True)
        assert audit.query(s, action="enforce_overrun", limit=10) == []
        assert len(audit.query(s, action="enforce_block", limit=10_000)) == CALLS * len(cases)
    finally:
        s.close()


@pytest.mark.slow
def test_verification_holds_every_call_under_full_load(gated, db_path):
    """PostToolUse has a budget too: a violation is fed back every time."""
    project, other = gated

    def post(command):
        return payload(
            "PostToolUse",
            cwd=str(project),
            tool_name="Bash",
            tool_input={"command": command, "description": "ran"},
            tool_response={"stdout": "", "stderr": "", "interrupted": False},
        )

    cases = {
        "regex": ("No rm -rf of the root", lambda i: post(f"rm -rf / # {i}"), lambda i: post(f"rm -rf ./b{i}")),
        "command": (
            "Never run pythonw.exe",
            lambda i: post(f"pythonw.exe a{i}.py"),
            lambda i: post(f"python.exe a{i}.py"),
        ),
    }
    jobs, labels = [], []
    for kind, (_msg, hit, miss) in cases.items():
        for i in range(CALLS):
            jobs += [hit(i), miss(i)]
            labels += [(kind, "match"), (kind, "look-alike")]
    results = _run_all(jobs, db_path, "PostToolUse")
    tally: dict = {}
    for (kind, what), r in zip(labels, results):
        body = r.json or {}
        if what == "match":
            ok = r.returncode == 0 and body.get("decision") == "block" and cases[kind][0] in body.get("reason", "")
        else:
            ok = r.returncode == 0 and "decision" not in body
        tally[(kind, what)] = tally.get((kind, what), 0) + ok
    assert tally == {key: CALLS for key in tally}
    s = Store.open(db_path)
    try:
        # Hooks that found the write lock taken by another hook left their rows in the spool,
        # which the next process that writes empties: this one.
        spool.drain(s, wait=True)
        assert audit.query(s, action="enforce_overrun", limit=10) == []
        assert len(audit.query(s, action="verify_fail", limit=10_000)) == CALLS * len(cases)
    finally:
        s.close()


def test_look_alikes_and_matches_are_told_apart_on_an_idle_machine(gated, db_path):
    """The same cases, once each, without load: a quick check that the slow ones test what
    they claim."""
    project, other = gated
    cases = _cases(project, other)
    for kind, (msg, hit, miss) in cases.items():
        r = run_hook("PreToolUse", hit(0), db=db_path)
        assert r.decision == "deny" and msg in r.stdout, (kind, r)
        r = run_hook("PreToolUse", miss(1), db=db_path)
        assert r.decision is None, (kind, r)
