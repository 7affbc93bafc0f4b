#!/usr/bin/env python3
"""The local reader (provider none) on the held-out real sessions, against the hand verdicts.

Reads every session of tests/fixtures/real/heldout (sessions that were not used to write the
reader's rules; sources.md there) as the session-end job does, and looks each memory up in
judged.jsonl there. Prints one table: sessions, memories, useful, useless, wrong (share) and
reports worth reading, twice: for every memory the reader writes, and for those a later session
is shown (none is kept from a session started in a home folder, a Desktop or a drive's top
folder). Lists the wrong memories, and any memory nobody has judged yet (judge it by hand and
add it to judged.jsonl).

    .venv/bin/python scripts/bench_session_memories_heldout.py [--show]
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

HELDOUT = ROOT / "tests" / "fixtures" / "real" / "heldout"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print every memory with its verdict, and every report")
    args = ap.parse_args()
    judged = [json.loads(line) for line in (HELDOUT / "judged.jsonl").read_text(encoding="utf-8").splitlines() if line]
    verdict = {(j["extract"], j["content"]): j for j in judged if j["kind"] == "memory"}
    worth = {j["extract"]: j for j in judged if j["kind"] == "report"}
    paths = [p for p in sorted(HELDOUT.glob("*.jsonl")) if p.name != "judged.jsonl"]
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
            if args.show:
                print(f"{path.name}: [{v}{'' if kept else ', not stored'}] {m['content'][:220]}")
        r = worth.get(path.name)
        if r is not None:
            reports_judged += 1
            reports_worth += bool(r["worth_reading"])
        if args.show:
            print(report, "\n")
    owners = {p.name.rsplit("-", 1)[0] for p in paths}
    print(f"held-out real sessions: {len(paths)} from {len(owners)} people")
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
