#!/usr/bin/env python3
"""What one session-end summary request costs on real sessions, whole and within the budget.

For every real transcript under tests/fixtures/real (the rule-writing set and both held-out
sets), the request memory-cli would send (``llm.summarize.budgeted_prompt`` with the system
prompt and the answer's schema) is built at ``llm.max_input_tokens`` and measured: estimated
tokens (``llm.condense.estimate_tokens``), the unbudgeted request's tokens, how many of the
person's prompts and error results reached the request, and whether the last prompt did. No
model is called. The floor printed beside the figures is the budget itself.

    .venv/bin/python scripts/bench_session_budget.py [--budget 16000] [--top 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETS = ("transcripts", "heldout", "heldout2")


def measure(path: Path, budget: int) -> dict:
    from memory_cli.llm import prompts, transcript
    from memory_cli.llm.condense import estimate_tokens
    from memory_cli.llm.summarize import _project_of, budgeted_prompt

    ex = transcript.read(str(path), 0)
    transcript.redact_all(ex)
    project = _project_of(ex.cwd)
    fixed = estimate_tokens(prompts.SAVE_SYSTEM) + estimate_tokens(prompts.json_only_instruction(prompts.SAVE_TOOL))
    whole = fixed + estimate_tokens(prompts.save_prompt(transcript.render(ex), project=project, existing=[]))
    prompt, shown = budgeted_prompt(ex, project=project, existing=[], max_tokens=budget)
    people = [t.text for t in ex.turns if t.role == "person"]
    errors = [t for t in ex.turns if t.role == "result" and t.is_error]
    return {
        "name": f"{path.parent.name}/{path.stem}",
        "whole": whole,
        "sent": shown["estimated_tokens"],
        "chars": len(prompts.SAVE_SYSTEM) + len(prompt) + len(prompts.json_only_instruction(prompts.SAVE_TOOL)),
        "person": len(people),
        "person_sent": sum(1 for p in people if p[:120] in prompt),
        "errors": len(errors),
        "errors_sent": sum(1 for e in errors if e.text[:80] in prompt),
        "last_prompt": shown["last_prompt_sent"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=16000)
    ap.add_argument("--top", type=int, default=10, help="show the N longest sessions")
    args = ap.parse_args()
    rows = []
    for name in SETS:
        for p in sorted((ROOT / "tests" / "fixtures" / "real" / name).glob("*.jsonl")):
            if p.stem == "judged":
                continue
            rows.append(measure(p, args.budget))
    rows.sort(key=lambda r: -r["whole"])
    print(f"{len(rows)} real sessions; budget (floor) {args.budget} estimated tokens per request\n")
    print("| session | whole request | sent | chars sent | prompts sent | errors sent | last prompt |")
    print("|---|---|---|---|---|---|---|")
    for r in rows[: args.top]:
        print(
            f"| {r['name']} | {r['whole']} | {r['sent']} | {r['chars']} | {r['person_sent']}/{r['person']} "
            f"| {r['errors_sent']}/{r['errors']} | {'yes' if r['last_prompt'] else 'NO'} |"
        )
    sent = [r["sent"] for r in rows]
    over = [r for r in rows if r["whole"] > args.budget]
    print(
        f"\nall {len(rows)}: sent median {statistics.median(sent):.0f}, max {max(sent)} (budget {args.budget}); "
        f"{len(over)} would pass the budget whole (median {statistics.median([r['whole'] for r in over]) if over else 0:.0f}); "
        f"last prompt sent in {sum(r['last_prompt'] for r in rows)}/{len(rows)}; "
        f"prompts sent {sum(r['person_sent'] for r in rows)}/{sum(r['person'] for r in rows)}; "
        f"errors sent {sum(r['errors_sent'] for r in rows)}/{sum(r['errors'] for r in rows)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
