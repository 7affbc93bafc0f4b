#!/usr/bin/env python3
"""Retrieval benchmark on LoCoMo conversations (evidence recall of single turns, no LLM).

Each conversation's turns are stored as memories through the project's own code, exactly as an
import would store them: ``entries.add`` (content ``"Speaker: text"`` plus the photo caption,
subject = the speaker, session_id = the LoCoMo session, creation date = the session's date set
the way ``import-markdown`` backdates imported entries), vectors built by ``vectors.reindex`` through the
embedding daemon (what ``memory-cli reindex`` does when the daemon is warm). Every question of
categories 1-4 is then asked through ``search.query`` (what ``memory-cli query`` and injection
call), and again through the same pipeline in keyword-only and vector-only mode.

Recall@k = share of a question's evidence turns among the first k results, averaged over the
questions that have evidence; MRR over the first 10 results. Latency is the wall time of one
call, daemon round trip included. Confidence and recency weights are set to 0 in the config
(all turns are equally trusted; recency would favour later sessions).

    .venv/bin/python scripts/bench_retrieval.py --locomo /work/shared/data/locomo/conv-*.json [--json]

Runs in a throwaway CLAUDE_CONFIG_DIR with its own daemon, stopped at the end.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        1,
    )
}


def session_time(text: str) -> str | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00.000000Z"."""
    m = re.search(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", text or "", re.I)
    if not m or m.group(5).lower() not in MONTHS:
        return None
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return (
        f"{int(m.group(6)):04d}-{MONTHS[m.group(5).lower()]:02d}-{int(m.group(4)):02d}"
        f"T{hour:02d}:{int(m.group(2)):02d}:00.000000Z"
    )


def norm_dia(ref: str) -> list[str]:
    """Evidence ids as written in the data ("D1:3", "D:11:26", "D8:6; D9:17") -> ["D1:3", ...]."""
    out = []
    for part in re.split(r"[;,\s]+", ref or ""):
        m = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
        if m:
            out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def load_conversation(store, path: str) -> list[tuple[str, list[str], int]]:
    """Store the turns; return (question, evidence entry ids, category) for categories 1-4."""
    from memory_cli import entries

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    name = Path(path).stem
    sessions = sorted(int(k.split("_")[1]) for k in data if re.fullmatch(r"session_\d+", k))
    by_dia: dict[str, str] = {}
    with store.transaction():
        for s in sessions:
            when = session_time(data.get(f"session_{s}_date_time", ""))
            for turn in data[f"session_{s}"]:
                content = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    content += f" [image: {turn['blip_caption']}]"
                e = entries.add(
                    store,
                    content,
                    "fact",
                    scope="global",
                    source="imported",
                    subject=turn["speaker"],
                    session_id=f"{name}:session_{s}",
                    audit_context=f"locomo {name} {turn['dia_id']}",
                )
                if when:  # as `import-markdown` keeps an imported entry's own date
                    store.execute("UPDATE memory_entries SET created_at = ? WHERE id = ?", (when, e["id"]))
                for d in norm_dia(turn["dia_id"]):
                    by_dia[d] = e["id"]
    questions = []
    for qa in data.get("qa", []):
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        ev: list[str] = []
        for ref in qa.get("evidence", []):
            for d in norm_dia(ref):
                if d in by_dia and by_dia[d] not in ev:
                    ev.append(by_dia[d])
        questions.append((qa["question"], ev, qa["category"]))
    return questions


def score(ranked: list[list[str]], evidence: list[list[str]]) -> dict:
    n = r1 = r5 = r10 = mrr = 0.0
    for got, ev in zip(ranked, evidence):
        if not ev:
            continue
        n += 1
        want = set(ev)
        r1 += len(want & set(got[:1])) / len(want)
        r5 += len(want & set(got[:5])) / len(want)
        r10 += len(want & set(got[:10])) / len(want)
        mrr += next((1.0 / (i + 1) for i, x in enumerate(got[:10]) if x in want), 0.0)
    n = n or 1
    return {"r_at_1": r1 / n, "r_at_5": r5 / n, "r_at_10": r10 / n, "mrr": mrr / n}


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


TARGET_R_AT_5 = 0.70
# (R@5, R@10) from shared/data/locomo/README.md, categories 1-4 of the same five files.
NAIVE_BASELINES = {
    "naive BM25 (FTS5)": (0.535, 0.617),
    "naive MiniLM cosine": (0.403, 0.498),
    "naive min-max fusion": (0.588, 0.679),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", nargs="+", required=True, metavar="FILE", help="LoCoMo conv-*.json files")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--no-vectors", action="store_true", help="skip the daemon (keyword-only figures)")
    args = ap.parse_args(argv)
    files = [f for pattern in args.locomo for f in (sorted(glob.glob(pattern)) or [pattern])]

    tmp = tempfile.mkdtemp(prefix="bench-retrieval-")
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
    from memory_cli.retrieval import hybrid, search
    from memory_cli.store.db import Store

    cfg = settings_mod.load()
    started = False
    vectors_on = False
    try:
        if not args.no_vectors:
            from memory_cli.daemon import control
            from memory_cli.embeddings.model import semantic_available

            if semantic_available():
                log("starting the embedding daemon...")
                st = control.start(wait_s=180).get("status") or control.wait_ready(180)
                started = True
                vectors_on = st.get("state") == "ready"
                if not vectors_on:
                    log(f"daemon not ready ({st.get('state')}): keyword-only figures")
            else:
                log("semantic extra not installed: keyword-only figures")

        modes = ["hybrid", "keyword"] + (["vector"] if vectors_on else [])
        ranked = {m: [] for m in modes}
        times = {m: [] for m in modes}
        evidence: list[list[str]] = []
        per_file = []
        for path in files:
            store = Store.open(os.path.join(tmp, Path(path).stem + ".db"))
            try:
                t0 = time.perf_counter()
                qs = load_conversation(store, path)
                n_turns = store.value("SELECT count(*) FROM memory_entries")
                if vectors_on:
                    from memory_cli.daemon import client
                    from memory_cli.embeddings import vectors

                    vectors.reindex(
                        store, lambda texts: client.embed(texts, 120_000), model=cfg["embedding"]["model"], batch=64
                    )
                log(
                    f"{Path(path).name}: {n_turns} turns stored in {time.perf_counter() - t0:.1f}s, {len(qs)} questions"
                )
                for q, ev, _cat in qs:
                    evidence.append(ev)
                    for m in modes:
                        t = time.perf_counter()
                        if m == "hybrid":
                            hits = search.query(store, q, limit=10, use_vectors=vectors_on)
                        else:
                            hits = hybrid.search(store, q, limit=10, mode=m, settings=cfg)
                        times[m].append((time.perf_counter() - t) * 1000)
                        ranked[m].append([h["id"] for h in hits])
                per_file.append({"file": Path(path).name, "turns": n_turns, "questions": len(qs)})
            finally:
                store.close()
    finally:
        if started:
            from memory_cli.daemon import control

            control.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    def figures(m):
        out = score(ranked[m], evidence)
        out.update(p50_ms=pct(times[m], 50), p95_ms=pct(times[m], 95))
        return {k: round(v, 4 if not k.endswith("_ms") else 2) for k, v in out.items()}

    result = figures("hybrid")
    result["mode"] = "hybrid" if vectors_on else "keyword (no vectors)"
    result["questions"] = len(evidence)
    result["scored_questions"] = sum(1 for e in evidence if e)
    result["files"] = per_file
    result["baselines"] = {m: figures(m) for m in modes if m != "hybrid"}
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"LoCoMo evidence recall, {result['scored_questions']} questions with evidence "
        f"({len(files)} conversations, categories 1-4)"
    )
    print(f"{'run':<22}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR':>7}{'p50 ms':>9}{'p95 ms':>9}")
    rows = [("hybrid" if vectors_on else "hybrid (no vectors)", result)] + [
        (f"{m}-only", v) for m, v in result["baselines"].items()
    ]
    for name, r in rows:
        print(
            f"{name:<22}{r['r_at_1']:>7.3f}{r['r_at_5']:>7.3f}{r['r_at_10']:>7.3f}{r['mrr']:>7.3f}"
            f"{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}"
        )
    print()
    print("naive baselines on the five shared files (shared/data/locomo/README.md, not re-run here):")
    for name, (r5, r10) in NAIVE_BASELINES.items():
        print(f"{name:<22}{'':>7}{r5:>7.3f}{r10:>7.3f}")
    verdict = "ok" if result["r_at_5"] >= TARGET_R_AT_5 else "MISSED"
    print(f"target: hybrid R@5 >= {TARGET_R_AT_5:.2f} with no LLM -> {result['r_at_5']:.3f} {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
