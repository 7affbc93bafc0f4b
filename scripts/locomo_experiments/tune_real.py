"""Tune on the real store code: build the five stores once (through bench_retrieval's loader),
cache query vectors, then evaluate hybrid.search under different Weights. Scratch."""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/scripts")
BASE = Path("/tmp/locomo_real")
os.environ["CLAUDE_CONFIG_DIR"] = str(BASE / "claude")
os.environ["MEMORY_CLI_CONFIG"] = str(BASE / "config.json")
(BASE / "config.json").write_text(
    json.dumps(
        {
            "retrieval": {"confidence_weight": 0, "recency_weight": 0},
            "daemon": {"request_timeout_ms": 5000, "autostart": False},
        }
    )
)
import glob

import bench_retrieval as B

from memory_cli import settings as S
from memory_cli.retrieval import fusion, hybrid
from memory_cli.store.db import Store

FILES = sorted(glob.glob("/work/shared/data/locomo/conv-*.json"))
cfg = S.load()
QV = BASE / "qvec.pkl"


def build():
    from memory_cli.daemon import client, control
    from memory_cli.embeddings import vectors

    control.start(wait_s=180)
    qcache = {}
    allq = {}
    for f in FILES:
        db = BASE / (Path(f).stem + ".db")
        if db.exists():
            db.unlink()
        st = Store.open(str(db))
        qs = B.load_conversation(st, f)
        vectors.reindex(st, lambda t: client.embed(t, 120000), model=cfg["embedding"]["model"], batch=64)
        vs = client.embed([q for q, _, _ in qs], 120000)
        for (q, _, _), v in zip(qs, vs):
            qcache[q] = v
        allq[Path(f).stem] = qs
        st.close()
    control.stop()
    pickle.dump((qcache, allq), open(QV, "wb"))


def evaluate(weights: fusion.Weights, mode="hybrid", label=""):
    qcache, allq = pickle.load(open(QV, "rb"))
    hybrid.query_vector = lambda text, timeout_ms: qcache.get(text)
    ranked, ev = [], []
    for f in FILES:
        st = Store.open(str(BASE / (Path(f).stem + ".db")))
        for q, e, _ in allq[Path(f).stem]:
            ranked.append([h["id"] for h in hybrid.search(st, q, limit=10, mode=mode, weights=weights, settings=cfg)])
            ev.append(e)
        st.close()
    m = B.score(ranked, ev)
    print(f"| {label} | {m['r_at_1']:.3f} | {m['r_at_5']:.3f} | {m['r_at_10']:.3f} | {m['mrr']:.3f} |", flush=True)
    return m


if __name__ == "__main__":
    if not QV.exists() or "--build" in sys.argv:
        build()
    W = fusion.Weights().neutral()
    evaluate(W, label="default")
