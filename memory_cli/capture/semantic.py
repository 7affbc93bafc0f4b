"""Meaning-based comparison for capture, used only when the embedding daemon is warm.

A hook must not wait for a model: :func:`daemon_embedder` asks the resident daemon with a hard
timeout and returns None when it is cold, busy or absent, and the caller falls back to the
lexical judgement in :mod:`.similar`. An ``embed`` callable can be passed instead (tests pass
the real in-process model; the CLI could too).

Embeddings cannot tell direction or names apart: "use pnpm, not npm" and "use npm, not pnpm"
score 0.99, "do not use pythonw.exe" and "do not use python.exe" 0.91. So a semantic match is
accepted only when the lexical roles do not conflict (:func:`roles_conflict`) and the same role
shares a word (:func:`roles_overlap`).

Thresholds (cosine, all-MiniLM-L6-v2, normalised vectors):
``CORRECTION_THRESHOLD = 0.82`` for two short correction statements. Calibrated on pairs:
true paraphrases the lexical match misses score 0.86-0.91 ("do not push directly to main" /
"do not push straight to main" 0.91, "do not delete the migrations" / "do not remove migration
files" 0.88); different corrections sharing words score up to 0.75 ("do not use print for
logging" / "do not use the logging module", "delete" / "edit migration files" 0.72);
``OBSERVATION_THRESHOLD = 0.85`` for two marker observations on the same subject and
category (they share a topic already, so the bar is higher).
"""

from __future__ import annotations

import math
import struct

from .similar import SAME_THRESHOLD, similarity, tokens

CORRECTION_THRESHOLD = 0.82
OBSERVATION_THRESHOLD = 0.85


def cosine(a: bytes | None, b: bytes | None) -> float:
    if not a or not b:
        return 0.0
    try:
        from ..embeddings.vectors import cosine as vcos
    except ImportError:
        pass
    else:
        return vcos(a, b)
    n = len(a) // 4
    if n == 0 or len(a) != len(b) or len(a) % 4:
        return 0.0
    fa, fb = struct.unpack(f"<{n}f", a), struct.unpack(f"<{n}f", b)
    dot = math.fsum(x * y for x, y in zip(fa, fb))
    na, nb = math.sqrt(math.fsum(x * x for x in fa)), math.sqrt(math.fsum(y * y for y in fb))
    return dot / (na * nb) if na and nb else 0.0


def daemon_embedder(timeout_ms: float):
    """An ``embed(texts) -> list[bytes] | None`` bound to the daemon and a timeout."""

    def embed(texts: list[str]) -> list[bytes] | None:
        try:
            from ..daemon import client
        except ImportError:
            return None
        try:
            return client.embed(list(texts), timeout_ms=timeout_ms)
        except Exception:
            return None

    return embed


def job_embedder(timeout_ms: float):
    """An ``embed(texts)`` for a job off the hook's clock: the daemon when it answers, else the
    local encoder loaded in this process (a second or two, once), else None (words decide)."""
    daemon = daemon_embedder(timeout_ms)

    def embed(texts: list[str]) -> list[bytes] | None:
        got = daemon(texts)
        if got:
            return got
        try:
            from ..embeddings.model import embed as local

            return local(list(texts))
        except Exception:
            return None

    return embed


def remembering(embed, *, limit: int = 2000):
    """``embed`` for a resident process that is asked about the same texts again and again
    (``record_correction`` ranks every waiting lesson at each call): each text is embedded once,
    and only the texts not seen before are sent. At most ``limit`` vectors are kept; a failed
    call keeps nothing and returns None, as ``embed`` would."""
    seen: dict[str, bytes] = {}

    def run(texts: list[str]) -> list[bytes] | None:
        missing = [t for t in dict.fromkeys(texts) if t not in seen]
        if missing:
            got = embed_safely(embed, missing)
            if got is None:
                return None
            if len(seen) + len(missing) > limit:
                seen.clear()
            seen.update(zip(missing, got))
        return [seen[t] for t in texts]

    return run


def embed_safely(embed, texts: list[str]) -> list[bytes] | None:
    if embed is None or not texts:
        return None
    try:
        vectors = embed(list(texts))
    except Exception:
        return None
    if not vectors or len(vectors) != len(texts) or not all(isinstance(v, (bytes, bytearray)) for v in vectors):
        return None
    return [bytes(v) for v in vectors]


def roles_overlap(a_wrong: str, a_right: str, b_wrong: str, b_right: str) -> bool:
    """The same role shares at least one word. Embeddings rate "do not use pythonw.exe" and
    "do not use python.exe" 0.9 alike; requiring a shared word in what is forbidden (or, when
    neither forbids anything, in what is asked) keeps different names apart."""

    def toks(s: str) -> set[str]:
        return set(tokens(s or "", keep_polarity=False))

    wa, ra, wb, rb = toks(a_wrong), toks(a_right), toks(b_wrong), toks(b_right)
    if wa and wb:
        return bool(wa & wb)
    if not wa and not wb and ra and rb:
        return bool(ra & rb)
    return False


def roles_conflict(a_wrong: str, a_right: str, b_wrong: str, b_right: str) -> bool:
    """True when one correction's fix is the other's mistake, or both forbid the same thing
    but name different fixes: the cases an embedding would wrongly call "the same"."""

    def toks(s: str) -> set[str]:
        return set(tokens(s or "", keep_polarity=False))

    wa, ra, wb, rb = toks(a_wrong), toks(a_right), toks(b_wrong), toks(b_right)
    if (wa & rb) or (wb & ra):
        return True
    return bool(wa and wb and ra and rb and similarity(wa, wb) >= SAME_THRESHOLD and not ra & rb)
