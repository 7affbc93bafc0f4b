"""Score what a model acting as the agent made of a person's prompts: pairwise "same instruction".

Each folder is a ``scripts/agent_replay.py`` replay. Two prompts are predicted the same when they
ended in one item of that store's review queue (``D/result.json``); a prompt that ended in no
stored correction is its own singleton. They are the same in truth when

- the labels the replay kept hidden say so (``D/.labels.json``, made by ``init --labelled``:
  only the labelled candidates are scored), or, with ``--lists``,
- an instruction list made blind from the person's prompts alone names both in one instruction:
  ``[{"id", "instruction", "prompts": ["S1.P3", ...]}]``, prompts numbered by session and order as
  ``agent_replay.py`` replays them (every prompt is scored). ``--lists`` pairs one file with
  each folder, in order.

Beside P and R, each row says how many same-instruction pairs had both prompts stored (the
recall a perfect grouping of what was stored would reach) and how many of those the grouping
joined: recall is the product, so a loss is placed in capture or in grouping.
``--every-item`` lets a prompt stand for every item its words ended in (two lessons from one
prompt), as the lists let a prompt give two instructions. ``--proposals`` checks each proposal
against the lists instead (one instruction, mixed, or holding a prompt that gives none).

``--regroup`` scores the queue the current code would make of the same records: the session-end
grouping (:func:`memory_cli.capture.recurring.find_recurring`, encoder loaded here) is run again
on each replay's final store, without writing to it, so a change to grouping is measured on fixed
agent behaviour.

    python scripts/score_replays.py runs/FSM1 runs/SWORDIntel
    python scripts/score_replays.py --regroup runs/aistrad --lists lists/aistrad.json
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

DB = Path("home") / ".claude" / "memory" / "memory.db"


def pr(tp: int, pred: int, gold: int) -> tuple[float, float]:
    return (tp / pred if pred else 1.0), (tp / gold if gold else 1.0)


def _numbers(state: dict) -> dict[str, str]:
    """Prompt key ("file:n") -> its number as the replay showed it ("S2.P5")."""
    return {
        f"{p['key'][0]}:{p['key'][1]}": f"S{si}.P{pi}"
        for si, sess in enumerate(state["sessions"], 1)
        for pi, p in enumerate(sess["prompts"], 1)
    }


def _items_as_replayed(folder: Path) -> dict[str, str]:
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return {f"{r['key'][0]}:{r['key'][1]}": r["item"] for r in result["recorded"]}


def _held_items(folder: Path) -> dict[str, str]:
    """Correction id -> the review item that holds it in the replay's final store (a recurring
    proposal holds its instances), as ``agent_replay.py finish`` records it."""
    from memory_cli.capture.recurring import INSTANCES_KEY
    from memory_cli.store import kvstate

    with open_copy(folder) as store:
        return {
            i: pid
            for pid, value in kvstate.with_prefix(store, INSTANCES_KEY).items()
            for i in (value or {}).get("instances", [])
        }


def _flat(text: str) -> str:
    return " ".join((text or "").split()).casefold()


def every_item(folder: Path, state: dict, item_of) -> dict[str, set]:
    """Prompt key -> every item a correction taken from its words ended in: the one the replay
    linked to the prompt, and any other lesson the agent recorded from the same prompt (its
    quote is in the prompt's words, in that session). A prompt that gives two instructions can
    end in two items, as the instruction lists can hold it in two instructions."""
    with open_copy(folder) as store:
        rows = store.rows("SELECT id, session_id, user_message FROM corrections WHERE status != 'dismissed'")
    by_session: dict[str, list] = {}
    for r in rows:
        if r["user_message"] and len(_flat(r["user_message"])) >= 8:
            by_session.setdefault(r["session_id"], []).append(r)
    out: dict[str, set] = {}
    for sess in state["sessions"]:
        for p in sess["prompts"]:
            words = _flat(p.get("text") or "")
            for r in by_session.get(sess.get("id"), []):
                if _flat(r["user_message"]) in words:
                    out.setdefault(f"{p['key'][0]}:{p['key'][1]}", set()).add(item_of(r["id"]))
    return out


@contextmanager
def open_copy(folder: Path):
    """The replay's final store, copied aside and brought to this code's schema: a replay made
    by an earlier version is read as it is, and the replay itself is never written."""
    import shutil
    import tempfile

    from memory_cli.store.db import Store

    where = Path(tempfile.mkdtemp(prefix="score-replay-"))
    try:
        for suffix in ("", "-wal"):
            source = Path(str(folder / DB) + suffix)
            if source.exists():
                shutil.copy(source, str(where / "memory.db") + suffix)
        with Store.open(str(where / "memory.db")) as store:
            yield store
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _items_regrouped(folder: Path, state: dict, judged: dict | None = None, either: bool = False):
    """Prompt key -> item, grouping the final store's corrections again with the current code;
    and the correction id -> item function it used."""
    from memory_cli.capture import recurring
    from memory_cli.capture.semantic import job_embedder
    from memory_cli.store import kvstate

    with open_copy(folder) as store:
        rows = store.rows(
            "SELECT * FROM corrections WHERE detection_type != 'repeated' AND status IN ('pending', 'promoted')"
            " AND " + recurring.READS_AS_CORRECTION
        )
        held = {
            pid: (value or {}).get("instances", [])
            for pid, value in kvstate.with_prefix(store, recurring.INSTANCES_KEY).items()
        }
        said = {r["id"]: r["correction_id"] for r in store.rows("SELECT id, correction_id FROM capture_prompts")}
    items = recurring.candidates(rows)
    vectors = recurring.vectors_of(rows, job_embedder(5000.0))
    group_of = {}
    close = recurring._close
    if judged:  # the model's answer decides the pairs it covers (--either: its groups only join)
        import score_sameness

        def judged_close(a, b, v):
            if a["id"] in judged and b["id"] in judged:
                same = score_sameness.same_group(judged, a["id"], b["id"])
                return same or (either and close(a, b, v))
            return close(a, b, v)

        recurring._close = judged_close  # type: ignore[assignment]
    try:
        found = recurring.find_recurring(items, vectors=vectors)
    finally:
        recurring._close = close  # type: ignore[assignment]
    for n, group in enumerate(found):
        for i in group:
            group_of[i["id"]] = f"group {n}"

    def item_of(cid: str) -> str:
        if held.get(cid):  # the agent named a proposal: its first instance stands for it
            cid = held[cid][0]
        return group_of.get(cid, cid)

    out = {}
    for sess in state["sessions"]:
        for p in sess["prompts"]:
            cid = said.get(p.get("row"))
            if cid:
                out[f"{p['key'][0]}:{p['key'][1]}"] = item_of(cid)
    return out, item_of


def counts(
    folder: Path,
    list_file: Path | None = None,
    regroup: bool = False,
    judgements: Path | None = None,
    either=False,
    every=False,
) -> dict:
    """``person``, ``prompts`` scored, ``instructions`` given 2+ times, ``recorded`` (prompts
    that ended in a stored correction) and the pair counts ``tp``, ``predicted``, ``same`` of one
    replay folder. ``every``: a prompt stands for every item its words ended in
    (:func:`every_item`), not only the one the replay linked to it."""
    state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    judged = None
    if judgements is not None:
        import score_sameness

        judged = score_sameness.judged(judgements, "replay-" + folder.name)
    if regroup:
        one, item_of = _items_regrouped(folder, state, judged, either)
    else:
        one, held = _items_as_replayed(folder), _held_items(folder) if every else {}

        def item_of(cid: str) -> str:
            return held.get(cid, cid)

    item: dict[str, set] = {k: {v} for k, v in one.items()}
    if every:
        for k, more in every_item(folder, state, item_of).items():
            item.setdefault(k, set()).update(more)
    if list_file is None:
        labels = json.loads((folder / ".labels.json").read_text(encoding="utf-8"))
        person = labels.get("person") or folder.name
        truth = {k: {g} if g is not None else set() for k, g in labels["groups"].items()}
    else:
        person = list_file.stem
        of: dict[str, set] = {}
        for ins in json.loads(list_file.read_text(encoding="utf-8")):
            for number in ins["prompts"]:
                of.setdefault(number, set()).add(ins["id"])
        truth = {key: of.get(number, set()) for key, number in _numbers(state).items()}
    keys = sorted(truth)
    tp = pred = gold = reachable = 0
    for a, b in combinations(keys, 2):
        same = bool(truth[a] & truth[b])
        said = a in item and b in item and bool(item[a] & item[b])
        tp += same and said
        pred += said
        gold += same
        reachable += same and a in item and b in item
    sizes: dict = {}
    for groups in truth.values():
        for g in groups:
            sizes[g] = sizes.get(g, 0) + 1
    return {
        "person": person,
        "prompts": len(keys),
        "instructions": sum(n >= 2 for n in sizes.values()),
        "recorded": sum(k in item for k in keys),
        "tp": tp,
        "predicted": pred,
        "same": gold,
        "reachable": reachable,
    }


def _row(name: str, c: dict, instructions) -> str:
    prec, rec = pr(c["tp"], c["predicted"], c["same"])
    ceiling = c["reachable"] / c["same"] if c["same"] else 1.0
    joined = c["tp"] / c["reachable"] if c["reachable"] else 1.0
    return (
        f"| {name} | {c['prompts']} | {instructions} | {c['recorded']} | {c['same']} | {c['predicted']} |"
        f" {prec:.2f} | {rec:.2f} | {ceiling:.2f} | {joined:.2f} |"
    )


def score(
    folders: list[str],
    lists: list[str] | None = None,
    regroup: bool = False,
    judgements=None,
    either=False,
    every=False,
) -> int:
    if lists and len(lists) != len(folders):
        raise SystemExit("score_replays: --lists needs one file per folder, in the same order")
    truth = "instruction lists made blind from the prompts" if lists else "the labels the replay kept hidden"
    print(f"what the agent recorded (scripts/agent_replay.py), against {truth}" + (", regrouped" if regroup else ""))
    # "both stored": the same-instruction pairs whose two prompts both ended in a stored
    # correction, the recall a perfect grouping of what was stored would reach; "joined":
    # how many of them the grouping joined. Recall is the product of the two.
    print("| person | prompts | given 2+ times | stored | pairs same | predicted | P | R | both stored | joined |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tot = {"prompts": 0, "recorded": 0, "tp": 0, "predicted": 0, "same": 0, "reachable": 0}
    for n, folder in enumerate(folders):
        c = counts(Path(folder), Path(lists[n]) if lists else None, regroup, judgements, either, every)
        for k in tot:
            tot[k] += c[k]
        print(_row(c["person"], c, c["instructions"]))
    print(_row("all (pooled pairs)", tot, ""))
    print(f"prompts that ended in a stored correction: {tot['recorded']} of {tot['prompts']}")
    return 0


def proposals(folders: list[str], lists: list[str]) -> int:
    """What the person is asked to approve, checked against the blind instruction lists: each
    proposal (a recurring instruction, or one correction proposed on its own count) holding two
    or more prompts is *one instruction* when its prompts share an instruction of the list,
    *mixed* when they do not, and *untaught* when one of its prompts gives no instruction at all;
    and how many instructions given 2+ times ended in a proposal holding two of their prompts."""
    if len(lists) != len(folders):
        raise SystemExit("score_replays: --proposals needs --lists, one file per folder")
    print(
        "| person | instructions given 2+ times | proposals | one instruction | mixed | untaught | instructions proposed |"
    )
    print("|---|---|---|---|---|---|---|")
    tot = [0] * 6
    for folder, list_file in zip(map(Path, folders), map(Path, lists)):
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
        numbers = _numbers(state)
        of: dict[str, set] = {}
        listed = json.loads(list_file.read_text(encoding="utf-8"))
        for ins in listed:
            for number in ins["prompts"]:
                of.setdefault(number, set()).add(ins["id"])
        held: dict[str, list[str]] = {}
        for r in result["recorded"]:
            if r["item_kind"] == "repeated" or r["item_status"] == "promoted":
                held.setdefault(r["item"], []).append(numbers[f"{r['key'][0]}:{r['key'][1]}"])
        held = {k: v for k, v in held.items() if len(v) >= 2}
        one = mixed = untaught = 0
        covered = set()
        for prompts in held.values():
            sets = [of.get(n, set()) for n in prompts]
            if not all(sets):
                untaught += 1
            elif set.intersection(*sets):
                one += 1
            else:
                mixed += 1
            for ins in {i for s in sets for i in s}:
                if sum(ins in s for s in sets) >= 2:
                    covered.add(ins)
        repeated = {ins["id"] for ins in listed if len(ins["prompts"]) >= 2}
        row = [len(repeated), len(held), one, mixed, untaught, len(covered & repeated)]
        tot = [a + b for a, b in zip(tot, row)]
        print(f"| {list_file.stem} | " + " | ".join(map(str, row)) + " |")
    print("| all | " + " | ".join(map(str, tot)) + " |")
    return 0


def agreement(folders: list[str], lists: list[str]) -> int:
    """How far two readers of the same prompts agree: the hand-made groups (``.labels.json``)
    scored as a reader against the blind instruction lists, on the labelled prompts. A figure
    for grouping against either is bounded by it."""
    if len(lists) != len(folders):
        raise SystemExit("score_replays: --agreement needs one list per folder, in the same order")
    print("the hand-made groups as a reader, against the blind instruction lists (labelled prompts)")
    print("| person | prompts | pairs same (lists) | pairs same (hand) | both | P | R |")
    print("|---|---|---|---|---|---|---|")
    tot = [0, 0, 0]
    for folder, list_file in zip(map(Path, folders), map(Path, lists)):
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
        hand = json.loads((folder / ".labels.json").read_text(encoding="utf-8"))["groups"]
        number = _numbers(state)
        of: dict[str, set] = {}
        for ins in json.loads(list_file.read_text(encoding="utf-8")):
            for n in ins["prompts"]:
                of.setdefault(n, set()).add(ins["id"])
        tp = pred = gold = 0
        for a, b in combinations(sorted(hand), 2):
            said = hand[a] is not None and hand[a] == hand[b]
            same = bool(of.get(number.get(a, ""), set()) & of.get(number.get(b, ""), set()))
            tp, pred, gold = tp + (same and said), pred + said, gold + same
        tot = [tot[0] + tp, tot[1] + pred, tot[2] + gold]
        prec, rec = pr(tp, pred, gold)
        print(f"| {list_file.stem} | {len(hand)} | {gold} | {pred} | {tp} | {prec:.2f} | {rec:.2f} |")
    prec, rec = pr(*tot)
    print(f"| all (pooled pairs) | | {tot[2]} | {tot[1]} | {tot[0]} | {prec:.2f} | {rec:.2f} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", metavar="DIR", help="scripts/agent_replay.py folders")
    ap.add_argument("--lists", nargs="+", metavar="FILE", help="one blind instruction list per folder")
    ap.add_argument("--regroup", action="store_true", help="group each final store again with the current code")
    ap.add_argument(
        "--judgements",
        type=Path,
        metavar="DIR",
        help="with --regroup: the person's model's answers (scripts/score_sameness.py), replay-<folder>.answer.json",
    )
    ap.add_argument("--either", action="store_true", help="the model's groups join; it does not part what vectors join")
    ap.add_argument("--agreement", action="store_true", help="score the hand-made groups against --lists instead")
    ap.add_argument(
        "--proposals", action="store_true", help="check each proposal against --lists: one instruction, mixed, untaught"
    )
    ap.add_argument(
        "--every-item",
        action="store_true",
        help="a prompt stands for every item its words ended in (two lessons from one prompt: both)",
    )
    args = ap.parse_args(argv)
    if args.proposals:
        return proposals(args.folders, args.lists or [])
    if args.agreement:
        return agreement(args.folders, args.lists or [])
    return score(
        args.folders, args.lists, args.regroup or bool(args.judgements), args.judgements, args.either, args.every_item
    )


if __name__ == "__main__":
    raise SystemExit(main())
