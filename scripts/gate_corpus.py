#!/usr/bin/env python3
"""The gate corpus's figures: how many of its must-stop forms the four rules stop and how many
look-alikes they stop by mistake, per source and per operation, through the engine the hook
runs (in this process; ``tests/test_gate_corpus.py`` runs the same forms through the hook
processes of Claude Code, Codex CLI and Gemini CLI).

    python scripts/gate_corpus.py [--spelling-only]

``--spelling-only`` stores the rules as spellings (no operation), to show what the operation
reading adds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spelling-only", action="store_true", help="store the rules as spellings only")
    args = ap.parse_args()

    from memory_cli.rules import api, engine, ruleset
    from memory_cli.store.db import Store

    corpus = json.loads((ROOT / "tests" / "fixtures" / "gate_corpus.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as d, Store.open(Path(d) / "corpus.db") as store:
        for r in corpus["rules"]:
            rule = api.create_rule(store, r["content"], pattern=r["pattern"], pattern_type="command", action="block")
            if args.spelling_only:
                from memory_cli.rules.operations import set_spelling_only

                set_spelling_only(store, rule["id"])
        rs = ruleset.load(store)
        total: Counter = Counter()
        stopped: Counter = Counter()
        for form in corpus["forms"]:
            v = engine.evaluate(rs, event="PreToolUse", tool_name="Bash", tool_input={"command": form["command"]})
            group = (form["expect"], form["source"].split(":")[0], form["class"])
            total[group] += 1
            stopped[group] += v.decision in ("block", "ask")
    print(f"rules stored as {'spellings only' if args.spelling_only else 'operations'}")
    print(f"{'expected':9} {'source':30} {'operation':18} {'stopped':>8}")
    for group in sorted(total):
        print(f"{group[0]:9} {group[1]:30} {group[2]:18} {stopped[group]:>4}/{total[group]:<3}")
    for expect in ("stop", "allow"):
        n = sum(t for g, t in total.items() if g[0] == expect)
        k = sum(s for g, s in stopped.items() if g[0] == expect)
        print(f"{expect:9} all: {k}/{n} stopped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
