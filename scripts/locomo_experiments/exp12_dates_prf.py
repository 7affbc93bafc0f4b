"""Date mentioned in the query vs the memory's created date; BM25 pseudo relevance feedback."""
from __future__ import annotations
import datetime as dt
import math, re, collections
import numpy as np
from common import metrics, fmt, fts_index, terms, STOP, TOKEN_RE
from scores import evs, rank, convs
import exp11_grid as G
E = evs()
MONTHS = {m: i + 1 for i, m in enumerate("january february march april may june july august september october november december".split())}
MON = "|".join(MONTHS)
D1 = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({MON}),?\s*(\d{{4}})\b", re.I)
D2 = re.compile(rf"\b({MON})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s*(\d{{4}})\b", re.I)
D3 = re.compile(rf"\b({MON}),?\s+(\d{{4}})\b", re.I)


def query_dates(q):
    """(start, end) date ranges named in the query."""
    out = []
    for m in D1.finditer(q):
        d = dt.date(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1))); out.append((d, d))
    for m in D2.finditer(q):
        d = dt.date(int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2))); out.append((d, d))
    if not out:
        for m in D3.finditer(q):
            y, mo = int(m.group(2)), MONTHS[m.group(1).lower()]
            end = dt.date(y + (mo == 12), mo % 12 + 1, 1) - dt.timedelta(days=1)
            out.append((dt.date(y, mo, 1), end))
    return out


def turn_date(s):
    m = re.search(rf"(\d{{1,2}}) ({MON}),? (\d{{4}})", s, re.I)
    return dt.date(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)))


def date_boost(Ms, delta, slack_days=1):
    out = []
    for c, M in zip(convs(), Ms):
        M = M.copy()
        tds = [turn_date(t.date) for t in c.turns]
        for qi, (q, ev, cat) in enumerate(c.qs):
            rngs = query_dates(q)
            if not rngs:
                continue
            hit = np.array([any(a - dt.timedelta(days=slack_days) <= d <= b + dt.timedelta(days=slack_days) for a, b in rngs) for d in tds])
            M[qi] += delta * hit
        out.append(M)
    return out


def base(hb="z", hc="z", wb=0.5, lam=0.15):
    return G.smooth([wb * b + (1 - wb) * c for b, c in zip(G.NB[hb], G.NC[hc])], lam)


F = base()
print(fmt("base z/z .5 .15", metrics(rank(F), E)))
for d in (0.05, 0.1, 0.2, 0.3):
    print(fmt(f"date boost {d}", metrics(rank(date_boost(F, d)), E)))

# BM25 PRF: expansion terms from top-m fused docs, second query, added with weight g
def prf(Fs, m=3, nterms=8, g=0.2):
    out = []
    for c, F in zip(convs(), Fs):
        docs = [G.X.spkcap(t) for t in c.turns]
        toks = [set(w for w in TOKEN_RE.findall(d.lower()) if w not in STOP and len(w) > 2) for d in docs]
        df = collections.Counter(w for s in toks for w in s)
        N = len(docs)
        con = fts_index(docs)
        F2 = F.copy()
        for qi, (q, ev, cat) in enumerate(c.qs):
            qt = set(terms(q))
            top = np.argsort(-F[qi])[:m]
            sc = collections.Counter()
            for i in top:
                for w in toks[i]:
                    if w not in qt and df[w] > 1:
                        sc[w] += math.log(N / df[w])
            exp = [w for w, _ in sc.most_common(nterms)]
            if not exp:
                continue
            expr = " OR ".join(f'"{w}"' for w in exp)
            rows = con.execute("select rowid, -bm25(f) from f where f match ? order by bm25(f) limit 50", (expr,)).fetchall()
            if rows:
                mx = rows[0][1]
                for r, s in rows:
                    F2[qi, r] += g * s / mx
        out.append(F2)
    return out


for m in (2, 3, 5):
    for g in (0.1, 0.2):
        print(fmt(f"bm25 prf m={m} g={g}", metrics(rank(prf(F, m=m, g=g)), E)), flush=True)
