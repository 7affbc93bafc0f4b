#!/usr/bin/env python3
"""Retrieval scored by cross-validation on LoCoMo: tune on three conversations, score on the other two.

Same task and storage as ``scripts/bench_retrieval.py`` (every turn one memory, stored through
``entries.add``, vectors through the embedding daemon, categories 1-4, evidence recall@k). The
store is read once per question (:func:`memory_cli.retrieval.hybrid.gather`); every weighting of
the ranking is then scored on the same candidates (:func:`hybrid.rank`, pure Python), so a grid
of a few hundred configurations costs seconds.

For each of the C(5,3) = 10 splits, every tunable constant is chosen on the three training files
only (best pooled R@5 + R@10), then scored on the two held-out files (questions pooled). Tuning
has two stages, both on the training files: the ranking's existing knobs jointly (``BASE_GRID``),
then each idea's own knobs with those fixed (``IDEAS``; 0 switches an idea off, so an idea that
does not help on the training files is not used). The table gives the held-out mean over the ten
splits and the worst split. "shipped defaults" is the product's ranking as configured, untuned.

Latency: a separate store of at least ``--latency-entries`` memories (the five conversations
copied under new session ids until the count is reached; copies reuse their original's vector,
so no extra embedding), ``query()`` end to end with the daemon warm, ``--latency-queries`` calls.

    .venv/bin/python scripts/bench_retrieval_cv.py --locomo /work/shared/data/locomo/conv-*.json [--json]
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retrieval import load_conversation, pct  # noqa: E402  (the same storage and metrics)

TARGETS = {"r_at_5": 0.76, "r_at_10": 0.84, "p95_ms": 50.0}


def recalls(got: list[str], ev: list[str]) -> tuple[float, float, float, float]:
    want = set(ev)
    rr = next((1.0 / (i + 1) for i, x in enumerate(got[:10]) if x in want), 0.0)
    return (
        len(want & set(got[:1])) / len(want),
        len(want & set(got[:5])) / len(want),
        len(want & set(got[:10])) / len(want),
        rr,
    )


# Stage 1: the ranking's existing knobs, tuned jointly on the training files.
BASE_GRID = {
    "keyword": [0.5, 0.6, 0.7],
    "keyword_context": [0.3, 0.5],
    "neighbours": [0.1, 0.2],
    "cues": [0.3, 0.5],
}  # "cues": the subject and date weights, tuned together
# Stage 2: each idea's own knobs, tuned on the same training files with stage 1's choice fixed
# (0 = the idea switched off, so an idea that does not help on the training files is not used).
IDEAS = [
    ("previous ranking, its knobs tuned by CV", {}),
    ("+ temporal cue (when-question x time expression)", {"temporal": [0.0, 0.25, 0.5]}),
    ("+ pseudo-relevance feedback from the top hits", {"feedback": [0.0, 0.15, 0.3]}),
    ("+ both", {"temporal": [0.0, 0.25, 0.5], "feedback": [0.0, 0.15, 0.3]}),
]
# New cues switched off in stage 1, so that stage 1 is the ranking as it was.
STAGE1_OFF = {"temporal": 0.0, "feedback": 0.0}


def configs(grid: dict):
    keys = sorted(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", nargs="+", required=True, metavar="FILE")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--latency-entries", type=int, default=10_000)
    ap.add_argument("--latency-queries", type=int, default=300)
    ap.add_argument("--cache", metavar="FILE", help="keep the gathered candidates in FILE (pickle) and reuse them")
    ap.add_argument("--latency-only", action="store_true", help="measure query() latency only (no cross-validation)")
    args = ap.parse_args(argv)
    files = [f for p in args.locomo for f in (sorted(glob.glob(p)) or [p])]
    if len(files) < 3:
        ap.error("cross-validation needs at least three files")

    tmp = tempfile.mkdtemp(prefix="bench-retrieval-cv-")
    os.environ["CLAUDE_CONFIG_DIR"] = os.path.join(tmp, "claude")
    os.environ["MEMORY_CLI_CONFIG"] = os.path.join(tmp, "config.json")
    for k in ("MEMORY_CLI_DB", "MEMORY_CLI_BUDGET"):
        os.environ.pop(k, None)
    Path(os.environ["MEMORY_CLI_CONFIG"]).write_text(
        json.dumps(
            {
                "retrieval": {"confidence_weight": 0.0, "recency_weight": 0.0},
                "daemon": {"request_timeout_ms": 2000, "autostart": False},
            }
        )
    )
    log = (lambda *a: None) if args.json else (lambda *a: print(*a, file=sys.stderr, flush=True))

    from memory_cli import settings as settings_mod
    from memory_cli.daemon import client, control
    from memory_cli.embeddings import vectors
    from memory_cli.retrieval import hybrid, search
    from memory_cli.store.db import Store

    cfg = settings_mod.load()
    shipped = hybrid.weights_from(cfg)
    if args.cache and os.path.exists(args.cache):
        import pickle

        with open(args.cache, "rb") as fh:
            per_file, latency = pickle.load(fh)
        log(f"candidates from {args.cache}")
        shutil.rmtree(tmp, ignore_errors=True)
        return report(args, per_file, latency, shipped, hybrid, log)
    log("starting the embedding daemon...")
    st = control.start(wait_s=180).get("status") or control.wait_ready(180)
    if st.get("state") != "ready":
        print(f"daemon not ready ({st.get('state')}): cross-validation needs vectors", file=sys.stderr)
        control.stop()
        return 5
    embedded: dict[str, bytes] = {}

    def embed(texts):
        missing = [t for t in dict.fromkeys(texts) if t not in embedded]
        if missing:
            embedded.update(zip(missing, client.embed(missing, 300_000)))
        return [embedded[t] for t in texts]

    per_file = []  # [(name, [(Candidates, evidence)])]
    latency: list[float] = []
    try:
        if args.latency_only:
            n, times = measure_latency(
                files, tmp, args.latency_entries, args.latency_queries, embed, cfg, log, Store, vectors, search
            )
            print(
                f"query() at {n} entries, daemon warm, {len(times)} calls: p50 {pct(times, 50):.1f} ms, "
                f"p95 {pct(times, 95):.1f} ms (target p95 < {TARGETS['p95_ms']:.0f} ms on an idle machine)"
            )
            return 0
        for path in files:
            store = Store.open(os.path.join(tmp, Path(path).stem + ".db"))
            try:
                qs = load_conversation(store, path)
                vectors.reindex(store, embed, model=cfg["embedding"]["model"], batch=64)
                cands = []
                for q, ev, _cat in qs:
                    if ev:
                        cands.append((hybrid.gather(store, q, settings=cfg), ev))
                per_file.append((Path(path).stem, cands))
                log(f"{Path(path).name}: {len(cands)} questions gathered")
            finally:
                store.close()
        latency = measure_latency(
            files, tmp, args.latency_entries, args.latency_queries, embed, cfg, log, Store, vectors, search
        )
        log(f"latency at {latency[0]} entries: p50 {pct(latency[1], 50):.1f} ms, p95 {pct(latency[1], 95):.1f} ms")
    finally:
        control.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.cache:
        import pickle

        with open(args.cache, "wb") as fh:
            pickle.dump((per_file, latency), fh)
    return report(args, per_file, latency, shipped, hybrid, log)


def report(args, per_file, latency, shipped, hybrid, log) -> int:
    names = [n for n, _ in per_file]
    splits = list(itertools.combinations(range(len(per_file)), 3))
    memo: dict = {}

    def evaluate(change: dict) -> list:
        """Per file, per question (r1, r5, r10, rr) for the shipped weights with ``change``."""
        key = tuple(sorted(change.items()))
        if key not in memo:
            change = dict(change)
            if "cues" in change:
                cue = change.pop("cues")
                change.update(subject=cue, date=cue)
            w = shipped.replace(**change)
            memo[key] = [
                [recalls([i for i, _s in hybrid.rank(c, w)[:10]], ev) for c, ev in cands] for _n, cands in per_file
            ]
            if len(memo) % 10 == 0:
                log(f"  {len(memo)} configurations scored")
        return memo[key]

    def pooled(per, idx):
        rows = [r for i in idx for r in per[i]]
        return [sum(x[j] for x in rows) / len(rows) for j in range(4)]

    def best(candidates: list[dict], train) -> dict:
        return max(candidates, key=lambda ch: (lambda m: m[1] + m[2])(pooled(evaluate(ch), train)))

    results = []

    def summarise(idea, chosen_per_split):
        held = []
        for train, change in zip(splits, chosen_per_split):
            test = [i for i in range(len(per_file)) if i not in train]
            m = pooled(evaluate(change), test)
            held.append(
                {
                    "train": [names[i] for i in train],
                    "test": [names[i] for i in test],
                    "chosen": change,
                    "r_at_1": m[0],
                    "r_at_5": m[1],
                    "r_at_10": m[2],
                    "mrr": m[3],
                }
            )
        row = {"idea": idea}
        for k in ("r_at_1", "r_at_5", "r_at_10", "mrr"):
            row[k] = sum(h[k] for h in held) / len(held)
            row["worst_" + k] = min(h[k] for h in held)
        row["splits"] = held
        results.append(row)
        log(f"{idea}: R@5 {row['r_at_5']:.3f} R@10 {row['r_at_10']:.3f}")

    # The ranking's defaults before cross-validation (chosen on all five files), then as shipped now.
    before = {"keyword": 0.6, "keyword_context": 0.3, "neighbours": 0.15, "subject": 0.5, "date": 0.5, **STAGE1_OFF}
    summarise("earlier defaults, fitted to all five files", [before] * len(splits))
    shipped_change = {
        k: getattr(shipped, k) for k in ["keyword", "keyword_context", "neighbours", "subject", "date", *STAGE1_OFF]
    }
    summarise("shipped defaults (CV's majority choice), untuned", [shipped_change] * len(splits))
    stage1 = [best([{**c, **STAGE1_OFF} for c in configs(BASE_GRID)], train) for train in splits]
    for idea, grid in IDEAS:
        if not grid:
            summarise(idea, stage1)
            continue
        summarise(idea, [best([{**base, **c} for c in configs(grid)], train) for base, train in zip(stage1, splits)])

    out = {
        "files": names,
        "questions": sum(len(c) for _n, c in per_file),
        "ideas": results,
        "latency": {
            "entries": latency[0] if latency else 0,
            "p50_ms": pct(latency[1], 50) if latency else None,
            "p95_ms": pct(latency[1], 95) if latency else None,
        },
        "targets": TARGETS,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"LoCoMo evidence recall by cross-validation: {len(splits)} splits (tune on 3 files, score on 2), "
        f"{out['questions']} questions, categories 1-4"
    )
    print(f"{'idea':<52}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR':>7}   worst R@5 / R@10")
    for r in results:
        print(
            f"{r['idea']:<52}{r['r_at_1']:>7.3f}{r['r_at_5']:>7.3f}{r['r_at_10']:>7.3f}"
            f"{r['mrr']:>7.3f}   {r['worst_r_at_5']:.3f} / {r['worst_r_at_10']:.3f}"
        )
    last = results[-1]
    print("\nconstants chosen per split (last idea):")
    for h in last["splits"]:
        print(f"  train {'+'.join(h['train'])}: {h['chosen']} -> held-out R@5 {h['r_at_5']:.3f}")
    lat = out["latency"]
    if lat["p95_ms"] is not None:
        print(
            f"\nlatency of query() at {lat['entries']} entries, daemon warm: p50 {lat['p50_ms']:.1f} ms, "
            f"p95 {lat['p95_ms']:.1f} ms (target p95 < {TARGETS['p95_ms']:.0f} ms on an idle machine)"
        )
    best = results[-1]  # every constant tuned inside the training files: the honest held-out figure
    ok = best["r_at_5"] >= TARGETS["r_at_5"] and best["r_at_10"] >= TARGETS["r_at_10"]
    print(
        f"target: held-out R@5 >= {TARGETS['r_at_5']} and R@10 >= {TARGETS['r_at_10']} -> "
        f"{best['r_at_5']:.3f} / {best['r_at_10']:.3f} {'ok' if ok else 'MISSED'}"
    )
    return 0


def measure_latency(files, tmp, n_entries, n_queries, embed, cfg, log, Store, vectors, search):
    """``query()`` wall time at ``n_entries`` memories (conversations copied under new sessions)."""
    import random

    from memory_cli import entries

    store = Store.open(os.path.join(tmp, "latency.db"))
    try:
        questions = []
        copy = 0
        while int(store.value("SELECT count(*) FROM memory_entries")) < n_entries:
            with store.transaction():
                for path in files:
                    data = json.loads(Path(path).read_text(encoding="utf-8"))
                    for key in [
                        k
                        for k in data
                        if k.startswith("session_") and k.split("_")[1].isdigit() and len(k.split("_")) == 2
                    ]:
                        for turn in data[key]:
                            content = f"{turn['speaker']}: {turn['text']}"
                            if turn.get("blip_caption"):
                                content += f" [image: {turn['blip_caption']}]"
                            entries.add(
                                store,
                                content,
                                "fact",
                                scope="global",
                                source="imported",
                                subject=turn["speaker"],
                                session_id=f"{Path(path).stem}:{key}:copy{copy}",
                            )
                    if copy == 0:
                        questions += [q["question"] for q in data.get("qa", []) if q.get("category") in (1, 2, 3, 4)]
            copy += 1
        n = int(store.value("SELECT count(*) FROM memory_entries"))
        vectors.reindex(store, embed, model=cfg["embedding"]["model"], batch=256)
        log(f"latency store: {n} entries")
        rnd = random.Random(7)
        for q in rnd.sample(questions, min(30, len(questions))):  # warm the page cache
            search.query(store, q, limit=10)
        times = []
        for q in (rnd.choice(questions) for _ in range(n_queries)):
            t = time.perf_counter()
            search.query(store, q, limit=10)
            times.append((time.perf_counter() - t) * 1000)
        return n, times
    finally:
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
