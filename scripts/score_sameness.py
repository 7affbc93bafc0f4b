"""Would the person's model, asked which waiting lessons are one instruction, group better than
words and vectors? An experiment, measured, not part of memory-cli (docs/corrections.md says why).

The request is what the session-end job would send (built here: the system text, the waiting
lessons with the person's words, the tool's schema as the claude-cli provider gets it).
``requests`` writes one per person, for a model (or a helper standing in for one, given that
file and nothing else) to answer with the tool's input as JSON in ``<name>.answer.json``:

- the hand-written lessons of ``tests/fixtures/real/instruction_groups.jsonl`` (one per prompt
  of a repeated instruction, six people), in an order that does not follow the groups, each
  with the prompt it was written from;
- with ``--replays D [D ...]``, the waiting lessons of each ``scripts/agent_replay.py`` store
  (pending or proposed on their own count, the most recent ``MAX_LESSONS``).

``score`` scores the hand-written lessons pairwise by person against the hand-made groups,
grouped as the session-end job groups (``recurring.cluster``) with the model's answer deciding
every pair (``--either``: its groups join, and words and vectors join as well). The replays are
scored by ``score_replays.py --judgements DIR [--either]``.

    python scripts/score_sameness.py requests --out runs/same [--replays runs/aistrad ...]
    python scripts/score_sameness.py score runs/same [--either]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
sys.path.insert(0, str(ROOT / "scripts"))

DB = Path("home") / ".claude" / "memory" / "memory.db"
MAX_LESSONS = 80  # most recent first; older lessons are grouped by words and vectors alone
QUOTE_CHARS = 160  # of the person's words shown beside each lesson

SAME_TOOL = {
    "name": "same_instruction",
    "description": "Group the lessons that are one instruction said in other words.",
    "input_schema": {
        "type": "object",
        "properties": {
            "groups": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                        "instruction": {"type": "string", "description": "The one instruction, in one line."},
                    },
                    "required": ["ids", "instruction"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["groups"],
        "additionalProperties": False,
    },
}

SAME_SYSTEM = (
    "You help a person review what they taught their coding agent. Each lesson below was "
    "recorded from something the person said (their words follow it). People say one instruction "
    "again and again in other words: group the lessons that are the same instruction, so that one "
    "rule or one reminder would hold every lesson of the group. Do not group lessons that only "
    "share a topic, a tool or a file, that ask for different things, or where one is an exception "
    "to the other or only applied to one task. A lesson may stay alone. Use only the ids listed. "
    "Answer only by calling the same_instruction tool."
)


def request(lessons: list[dict]) -> tuple[str, dict[str, str]]:
    """The prompt listing ``lessons`` (``{"id", "text", "prompt"}``) under short labels, and the
    label -> id map to read the answer with."""
    labels = {f"L{n}": lesson["id"] for n, lesson in enumerate(lessons, 1)}
    lines = []
    for label, lesson in zip(labels, lessons):
        said = " ".join((lesson.get("prompt") or "").split())
        if len(said) > QUOTE_CHARS:
            said = said[: QUOTE_CHARS - 1] + "…"
        lines.append(f"{label}: {lesson['text']}" + (f'\n    (the person said: "{said}")' if said else ""))
    prompt = (
        "Lessons waiting for the person's review:\n"
        + "\n".join(lines)
        + "\n\nCall same_instruction with each group of two or more lessons that are one instruction."
    )
    return prompt, labels


def read_answer(data, labels: dict[str, str]) -> tuple[list[list[str]], list[dict]]:
    """(groups of store ids, refused items with their reason). A label not in the request is
    dropped from its group; a lesson named in two groups counts in neither; a group left with
    fewer than two lessons is no group."""
    if not isinstance(data, dict) or not isinstance(data.get("groups"), list) or set(data) - {"groups"}:
        raise ValueError("the answer is not an object holding a list of groups")
    refused: list[dict] = []
    named: list[list[str]] = []
    for item in data["groups"]:
        ids = item.get("ids") if isinstance(item, dict) else None
        if not isinstance(ids, list):
            refused.append({"item": item, "reason": "a group is an object with a list of ids"})
            continue
        unknown = [i for i in ids if i not in labels]
        if unknown:
            refused.append({"item": item, "reason": f"ids not in the request: {unknown[:5]}"})
        named.append(list(dict.fromkeys(labels[i] for i in ids if i in labels)))
    from collections import Counter

    seen = Counter(i for group in named for i in group)
    twice = {i for i, n in seen.items() if n > 1}
    if twice:
        refused.append({"item": sorted(twice), "reason": "lessons named in two groups count in neither"})
    groups = [[i for i in group if i not in twice] for group in named]
    return [g for g in groups if len(g) >= 2], refused


def _hand_lessons() -> dict[str, list[dict]]:
    """Per person: ``{"id", "text", "prompt", "group"}``, shuffled (seeded) so the order says
    nothing of the groups."""
    import real_prompts as rp
    import score_grouping

    typed = {(r["file"], r["line"]): r["prompt"] for r in rp.load_prompts()}
    out = {}
    for person, items in score_grouping.load_lessons().items():
        lessons = [
            {"id": f"{k[0]}:{k[1]}", "text": i["text"], "prompt": typed.get(k[:2], ""), "group": i["group"]}
            for i in items
            for k in [i["key"]]
        ]
        random.Random(person).shuffle(lessons)
        out[person] = lessons
    return out


def _stored_lessons(folder: Path) -> list[dict]:
    from score_replays import open_copy

    from memory_cli.capture import recurring

    with open_copy(folder) as store:
        rows = store.rows(
            "SELECT * FROM corrections WHERE detection_type != 'repeated' AND status IN ('pending', 'promoted')"
            " AND " + recurring.READS_AS_CORRECTION
        )
    rows = [r for r in rows if recurring.is_lesson(r) and r["statement"] and len(r["statement"]) <= recurring.MAX_CHARS]
    rows.sort(key=lambda r: (r["last_seen_at"] or r["detected_at"] or "", r["id"]), reverse=True)
    return [{"id": r["id"], "text": r["statement"], "prompt": r["user_message"] or ""} for r in rows[:MAX_LESSONS]]


def _write(out: Path, name: str, lessons: list[dict]) -> None:
    from memory_cli.llm.prompts import json_only_instruction

    prompt, labels = request(lessons)
    text = f"{SAME_SYSTEM}\n\n{prompt}{json_only_instruction(SAME_TOOL)}\n"
    (out / f"{name}.request.md").write_text(text, encoding="utf-8")
    (out / f"{name}.labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")


def requests(out: Path, replays: list[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for person, lessons in _hand_lessons().items():
        _write(out, "hand-" + person.replace(":", "-"), lessons)
    for folder in replays:
        _write(out, "replay-" + Path(folder).name, _stored_lessons(Path(folder)))
    print(f"requests written to {out}: answer each in <name>.answer.json")
    return 0


def judged(folder: Path, name: str) -> dict | None:
    """Lesson id -> group (None: alone) from ``<name>.answer.json``, read as memory-cli reads it."""
    answer = folder / f"{name}.answer.json"
    if not answer.exists():
        return None
    labels = json.loads((folder / f"{name}.labels.json").read_text(encoding="utf-8"))
    groups, refused = read_answer(json.loads(answer.read_text(encoding="utf-8")), labels)
    if refused:
        print(f"{name}: {len(refused)} refused: {refused[:2]}", file=sys.stderr)
    out: dict = dict.fromkeys(labels.values())
    for n, group in enumerate(groups):
        for i in group:
            out[i] = n
    return out


def same_group(judged: dict, a: str, b: str) -> bool:
    """Whether the model's answer put lessons ``a`` and ``b`` in one group."""
    return judged.get(a) is not None and judged.get(a) == judged.get(b)


def _closeness(lessons: list[dict], judgement: dict, either: bool):
    """Two lessons are close when the model grouped them; with ``either``, also when words or
    vectors join them at the code's thresholds (``recurring._close``)."""
    from memory_cli.capture import recurring
    from memory_cli.embeddings.model import embed

    vectors = dict(zip([i["id"] for i in lessons], embed([i["text"] for i in lessons]))) if either else None

    def close(a: int, b: int) -> bool:
        x, y = lessons[a], lessons[b]
        if same_group(judgement, x["id"], y["id"]):
            return True
        return either and recurring._close({**x, "lesson": True}, {**y, "lesson": True}, vectors)

    return close


def score(folder: Path, either: bool = False) -> int:
    from memory_cli.capture import recurring

    how = "the model's judgement, or words and vectors" if either else "the model's judgement"
    print(f"hand-written lessons, grouped with {how} (recurring.cluster)")
    print("| person | lessons | instructions | pairs same | predicted | P | R |")
    print("|---|---|---|---|---|---|---|")
    tot = [0, 0, 0]
    for person, lessons in _hand_lessons().items():
        judgement = judged(folder, "hand-" + person.replace(":", "-"))
        if judgement is None:
            print(f"| {person} | no answer |")
            continue
        labels = recurring.cluster(len(lessons), _closeness(lessons, judgement, either))
        tp = pred = gold = 0
        for a, b in combinations(range(len(lessons)), 2):
            same = lessons[a]["group"] == lessons[b]["group"]
            said = labels[a] == labels[b]
            tp, pred, gold = tp + (same and said), pred + said, gold + same
        tot = [tot[0] + tp, tot[1] + pred, tot[2] + gold]
        groups = len({i["group"] for i in lessons})
        print(f"| {person} | {len(lessons)} | {groups} | {gold} | {pred} | {_p(tp, pred):.2f} | {_p(tp, gold):.2f} |")
    print(f"| all (pooled pairs) | | | {tot[2]} | {tot[1]} | {_p(tot[0], tot[1]):.2f} | {_p(tot[0], tot[2]):.2f} |")
    return 0


def _p(a: int, b: int) -> float:
    return a / b if b else 1.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("requests", help="write the requests")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--replays", nargs="*", default=[], metavar="DIR")
    s = sub.add_parser("score", help="score the answers on the hand-written lessons")
    s.add_argument("folder", type=Path)
    s.add_argument("--either", action="store_true", help="a pair is close when the model or words/vectors say so")
    args = ap.parse_args(argv)
    if args.command == "requests":
        return requests(args.out, args.replays)
    return score(args.folder, args.either)


if __name__ == "__main__":
    raise SystemExit(main())
