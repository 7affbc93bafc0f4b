"""Context at query time only: smooth each side with its neighbours' scores before fusing
(emulates a context column / context vector without touching the index)."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs
import exp13_product_like as P
import exp14_smoothing as S
import exp12_dates_prf as D
import exp16_subject as U
E = evs()


def side_smooth(Ms, lp, ln):
    """on raw candidate matrices with nan = absent: neighbour absent -> 0."""
    out = []
    for M in Ms:
        Z = np.nan_to_num(M, nan=0.0)
        out.append(Z)
    return S.smooth2(out, lp, ln)


def keep_mask(Ms, k):
    return [~np.isnan(P.cand(M, k)) for M in Ms]


def pipe(Bs, Cs, bl=(0.3, 0.0), cl=(0.3, 0.0), fl=(0.0, 0.0), hb="z", hc="z", wb=0.5, db=0.0, sb=0.0, k=100):
    Bk = [P.cand(b, k) for b in Bs]
    Ck = [P.cand(c, k) for c in Cs]
    # smoothing among candidates: raw scores, absent = 0; keep candidate set = union of own + neighbours
    def sm(Mk, lp, ln):
        Z = [np.nan_to_num(m, nan=0.0) for m in Mk]
        Zs = S.smooth2(Z, lp, ln)
        return [np.where((z > 0) | ~np.isnan(m), z, np.nan) for z, m in zip(Zs, Mk)]
    Bk = sm(Bk, *bl) if any(bl) else Bk
    Ck = sm(Ck, *cl) if any(cl) else Ck
    F = [wb * P.norm(b, hb) + (1 - wb) * P.norm(c, hc) for b, c in zip(Bk, Ck)]
    F = S.smooth2(F, *fl) if any(fl) else F
    F = U.subject_boost(F, sb) if sb else F
    F = D.date_boost(F, db) if db else F
    return metrics(rank(F), E)


if __name__ == "__main__":
    for Cname, Cs in (("1vec", P.C_content), ("sentvec", P.C_sent)):
        print(fmt(f"{Cname} fused-smoothing .15/.15", pipe(P.B_content, Cs, (0, 0), (0, 0), (0.15, 0.15))))
        for bl in ((0.3, 0), (0.3, 0.1), (0.5, 0.1), (0.3, 0.2)):
            for cl in ((0, 0), (0.2, 0), (0.3, 0.1), (0.5, 0.2)):
                for fl in ((0, 0), (0.1, 0.1)):
                    print(fmt(f"{Cname} b{bl} c{cl} f{fl}", pipe(P.B_content, Cs, bl, cl, fl)), flush=True)
