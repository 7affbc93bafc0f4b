"""Developer concepts a question names by their general name, and the tools that are instances.

"Which package manager should I use?" shares no useful word with "Use pnpm, never npm": the
question names the concept, the memory names an instance. BM25 cannot see that (and a small
embedding model sees it only weakly), while a memory that names an instance of the concept the
question asks about is exactly the answer. This table is that link for the concepts coding
sessions ask about most; the ranking treats "the query names a concept and the memory names one
of its instances" as evidence like the query naming the memory's subject.

Standard library only: hooks import this.
"""

from __future__ import annotations

import re

from ..files import regex_cache

# (pattern for the concept in a question, instances a memory may name)
_CONCEPTS = (
    (
        r"package[- ]?managers?|install(?:ing)? (?:the )?(?:dependencies|deps|packages)|dependency manage\w*",
        "npm pnpm yarn bun pip pipx uv poetry conda cargo gem composer brew apt",
    ),
    (r"linters?|linting", "ruff eslint flake8 pylint clippy golangci-lint shellcheck stylelint"),
    (r"formatters?|format(?:ting)? (?:the )?code|code style", "ruff black prettier gofmt rustfmt isort clang-format"),
    (
        r"test runners?|testing framework|run(?:ning)? (?:the )?tests|test suite",
        "pytest jest vitest mocha unittest tox nox",
    ),
    (r"virtual ?env(?:ironment)?s?|venvs?|python environments?", "uv venv virtualenv conda poetry pyenv"),
    (r"type[- ]?check(?:er|ing|s)?|static typing", "mypy pyright tsc typescript"),
    (r"containers?|containeri[sz]\w*", "docker podman compose kubernetes"),
    (r"bundlers?|build tools?", "webpack vite esbuild rollup parcel make cmake bazel"),
    (r"continuous integration|\bci\b|ci pipelines?", "github actions jenkins gitlab circleci"),
    (r"python interpreter|which python", "python python3 pythonw python.exe"),
    (r"node versions?|node version manager", "nvm fnm volta"),
)
_COMPILED: list = []


def _compiled():
    if not _COMPILED:
        _COMPILED.extend((regex_cache.compile(r"\b(?:" + p + r")\b", re.I), tuple(i.split())) for p, i in _CONCEPTS)
    return _COMPILED


def instances(query: str) -> list[str]:
    """Instance words of every concept ``query`` names, in table order, without repeats."""
    if not query:
        return []
    out: list[str] = []
    for pattern, words in _compiled():
        if pattern.search(query):
            out.extend(w for w in words if w not in out)
    return out


def names_instance(content: str | None, words) -> bool:
    """Does ``content`` name one of ``words`` (whole words, case-insensitive)?"""
    if not content or not words:
        return False
    low = content.lower()
    for w in words:
        i = low.find(w)
        while i >= 0:
            before = low[i - 1] if i > 0 else " "
            after = low[i + len(w)] if i + len(w) < len(low) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return True
            i = low.find(w, i + 1)
    return False
