#!/usr/bin/env python3
"""The local reader (provider none) on every real session extract in tests/fixtures/real/transcripts.

Memories: each one the reader writes is looked up in the hand judgements
(tests/fixtures/real/session_memories_judged.jsonl: session, memory, useful / harmless / wrong,
and why); the
table counts them, and a memory nobody has judged yet is listed as such, to be judged by hand
and added there.

Reports, checked against the hand-labelled typed prompts (tests/fixtures/real/prompts.jsonl):
- the request count equals the number of texts in the extract labelled as typed prompts of
  that session (labels are matched by text: a session's prompts may be labelled from another
  of its logs);
- the first request is one of those prompts, and not injected text;
- no task notification or continuation summary appears in the report;
- sessions whose transcript holds answers to the agent's questions, an approved plan or an
  option the person picked show them as decisions;
- the prompts listed as corrections: how many are labelled corrections (precision), and how
  many labelled corrections are listed (recall).

    .venv/bin/python scripts/bench_session_memories.py [--show]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import real_prompts as rp  # noqa: E402

from memory_cli.llm import extractive, session_report, transcript  # noqa: E402

JUDGED = rp.REAL / "session_memories_judged.jsonl"


def _key(text: str) -> str:
    return " ".join(text.split())[:60]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print every memory and report")
    args = ap.parse_args()
    judged = {}
    for line in JUDGED.read_text(encoding="utf-8").splitlines():
        if line.strip():
            j = json.loads(line)
            judged[(j["session"], j["content"])] = j
    # A session's prompts may be labelled from another of its logs: labels are matched by text.
    labels: dict[str, dict[str, dict]] = {}
    for r in rp.load_prompts():
        labels.setdefault(r["session"], {})[_key(r["prompt"])] = r
    verdicts: Counter = Counter()
    unjudged = []
    checks: Counter = Counter()
    listed = listed_right = labelled_corrections = 0
    files = rp.transcript_files()
    for path in files:
        ex = transcript.read(path, 0)
        transcript.redact_all(ex)
        memories, report = extractive.extract(ex, project="project:real")
        typed = labels.get(ex.session_id, {})
        for m in memories:
            j = judged.get((ex.session_id, m["content"]))
            verdicts[j["verdict"] if j else "unjudged"] += 1
            if j is None:
                unjudged.append((path.name, m["content"]))
            if args.show:
                print(f"{path.name}: [{j['verdict'] if j else 'UNJUDGED'}] {m['content'][:200]}")
        prompts = [t.text for t in ex.turns if t.role == "person"]
        expected = sum(1 for t in rp.user_texts(path) if _key(t) in typed)
        checks["count right"] += len(prompts) == expected
        first = next((p for p in prompts if session_report._a_request(p)), None)
        checks["first request typed"] += first is not None and _key(first) in typed
        checks["no injected text"] += "<task-notification>" not in report and "being continued" not in report
        # An answer the person gave (not one they dismissed), a plan they approved, or an
        # option they picked by typing its number.
        has_decisions = any(
            t.role == "result"
            and (
                ("have been answered" in t.text and '="[User dismissed' not in t.text) or "approved your plan" in t.text
            )
            for t in ex.turns
        ) or any(t.role == "person" and session_report._PICK.fullmatch(t.text.strip()) for t in ex.turns)
        if has_decisions:
            checks["sessions with decisions"] += 1
            checks["decisions shown"] += "Decisions: " in report
        found = session_report.corrections(ex)
        listed += len(found)
        listed_right += sum(1 for c in found if typed.get(_key(c), {}).get("correction"))
        labelled_corrections += sum(1 for t in rp.user_texts(path) if typed.get(_key(t), {}).get("correction"))
        if args.show:
            print(report, "\n")

    n = sum(verdicts.values())
    print(
        f"sessions {len(files)}, memories {n}: "
        + ", ".join(f"{k} {verdicts[k]}" for k in ("useful", "harmless", "wrong", "unjudged"))
    )
    print(f"wrong share: {verdicts['wrong'] / n:.2f}" if n else "no memories")
    for k in ("count right", "first request typed", "no injected text"):
        print(f"reports: {k}: {checks[k]}/{len(files)}")
    print(
        f"reports: decisions shown: {checks['decisions shown']}/{checks['sessions with decisions']} sessions that made some"
    )
    if listed:
        print(
            f"reports: corrections listed {listed}, labelled corrections among them {listed_right} "
            f"(precision {listed_right / listed:.2f}), of {labelled_corrections} labelled "
            f"(recall {listed_right / max(labelled_corrections, 1):.2f})"
        )
    for name, content in unjudged:
        print(f"UNJUDGED {name}: {content[:200]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
