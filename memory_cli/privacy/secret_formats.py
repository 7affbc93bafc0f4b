"""Provider secret formats (npm, Hugging Face, GitLab, SendGrid, DigitalOcean, ... 220 kinds),
taken as data from gitleaks' rule set.

Telling a token from an identifier needs each provider's format, and providers keep adding
them: a hand-kept list in :mod:`redact` had let ``npm_``, ``hf_``, ``glpat-``, ``SG.`` and
``dop_v1_`` tokens through. So the formats come from a well-kept secret scanner:
``secret_formats.json`` is gitleaks' ``config/gitleaks.toml`` (MIT, ``secret_formats.LICENSE``;
the source commit is in the file), rewritten for Python's ``re`` by
``scripts/vendor_gitleaks.py``. Matching follows gitleaks: a rule is tried only when one of
its keywords occurs in the text (case-folded), the secret is the rule's group, and a secret
below the rule's entropy, or allowed by the rule's or the global allowlist, is not one.

Kept cheap for the hooks that redact on every prompt: the data file is read on the first text
that needs it, each pattern is compiled the first time one of its keywords occurs (through
:mod:`regex_cache`, so a hook process does not recompile it), and a text without any keyword
costs one case fold and a substring search per keyword. Standard library only.
"""

from __future__ import annotations

import os

from ..util import entropy

__all__ = ["find", "rules", "source", "compile_all", "entropy"]

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "secret_formats.json")
_data: dict | None = None
_by_keyword: list[tuple[str, tuple[int, ...]]] = []
_compiled: dict = {}


def _load() -> dict:
    global _data, _by_keyword
    if _data is None:
        from .. import fastjson  # the json package would import re and more on the hook path

        try:
            with open(_PATH, encoding="utf-8") as fh:
                data = fastjson.loads(fh.read())
        except (OSError, ValueError):  # a broken install redacts with the built-in rules only
            data = {"rules": [], "allow": {}, "source": {}}
        index: dict[str, list[int]] = {}
        for i, r in enumerate(data.get("rules", [])):
            for k in r.get("keywords") or ():
                index.setdefault(k, []).append(i)
        _by_keyword = [(k, tuple(v)) for k, v in index.items()]
        _data = data
    return _data


def rules() -> list[dict]:
    """The vendored rules (id, regex, keywords, group, entropy, allow)."""
    return _load()["rules"]


def source() -> dict:
    """Where the rules come from: repository, path, commit, licence."""
    return _load().get("source", {})


def _pattern(key, source_text: str, flags: int = 0):
    pat = _compiled.get(key)
    if pat is None:
        from ..files import regex_cache

        pat = _compiled[key] = regex_cache.compile(source_text, flags)
    return pat


def compile_all() -> int:
    """Compile every rule's pattern (``memory-cli install`` warms the regex cache with them, so
    no hook compiles one); the number compiled."""
    n = 0
    for i, r in enumerate(rules()):
        try:
            _pattern(("rule", i), r["regex"])
            n += 1
        except Exception:
            pass
        for k, a in enumerate(r.get("allow") or ()):
            for m, rx in enumerate(a.get("regexes") or ()):
                _pattern(((i, k), m), rx)
    for m, rx in enumerate((_load().get("allow") or {}).get("regexes") or ()):
        _pattern(("global", m), rx)
    return n


def _line_of(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a : len(text) if b < 0 else b]


def _allowed(allow: dict, key: tuple[int, int] | str, secret: str, match: str, text: str, start: int, end: int) -> bool:
    target = allow.get("target", "secret")
    subject = match if target == "match" else _line_of(text, start, end) if target == "line" else secret
    for n, rx in enumerate(allow.get("regexes") or ()):
        if _pattern((key, n), rx).search(subject):
            return True
    low = secret.lower()
    return any(w in low for w in allow.get("stopwords") or ())


def _secret_span(m, group: int) -> tuple[int, int]:
    if group > 0 and group <= (m.re.groups or 0):
        return m.span(group)
    if group < 0:
        for g in range(1, (m.re.groups or 0) + 1):
            if m.group(g):
                return m.span(g)
    return m.span(0)


def find(text: str) -> list[tuple[int, int, str]]:
    """Spans ``(start, end, rule id)`` of the secrets in ``text``, in order, not overlapping."""
    if not text:
        return []
    data = _load()
    low = text.lower()
    todo: set[int] = set()
    for k, idx in _by_keyword:
        if k in low:
            todo.update(idx)
    if not todo:
        return []
    all_rules = data["rules"]
    glob = data.get("allow") or {}
    spans = []
    for i in sorted(todo):
        r = all_rules[i]
        try:
            pat = _pattern(("rule", i), r["regex"])
        except Exception:  # a pattern this interpreter refuses: the other rules still run
            continue
        for m in pat.finditer(text):
            start, end = _secret_span(m, r.get("group", 0))
            if end <= start:
                continue
            secret = text[start:end]
            if secret.startswith("[REDACTED") or (r.get("entropy") and entropy(secret) < r["entropy"]):
                continue
            if any(
                _allowed(a, (i, n), secret, m.group(0), text, start, end) for n, a in enumerate(r.get("allow") or ())
            ):
                continue
            if glob and _allowed(glob, "global", secret, m.group(0), text, start, end):
                continue
            spans.append((start, end, r["id"]))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    out: list[tuple[int, int, str]] = []
    for s in spans:
        if not out or s[0] >= out[-1][1]:
            out.append(s)
    return out
