#!/usr/bin/env python3
"""Whole-process time of the plugin's PreToolUse hook, beside ``python -c "import sqlite3, json"``.

The hook is run the way Claude Code runs the entry in plugin/hooks/hooks.json (or the file
given with --hooks): in exec form (``command`` plus ``args``) the program is started directly
with the plugin placeholders substituted; in shell form the command line goes to ``bash -c``
(Claude Code's shell on POSIX). The plugin's data folder is prepared as plugin/bin/run leaves
it, with this interpreter as the environment's Python; the store holds one blocking rule and
the payload is a force-push, so every run answers deny. Runs of the two are interleaved.

    .venv/bin/python scripts/bench_plugin_hook.py [--runs 20] [--hooks OTHER/hooks.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli.rules import api  # noqa: E402
from memory_cli.store.db import Store  # noqa: E402

PAYLOAD = json.dumps(
    {
        "session_id": "bench",
        "transcript_path": "/dev/null",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main"},
    }
)


def prepared_data(tmp: Path) -> Path:
    """A data folder like the one plugin/bin/run prepares, its environment this interpreter's."""
    data = tmp / "plugin-data"
    env = data / "env-bench"
    (env / "bin").mkdir(parents=True)
    os.symlink(sys.executable, env / "bin" / "python")
    venv = Path(sys.executable).parent.parent
    (env / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text())
    site = Path(sysconfig.get_paths()["purelib"]).relative_to(venv)
    (env / site).parent.mkdir(parents=True)
    os.symlink(venv / site, env / site)
    (env / ".requirements").write_bytes((ROOT / "plugin" / "requirements.txt").read_bytes())
    os.symlink("env-bench", data / "env")
    data.chmod(0o700)
    return data


def hook_argv(handler: dict, root: Path, data: Path) -> list[str]:
    if "args" in handler:

        def sub(s: str) -> str:
            return s.replace("${CLAUDE_PLUGIN_ROOT}", str(root)).replace("${CLAUDE_PLUGIN_DATA}", str(data))

        return [sub(handler["command"]), *map(sub, handler["args"])]
    return ["bash", "-c", handler["command"]]


def timed(argv: list[str], env: dict) -> tuple[float, float, str]:
    """Wall time and CPU time (user + system, of the process and what it ran) in ms, and stdout:
    the CPU time moves far less than the wall time with other load on the machine."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(PAYLOAD.encode())
    proc.stdin.close()
    out = proc.stdout.read().decode()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    wall = (time.perf_counter() - t) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument(
        "--hooks",
        type=Path,
        action="append",
        help="a hooks.json to time (repeatable, runs interleaved); default plugin/hooks/hooks.json",
    )
    ap.add_argument("--root", type=Path, default=ROOT / "plugin", help="the plugin folder the hook runs from")
    args = ap.parse_args()
    files = args.hooks or [ROOT / "plugin" / "hooks" / "hooks.json"]
    handlers = [json.loads(f.read_text())["hooks"]["PreToolUse"][0]["hooks"][0] for f in files]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        home = tmp / "home"
        (home / ".claude" / "memory").mkdir(parents=True)
        with Store.open(home / ".claude" / "memory" / "memory.db") as s:
            api.create_rule(s, "never force-push", pattern="git push --force", pattern_type="command", action="block")
        data = prepared_data(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_CLI_", "CLAUDE_"))}
        env.update(HOME=str(home), CLAUDE_PLUGIN_ROOT=str(args.root), CLAUDE_PLUGIN_DATA=str(data))
        variants = [
            (f"{f} ({'exec form' if 'args' in h else 'shell form, bash -c'})", hook_argv(h, args.root, data))
            for f, h in zip(files, handlers)
        ]
        for name, argv in variants:
            _, _, out = timed(argv, env)
            decision = (json.loads(out or "{}").get("hookSpecificOutput") or {}).get("permissionDecision")
            if decision != "deny":
                sys.exit(f"{name}: the hook did not deny the force-push: {out!r}")
        variants.append(("python -c 'import sqlite3, json'", [sys.executable, "-c", "import sqlite3, json"]))
        wall: dict[str, list[float]] = {name: [] for name, _ in variants}
        cpu: dict[str, list[float]] = {name: [] for name, _ in variants}
        for _ in range(args.runs):
            for name, argv in variants:
                w, c, _ = timed(argv, env)
                wall[name].append(w)
                cpu[name].append(c)
    floor = variants[-1][0]
    print(f"plugin PreToolUse hook, whole process, {args.runs} interleaved runs each (medians; vs the floor):")
    for name in wall:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        dw, dc = w - statistics.median(wall[floor]), c - statistics.median(cpu[floor])
        print(f"  wall {w:6.1f} ms ({dw:+5.1f})  cpu {c:6.1f} ms ({dc:+5.1f})  {name}")


if __name__ == "__main__":
    main()
