"""A matching example for a secret rule's regex, written from the regex itself.

Used to build a corpus with one planted secret for every kind the vendored scanner rules
name: walking the parsed pattern, each literal is copied, each character class gives
characters drawn from it at random (seeded, so the corpus is the same every run, and varied,
so the example passes the rule's entropy threshold), each repeat gets a length in its range,
and each alternation takes the branch chosen by the seed. Lookarounds are left out, so a
candidate is kept only when the rule's own regex matches it.
"""

from __future__ import annotations

import random
import string

try:  # Python 3.11+
    from re import _constants as c
    from re import _parser as parser
except ImportError:  # pragma: no cover
    import sre_constants as c  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

_PRINTABLE = [ch for ch in string.ascii_letters + string.digits]
_NEGATED_POOL = _PRINTABLE + list(" -_.:;,")
_CATEGORIES = {
    c.CATEGORY_DIGIT: string.digits,
    c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    c.CATEGORY_SPACE: " ",
    c.CATEGORY_NOT_DIGIT: string.ascii_letters,
    c.CATEGORY_NOT_WORD: "-",
    c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
}


def _class_chars(items) -> list[str]:
    allowed: set[str] = set()
    negate = False
    for op, av in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            allowed.add(chr(av))
        elif op is c.RANGE:
            lo, hi = av
            allowed.update(chr(x) for x in range(lo, min(hi, lo + 200) + 1))
        elif op is c.CATEGORY:
            allowed.update(_CATEGORIES.get(av, ""))
    if negate:
        return [ch for ch in _NEGATED_POOL if ch not in allowed]
    printable = [ch for ch in allowed if ch.isprintable()]
    nice = [ch for ch in printable if ch.isalnum()]
    return nice or printable or sorted(allowed)


def _gen(items, rng: random.Random, out: list[str], flags: int) -> None:
    for op, av in items:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.NOT_LITERAL:
            out.append("x" if chr(av) != "x" else "y")
        elif op is c.ANY:
            out.append(rng.choice(_PRINTABLE))
        elif op is c.IN:
            out.append(rng.choice(_class_chars(av)))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
            lo, hi, sub = av
            hi = lo + 8 if hi == c.MAXREPEAT else hi
            n = lo if lo >= 8 else rng.randint(lo, max(lo, min(hi, lo + 8, 64)))
            if lo == 0 and n == 0 and rng.random() < 0.5:
                n = 1
            for _ in range(n):
                _gen(sub, rng, out, flags)
        elif op is c.SUBPATTERN:
            _gen(av[-1], rng, out, flags)
        elif op is c.BRANCH:
            branches = av[1]
            _gen(branches[rng.randrange(len(branches))], rng, out, flags)
        elif op is getattr(c, "ATOMIC_GROUP", None):
            _gen(av, rng, out, flags)
        # AT (anchors), ASSERT, ASSERT_NOT, GROUPREF: nothing to write


def candidates(regex: str, tries: int = 400):
    """Example texts for ``regex``, most likely to match first."""
    parsed = parser.parse(regex)
    for seed in range(tries):
        rng = random.Random(seed)
        out: list[str] = []
        _gen(list(parsed), rng, out, 0)
        yield "".join(out)
