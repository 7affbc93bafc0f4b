"""A learned second opinion on short prompts that the hand-written rules pass over.

The rules of :mod:`.detect` and :mod:`.cues` say what was wrong and what is right, but they
only know the phrasings someone wrote down: on a set of prompts written by someone who had not
seen them, they found half of the corrections (``tests/fixtures/correction_corpus_eighth.py``).
A logistic regression over the prompt's words, word pairs and sentence openings, trained on the
other labelled sets in ``tests/fixtures`` by ``scripts/train_capture_model.py``, recognises a
correction by its vocabulary instead ("scrap", "since your", "we standardised on") and raises
that to 68 % on the same held-out set, precision 0.93 either way.

It only decides *whether* a prompt corrects the agent, not what the correction says, so a hit is
recorded as ``inferred`` (confidence 0.3) with the prompt itself as its statement and no
wrong or right part. Such a correction is never matched to others or proposed as a rule: it waits
at the end of the ``memory-cli review`` queue for the person to fill in those parts, keep it as
it is, or reject it.

Inference is standard library only. Features are hashed into a fixed number of buckets (the
hashing trick: CRC-32 of the feature, masked), so the weights are one array of float32 that loads
in about 2 ms from ``correction_model.json`` beside this file, where a dictionary of feature names
took 6 ms in every hook process that got this far. ``scripts/train_capture_model.py
--top`` lists the weightiest features by name. Only prompts of at most ``max_words`` words are
scored: on longer text (pasted documentation) it fires on four paragraphs in ten.
"""

from __future__ import annotations

import math
import os
import sys
from array import array
from binascii import a2b_base64, crc32

from ..fastjson import loads
from ..files import regex_cache

# os.path, not pathlib: importing pathlib costs the hook process about 4 ms.
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "correction_model.json")

_PLACEHOLDER = regex_cache.compile("\ue000\\d+\ue001")
_SENTENCE = regex_cache.compile(r"(?<=[.!?;:—])\s+|\n+")
_TOKEN = regex_cache.compile(r"[a-z]+(?:'[a-z]+)?|[!?]")
# Version 2 of the features reads any script: words of letters or digits in any alphabet, the
# apostrophe dropped ("dont" and "don't" are one word), and text without spaces (Chinese,
# Japanese) as pairs of adjacent characters.
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_WORD2 = regex_cache.compile(f"[{_CJK}]+|[^\\W_{_CJK}]+|[!?]")
_APOSTROPHE = regex_cache.compile("['\u2019`]")
_UNSPACED = regex_cache.compile(f"[{_CJK}]{{2,}}")
_PASTE = regex_cache.compile(r"[═─│|$#>{}\[\]=<]")

_model: dict | None = None


def features(masked_text: str) -> set[str]:
    """Words, adjacent word pairs, each sentence's first word and first pair ("^no", "^no_pnpm"),
    and whether the prompt ends in a question mark. ``masked_text`` has its quoted spans replaced
    by placeholders (:class:`memory_cli.capture.detect._Masked`): what the person quotes is one
    opaque word, "qquote"."""
    text = _PLACEHOLDER.sub(" qquote ", masked_text.lower())
    out: set[str] = set()
    for sentence in _SENTENCE.split(text):
        _add_sentence(out, _TOKEN.findall(sentence))
    if masked_text.rstrip().endswith("?"):
        out.add("ENDQ")
    return out


def _add_sentence(out: set[str], toks: list[str]) -> None:
    """One sentence's features: its words, adjacent pairs, first word and first pair."""
    if not toks:
        return
    out.add("^" + toks[0])
    if len(toks) > 1:
        out.add("^" + toks[0] + "_" + toks[1])
    for i, tok in enumerate(toks):
        out.add(tok)
        if i + 1 < len(toks):
            out.add(tok + "_" + toks[i + 1])


def _size(n: int, edges: tuple[int, ...]) -> int:
    return next((i for i, e in enumerate(edges) if n <= e), len(edges))


def features2(masked_text: str, head_words: int = 60) -> set[str]:
    """Version 2: the words of :func:`features` in any script, typed with or without apostrophes,
    over the first ``head_words`` words of each of the first lines (a correction in a long
    message is mostly its opening line, the rest a paste), plus the prompt's shape: how many
    words and lines it has, and how much of it is the punctuation of pasted output or code."""
    raw = _PLACEHOLDER.sub(" qquote ", masked_text)
    text = _APOSTROPHE.sub("", raw.lower())
    out: set[str] = set()
    words = 0
    for sentence in _SENTENCE.split(text):
        if words >= head_words:
            break
        toks: list[str] = []
        for tok in _WORD2.findall(sentence):
            if _UNSPACED.fullmatch(tok):
                toks.extend(tok[i : i + 2] for i in range(len(tok) - 1))
            else:
                toks.append(tok)
        toks = toks[: head_words - words]
        words += len(toks)
        _add_sentence(out, toks)
    if raw.rstrip().endswith("?"):
        out.add("ENDQ")
    n_words = len(raw.split())
    out.add(f"WORDS{_size(n_words, (1, 2, 4, 8, 16, 32, 64, 128))}")
    out.add(f"LINES{_size(raw.count(chr(10)), (0, 2, 8, 32))}")
    out.add(f"PASTE{_size(len(_PASTE.findall(raw)) * 100 // max(1, len(raw)), (0, 1, 3))}")
    return out


# What the agent's last words say about the turn the person answers: a question ("Should I
# delete it?" is answered by "no", which corrects nothing) or a claim that the work is done
# ("Fixed! All tests pass" is rejected by "no").
_ASKED = regex_cache.compile(r"(?i)(\?\s*$|would you like|should i\b|do you want|shall i\b|let me know|want me to)")
_CLAIMED = regex_cache.compile(
    r"(?i)\b(done|fixed|complete[d]?|successfully|now (?:works|working|running)|all set|ready|implemented"
    r"|updated|created|added|resolved)\b|\u2705|\U0001f389"
)


def turn_flags(turn) -> list[str]:
    """The agent's last turn (:class:`.agent_turn.AgentTurn`, or None when there is no
    transcript to read) as a few flags: ``NONE`` when there was no turn (the session's first
    prompt), ``UNK`` when it is unknown; else whether it edited files, had a failing or rejected
    tool call, was interrupted, asked something or claimed success, and how many tools it ran."""
    if turn is None:
        return ["UNK"]
    if not turn.found:
        return ["NONE"]
    flags = []
    if turn.edited:
        flags.append("EDIT")
    if turn.errors:
        flags.append("ERR")
    if turn.rejected:
        flags.append("REJ")
    if turn.interrupted:
        flags.append("INT")
    said = turn.text[-300:]
    if said and _ASKED.search(said):
        flags.append("ASK")
    if said and _CLAIMED.search(said):
        flags.append("DONE")
    n = len(turn.tools)
    flags.append(f"T{_size(n, (0, 2, 9))}")
    return flags


def features3(masked_text: str, turn, words: set[str] | None = None) -> set[str]:
    """Version 3: :func:`features2` (``words``, when the caller has them) and the agent's last
    turn (:func:`turn_flags`), each flag alone and paired with the prompt's length and its
    sentences' openings, so that "no" after a question and "no" after a claim of success weigh
    differently."""
    out = set(words) if words is not None else features2(masked_text)
    flags = turn_flags(turn)
    shape = [f for f in out if f.startswith(("WORDS", "^"))]
    for flag in flags:
        out.add("C_" + flag)
        for f in shape:
            out.add(flag + "*" + f)
    return out


def bucket(feature: str, buckets: int) -> int:
    """The bucket of one feature (``buckets`` is a power of two)."""
    return crc32(feature.encode("utf-8")) & (buckets - 1)


def indexes(masked_text: str, buckets: int, version: int = 1, turn=None) -> set[int]:
    """The buckets of the prompt's features (of :func:`features`, :func:`features2` or, for
    version 3, :func:`features3` with the agent's last ``turn``)."""
    if version == 3:
        feats = features3(masked_text, turn)
    elif version == 2:
        feats = features2(masked_text)
    else:
        feats = features(masked_text)
    return {bucket(f, buckets) for f in feats}


def decode(data: dict) -> dict:
    """The model in memory from the file's JSON: its weights as an ``array('f')``. Raises
    ValueError on a file that does not hold a whole model."""
    buckets = data["buckets"]
    weights = array("f", a2b_base64(data["weights_f32le"]))
    if sys.byteorder == "big":
        weights.byteswap()
    if buckets <= 0 or buckets & (buckets - 1) or len(weights) != buckets:
        raise ValueError("the weights do not fill the buckets")
    return {**data, "weights": weights}


def load(path: str = MODEL_PATH) -> dict | None:
    """The shipped model, once per process; None when the file is missing or unreadable (the
    rules still run: a capture must never break a prompt)."""
    global _model
    if _model is None:
        try:
            with open(path, encoding="utf-8") as fh:
                _model = decode(loads(fh.read()))
        except (OSError, ValueError, KeyError, TypeError):
            _model = {}
    return _model or None


def probability(masked_text: str, model: dict | None = None, turn=None) -> float:
    """The model's probability that the prompt corrects the agent (0 when there is no model);
    ``turn`` is the agent's last turn when the transcript could be read."""
    model = model if model is not None else load()
    if not model:
        return 0.0
    weights = model["weights"]
    feats = indexes(masked_text, model["buckets"], model.get("features", 1), turn)
    z = model["bias"] + sum(weights[i] for i in feats)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


_OPTIONAL_FLAGS = ("EDIT", "ERR", "REJ", "INT", "ASK", "DONE")
_TOOL_FLAGS = ("T0", "T1", "T2", "T3")


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _turn_cannot_tip_it(words: set[str], model: dict) -> bool:
    """Whether no turn the agent could have had makes this prompt a correction, so that the
    transcript need not be read: the words' score plus the most any combination of
    :func:`turn_flags` can add (``NONE`` alone, or any of the optional flags with one tool-count
    flag) stays under the threshold, and so does the words' score with ``UNK`` (no transcript)
    under its own threshold. Exact up to hash collisions among the flags' own features."""
    weights, buckets = model["weights"], model["buckets"]
    word_buckets = {bucket(f, buckets) for f in words}
    base = model["bias"] + sum(weights[i] for i in word_buckets)
    shape = [f for f in words if f.startswith(("WORDS", "^"))]

    def added(flag: str) -> float:
        own = {bucket("C_" + flag, buckets)} | {bucket(flag + "*" + f, buckets) for f in shape}
        return sum(weights[i] for i in own - word_buckets)

    most = max(
        added("NONE"),
        sum(max(0.0, added(f)) for f in _OPTIONAL_FLAGS) + max(added(f) for f in _TOOL_FLAGS),
    )
    blind = model.get("threshold_without_turn", model["threshold"])
    return base + most < _logit(model["threshold"]) and base + added("UNK") < _logit(blind)


def is_correction(masked_text: str, turn=None) -> bool:
    """Whether a short prompt the rules passed over reads as a correction to the model.
    ``turn`` is the agent's last turn, or a callable that reads it: called only for a prompt
    short enough to be scored whose words leave the turn able to tip it (most prompts are
    decided by their words alone, and then the transcript is not read)."""
    model = load()
    if not model or len(masked_text.split()) > model["max_words"]:
        return False
    threshold = model["threshold"]
    if model.get("features") == 3:
        words = features2(masked_text)
        if callable(turn):
            if _turn_cannot_tip_it(words, model):
                return False
            turn = turn()
        if turn is None:
            threshold = model.get("threshold_without_turn", threshold)
        weights, buckets = model["weights"], model["buckets"]
        z = model["bias"] + sum(weights[i] for i in {bucket(f, buckets) for f in features3(masked_text, turn, words)})
        return z >= _logit(threshold)
    if callable(turn):
        turn = turn()
    return probability(masked_text, model, turn) >= threshold
