#!/usr/bin/env python3
"""The local reader (provider none) on the held-out real sessions, against the hand verdicts.

Two sets (sources.md in each): tests/fixtures/real/heldout, 50 sessions read before two of the
reader's rules were written (in-sample for those two), and tests/fixtures/real/heldout2, 44
sessions of other people collected and judged after the last rule change (out of sample). Reads
every session of a set as the session-end job does, and looks each memory up in that set's
judged.jsonl. Prints a table per set: sessions, memories, useful, useless, wrong (share) and
reports worth reading, twice: for every memory the reader writes, and for those a later session
is shown (none is kept from a session started in a home folder, a Desktop or a drive's top
folder). Lists the wrong memories, and any memory nobody has judged yet (judge it by hand and
add it to that judged.jsonl).

    .venv/bin/python scripts/bench_session_memories_heldout.py [--set heldout|heldout2] [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli.llm import extractive, transcript  # noqa: E402
from memory_cli.llm.summarize import catch_all_folder  # noqa: E402

REAL = ROOT / "tests" / "fixtures" / "real"
SETS = {"heldout": "in-sample for the last two rules", "heldout2": "out of sample"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), action="append", help="one set (default: both)")
    ap.add_argument("--show", action="store_true", help="print every memory with its verdict, and every report")
    args = ap.parse_args()
    for name in args.set or sorted(SETS):
        bench(REAL / name, SETS[name], args.show)
        print()
    return 0


def bench(folder: Path, label_of_set: str, show: bool) -> None:
    judged = [json.loads(line) for line in (folder / "judged.jsonl").read_text(encoding="utf-8").splitlines() if line]
    verdict = {(j["extract"], j["content"]): j for j in judged if j["kind"] == "memory"}
    worth = {j["extract"]: j for j in judged if j["kind"] == "report"}
    paths = [p for p in sorted(folder.glob("*.jsonl")) if p.name != "judged.jsonl"]
    rows = {"written": Counter(), "stored": Counter()}
    wrong, unjudged = [], []
    reports_worth = reports_judged = 0
    for path in paths:
        ex = transcript.read(path, 0)
        transcript.redact_all(ex)
        memories, report = extractive.extract(ex, project="project:real")
        kept = not catch_all_folder(ex.cwd)
        for m in memories:
            j = verdict.get((path.name, m["content"]))
            v = j["verdict"] if j else "unjudged"
            rows["written"][v] += 1
            if kept:
                rows["stored"][v] += 1
            if v == "wrong":
                wrong.append((path.name, m["content"], j["why"], kept))
            if j is None:
                unjudged.append((path.name, m["content"]))
            if show:
                print(f"{path.name}: [{v}{'' if kept else ', not stored'}] {m['content'][:220]}")
        r = worth.get(path.name)
        if r is not None:
            reports_judged += 1
            reports_worth += bool(r["worth_reading"])
        if show:
            print(report, "\n")
    owners = {p.name.rsplit("-", 1)[0] for p in paths}
    print(f"{folder.name} ({label_of_set}): {len(paths)} real sessions from {len(owners)} people")
    print("| memories | sessions | memories | useful | useless | wrong (share) | unjudged | reports worth reading |")
    print("|---|---|---|---|---|---|---|---|")
    for name, label in (("written", "written by the reader"), ("stored", "kept for later sessions")):
        c = rows[name]
        n = sum(c.values())
        share = f"{c['wrong'] / n:.0%}" if n else "-"
        print(
            f"| {label} | {len(paths)} | {n} | {c['useful']} | {c['useless']} | {c['wrong']} ({share}) | "
            f"{c['unjudged']} | {reports_worth}/{reports_judged} |"
        )
    for name, content, why, kept in wrong:
        print(f"WRONG {name}{'' if kept else ' (not stored)'}: {content[:200]} -- {why}")
    for name, content in unjudged:
        print(f"UNJUDGED {name}: {content[:200]}")


if __name__ == "__main__":
    raise SystemExit(main())
