"""Hubness: generic short turns sit near every query. Centre the vectors (subtract the store's mean
vector) or penalise similarity to the centroid."""
from __future__ import annotations
import numpy as np
from common import metrics, fmt
from scores import evs, rank, convs, doc_vecs
import exp13_product_like as P
import exp17_side_smoothing as T
E = evs()
Vc = P.Vc; Q = P.Q
for g in (0.0, 0.25, 0.5, 0.75, 1.0):
    Cs = []
    for q, v in zip(Q, Vc):
        mu = v.mean(0)
        vc = v - g * mu; vc /= np.linalg.norm(vc, axis=1, keepdims=True)
        qc = q - g * mu; qc /= np.linalg.norm(qc, axis=1, keepdims=True)
        Cs.append(qc @ vc.T)
    print(fmt(f"centre g={g} cos only", metrics(rank(Cs), E)), fmt("fused", T.pipe(P.B_content, Cs, (0.3, 0), (0, 0), (0.15, 0.15))), flush=True)
for g in (0.1, 0.2, 0.3):
    Cs = []
    for q, v in zip(Q, Vc):
        mu = v.mean(0); mu /= np.linalg.norm(mu)
        Cs.append(q @ v.T - g * (v @ mu)[None, :])
    print(fmt(f"penalty g={g} cos only", metrics(rank(Cs), E)), fmt("fused", T.pipe(P.B_content, Cs, (0.3, 0), (0, 0), (0.15, 0.15))), flush=True)
