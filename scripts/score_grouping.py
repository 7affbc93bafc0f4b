"""Score "the same instruction" on real prompts: pairwise precision and recall, by person.

The labelled data is ``tests/fixtures/real/recurring.jsonl``: per person, the prompts (in
``prompts.jsonl``) in which one instruction is given again in other words. Beside them, each of
those people's other prompts labelled as a correction with a lesson is a candidate that belongs
to no group: what memory-cli would also have stored and must not join. Every pair of one
person's candidates is either the same instruction (both in one labelled group) or not.

Grouping is what :mod:`memory_cli.capture.recurring` does off the hook's clock: two texts are
close when their normalised words overlap (``similar.similarity`` >= ``--words``) or their
embeddings (the packaged all-MiniLM-L6-v2, loaded here) have a cosine >= ``--cosine``; groups
are average-linkage (``recurring.cluster``). A pair counts as predicted the same when both fall in one group.

Thresholds are chosen held out by person: for each person, the pair of thresholds with the best
recall at precision >= 0.90 on the other people is scored on that person (``--fixed`` scores
given thresholds on everyone instead).

    python scripts/score_grouping.py [--text prompt|statement] [--fixed WORDS COSINE]

``--agent D [D ...]`` scores instead what a model acting as the agent made of the same prompts
through ``scripts/agent_replay.py`` (one folder per person), against the labels the replay kept
hidden: ``scripts/score_replays.py`` (which also scores against instruction lists made blind
from the prompts, and can group the replays' stores again with the current code).

    python scripts/score_grouping.py --agent runs/blackgirlbytes runs/SWORDIntel
"""

from __future__ import annotations

import argparse
import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

WORDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 1.01)
COSINES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.82, 0.85, 0.9, 1.01)
TARGET_P = 0.90


GROUPS = ROOT / "tests" / "fixtures" / "real" / "instruction_groups.jsonl"


def load_lessons() -> dict[str, list[dict]]:
    """Per person: the one-line lessons written by hand for each prompt of each repeated
    instruction (``instruction_groups.jsonl``), as an agent would record them."""
    import json

    out: dict[str, list[dict]] = {}
    with GROUPS.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                out.setdefault(r["person"], []).append(
                    {
                        "key": (r["file"], r["line"], r["group"]),
                        "session": r["session"],
                        "text": r["lesson"],
                        "group": r["group"],
                    }
                )
    return out


def load(text_of: str) -> dict[str, list[dict]]:
    """Per person: candidates ``{"key", "session", "text", "group"}`` (group None: alone)."""
    import real_prompts as rp

    prompts = {(r["file"], r["line"]): r for r in rp.load_prompts()}
    groups = rp.load_recurring()
    label = {}
    for g, grp in enumerate(groups):
        for m in grp["members"]:
            label[(m["file"], m["line"])] = g
    people = {grp["person"] for grp in groups}
    out: dict[str, list[dict]] = {p: [] for p in people}
    for key, r in prompts.items():
        if r["person"] not in people:
            continue
        if key not in label and not (r["correction"] and r.get("lesson")):
            continue
        out[r["person"]].append(
            {"key": key, "session": r["session"], "text": _text(r["prompt"], text_of), "group": label.get(key)}
        )
    return out


def _text(prompt: str, text_of: str) -> str:
    if text_of == "statement":
        from memory_cli.capture.detect import detect

        d = detect(prompt)
        if d is not None and d.statement:
            return d.statement
    from memory_cli.capture.recurring import MAX_CHARS

    return " ".join(prompt.split())[:MAX_CHARS]


def pair_scores(items: list[dict]) -> dict[tuple[int, int], tuple[float, float]]:
    """(word similarity, cosine) of every pair of one person's candidates."""
    from memory_cli.capture.semantic import cosine
    from memory_cli.capture.similar import similarity
    from memory_cli.embeddings.model import embed

    vectors = embed([i["text"] for i in items])
    return {
        (a, b): (similarity(items[a]["text"], items[b]["text"]), cosine(vectors[a], vectors[b]))
        for a, b in combinations(range(len(items)), 2)
    }


def grouped(n: int, scores: dict, words: float, cos: float) -> list[int]:
    """The group label of each candidate, grouped as the session-end job groups
    (:func:`memory_cli.capture.recurring.cluster`) at these thresholds."""
    from memory_cli.capture.recurring import cluster

    def close(a: int, b: int) -> bool:
        w, c = scores[(a, b)]
        return w >= words or c >= cos

    return cluster(n, close)


def counts(items: list[dict], scores: dict, words: float, cos: float) -> tuple[int, int, int]:
    """(true positive, predicted, labelled) same-instruction pairs."""
    roots = grouped(len(items), scores, words, cos)
    tp = pred = gold = 0
    for a, b in combinations(range(len(items)), 2):
        same = items[a]["group"] is not None and items[a]["group"] == items[b]["group"]
        said = roots[a] == roots[b]
        tp += same and said
        pred += said
        gold += same
    return tp, pred, gold


def pr(tp: int, pred: int, gold: int) -> tuple[float, float]:
    return (tp / pred if pred else 1.0), (tp / gold if gold else 1.0)


def choose(people: dict, scores: dict, names: list[str]) -> tuple[float, float]:
    """The thresholds with the best recall at precision >= TARGET_P over ``names`` (pooled pairs)."""
    best, best_key = (1.01, 1.01), (-1.0, -1.0)
    for w in WORDS:
        for c in COSINES:
            tot = [0, 0, 0]
            for p in names:
                for i, v in enumerate(counts(people[p], scores[p], w, c)):
                    tot[i] += v
            prec, rec = pr(*tot)
            key = (rec, prec) if prec >= TARGET_P else (-1.0, prec)
            if key > best_key:
                best, best_key = (w, c), key
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--text",
        choices=("lesson", "prompt", "statement"),
        default="lesson",
        help="lesson: the hand-written lessons of instruction_groups.jsonl; prompt: what the person"
        " typed; statement: the detector's statement of it",
    )
    ap.add_argument(
        "--tuned-on",
        nargs="*",
        metavar="PERSON",
        help="choose the thresholds on these people only and score the others (default: leave one person out)",
    )
    ap.add_argument("--fixed", nargs=2, type=float, metavar=("WORDS", "COSINE"))
    ap.add_argument("--agent", nargs="+", metavar="DIR", help="score scripts/agent_replay.py folders instead")
    args = ap.parse_args(argv)
    if args.agent:
        import score_replays

        return score_replays.score(args.agent)
    people = load_lessons() if args.text == "lesson" else load(args.text)
    scores = {p: pair_scores(items) for p, items in people.items()}
    names = sorted(people)
    if args.tuned_on:
        tuned = [p for p in names if p in args.tuned_on]
        w, c = choose(people, scores, tuned)
        print(f"thresholds chosen on {', '.join(tuned)}: words {w:g}, cosine {c:g}")
        args.fixed = (w, c)
        names = [p for p in names if p not in tuned]
    print(f"text compared: {args.text}; target P >= {TARGET_P}")
    print("| person (held out) | candidates | groups | words | cosine | pairs same | predicted | P | R |")
    print("|---|---|---|---|---|---|---|---|---|")
    tot = [0, 0, 0]
    for p in names:
        w, c = tuple(args.fixed) if args.fixed else choose(people, scores, [q for q in names if q != p])
        tp, pred, gold = counts(people[p], scores[p], w, c)
        for i, v in enumerate((tp, pred, gold)):
            tot[i] += v
        prec, rec = pr(tp, pred, gold)
        n_groups = len({i["group"] for i in people[p] if i["group"] is not None})
        print(f"| {p} | {len(people[p])} | {n_groups} | {w:g} | {c:g} | {gold} | {pred} | {prec:.2f} | {rec:.2f} |")
    prec, rec = pr(*tot)
    print(f"| all (pooled pairs) | | | | | {tot[2]} | {tot[1]} | {prec:.2f} | {rec:.2f} |")
    w, c = choose(people, scores, names)
    print(f"thresholds chosen on everyone: words {w:g}, cosine {c:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
