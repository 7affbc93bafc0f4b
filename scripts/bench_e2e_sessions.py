"""What memory-cli's hooks add to a whole real Claude Code session, measured end to end.

Runs the pinned Claude Code (``scripts/setup_claude_code.sh``) against the scripted model of
``tests/e2e/standin.py``: the same two-turn session (a prompt, one Bash call, an answer) in a
HOME with ``memory-cli install`` and in one without, interleaved pair by pair so that machine
load falls on both alike. Prints the medians and the difference per session.

    .venv/bin/python scripts/bench_e2e_sessions.py [--pairs 9]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.conftest import CLAUDE_BIN, E2EHome  # noqa: E402
from tests.e2e.standin import bash  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=9)
    args = ap.parse_args()
    if not CLAUDE_BIN.exists():
        print("Claude Code is not installed: run scripts/setup_claude_code.sh", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
    with_hooks = E2EHome(root / "with", CLAUDE_BIN)
    with_hooks.install()
    with_hooks.cli("rules", "add", "Never use pythonw.exe")
    with_hooks.cli("add", "The whisperclick build uses uv sync, never pip install")
    bare = E2EHome(root / "bare", CLAUDE_BIN)
    script = [bash("echo hi", "greet"), "Done."]
    times: dict[str, list[float]] = {"with memory-cli": [], "without (bare Claude Code)": []}
    for _ in range(args.pairs):
        for name, home in (("with memory-cli", with_hooks), ("without (bare Claude Code)", bare)):
            s = home.run_session("say hi in the shell", script)
            if s.returncode != 0:
                print(s.describe(), file=sys.stderr)
                return 1
            times[name].append(s.elapsed_s)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"whole `claude -p` session, 2 model turns, 1 Bash call; median of {args.pairs} interleaved pairs")
    print(f"{'setup':30s} {'median s':>9s} {'min s':>7s} {'max s':>7s}")
    for k, v in times.items():
        print(f"{k:30s} {med[k]:9.2f} {min(v):7.2f} {max(v):7.2f}")
    base = med["without (bare Claude Code)"]
    added = med["with memory-cli"] - base
    print(
        f"{'added by memory-cli hooks':30s} {added:9.2f}   ({med['with memory-cli'] / base:.2f}x the bare session;"
        " 6 hook processes: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SessionEnd)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
