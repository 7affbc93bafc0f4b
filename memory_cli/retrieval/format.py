"""How memories read when they are put in front of the model.

What the agent sees decides whether memory helps or just fills the context, so every rendering
here is budgeted: entries arrive best first, and each one is taken only if the whole block
(header and group headings included) still fits. Tokens are estimated as characters / 4, the
usual rough estimate for English, so "within N tokens" is simply "within 4*N characters".

Claude Code replaces any hook output string over 10,000 characters with a file path and a short
preview, which would hide every memory behind a path. So a configured budget is honoured up to
:data:`HARD_CHAR_LIMIT` (about 2,350 tokens) and no further; the session-start caller says so in
the text and to the person when that ceiling, not the budget, left memories out.

The wording states facts ("Recorded by memory-cli ...") rather than issuing "SYSTEM:" commands:
Claude Code wraps ``additionalContext`` in a system reminder, and imperative pseudo-system text
there can trip prompt-injection defences.

Standard library only: hooks import this on every session start and prompt.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and dataclasses cost ~15 ms of imports on every hook process
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

CHARS_PER_TOKEN = 4
#: Claude Code swaps hook output strings longer than this for a file path.
CLAUDE_OUTPUT_LIMIT = 10_000
#: Ceiling for any rendering: the hook answer's own cap (hooks.response, 9,500) less the
#: ``<memory-cli-context>`` wrapping and a margin.
HARD_CHAR_LIMIT = 9_400
#: One memory is one line; a pasted essay must not eat the budget of fifteen others.
DEFAULT_ENTRY_CHARS = 600

SESSION_TITLE = "Operational Memory"
SESSION_INTRO = "Recorded by memory-cli in earlier sessions; confidence runs from 0 to 1."
PROMPT_TITLE = "Memory related to this prompt"
SOLUTIONS_TITLE = "Past solutions to similar errors"

GENERAL_GROUP = "general"


def estimate_tokens(text: str) -> int:
    """Characters / 4, rounded up so an estimate never undercounts."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


class Rendered:
    """A rendering and what went into it.

    ``included`` keeps the callers' ranked order, so use counts can be updated for exactly the
    entries the model saw. ``text`` is empty when nothing was eligible or nothing fitted.
    """

    __slots__ = ("text", "included", "total", "tokens")

    def __init__(self, text: str, included: list | None = None, total: int = 0, tokens: int = 0) -> None:
        self.text = text
        self.included = list(included or [])
        self.total = total
        self.tokens = tokens

    def __repr__(self) -> str:
        return f"Rendered(count={self.count}, total={self.total}, tokens={self.tokens})"

    @property
    def count(self) -> int:
        return len(self.included)

    def __bool__(self) -> bool:
        return bool(self.text)


# ---------------------------------------------------------------------------------------------
# Reading entries: the store's rows, dicts from JSON, or dataclasses all work.


def field_of(entry: Any, name: str, default: Any = None) -> Any:
    if isinstance(entry, dict):
        return entry.get(name, default)
    return getattr(entry, name, default)


def _tags_of(entry: Any) -> list[str]:
    tags = field_of(entry, "tags")
    if not tags:
        return []
    if isinstance(tags, str):
        # The store keeps tags as a JSON array; tolerate it arriving undecoded.
        text = tags.strip()
        if text.startswith("["):
            import json

            try:
                decoded = json.loads(text)
            except ValueError:
                return [text]
            return [str(t) for t in decoded] if isinstance(decoded, list) else [text]
        return [t.strip() for t in text.split(",") if t.strip()]
    return [str(t) for t in tags]


def format_confidence(value: Any) -> str:
    """``1.0``, ``0.9``, ``0.85``: as many decimals as the value has, one at least."""
    try:
        c = float(value)
    except (TypeError, ValueError):
        c = 0.0
    c = min(1.0, max(0.0, c))
    text = f"{c:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def one_line(text: str, limit: int = DEFAULT_ENTRY_CHARS) -> str:
    """Collapse a memory to a single line without control characters, shortened to ``limit``."""
    cleaned = "".join(ch if ch >= " " or ch in "\t\n\r" else " " for ch in str(text))
    cleaned = " ".join(cleaned.split())
    if len(cleaned) > limit:
        cut = cleaned[: max(1, limit - 1)].rstrip()
        cleaned = cut + "…"
    return cleaned


def rejected_alternatives(entry: Any) -> list[str]:
    """Alternatives a decision recorded as rejected (tags ``rejected:<alternative>``)."""
    out = []
    for tag in _tags_of(entry):
        if tag.lower().startswith("rejected:"):
            alt = tag.split(":", 1)[1].strip()
            if alt:
                out.append(alt)
    return out


def bullet(entry: Any, *, entry_chars: int = DEFAULT_ENTRY_CHARS, show_subject: bool = True) -> str:
    """``- [rule] Never use pythonw.exe (confidence: 1.0)``.

    The tag is the memory's category when it has one (a marker's ``timing``, ``dependency`` ...),
    else its type. A memory about a subject (the service or tool a marker named) reads
    ``- [timing] jellyfin: Takes 60s to start (confidence: 0.9)`` unless it is listed under that
    subject's own heading (``show_subject=False``): the observation alone does not say what it is
    about. A decision whose rejected alternative is only in its tags gets it spelled out, so
    "what did we decide not to do" is answerable from the injected text itself. An entry the
    person did not write says where it came from (``; by the agent``), so Claude can
    weigh a repository's, a teammate's or a model's text as such.
    """
    kind = one_line(field_of(entry, "category") or field_of(entry, "type") or "memory", 40)
    content = one_line(field_of(entry, "content") or field_of(entry, "observation") or "", entry_chars)
    subject = one_line(field_of(entry, "subject") or "", 60)
    if show_subject and subject and not content.lower().startswith(subject.lower()):
        content = f"{subject}: {content}"
    lowered = content.lower()
    missing = [alt for alt in rejected_alternatives(entry) if alt.lower() not in lowered]
    extra = f"; rejected: {', '.join(missing)}" if missing else ""
    merged = field_of(entry, "merged") or []
    if merged:
        counts: dict = {}
        for m in merged:
            counts[one_line(m, 60)] = counts.get(one_line(m, 60), 0) + 1
        extra += "; also recorded as " + "; ".join(f"{m} x{n}" if n > 1 else m for m, n in list(counts.items())[:3])
    origin = field_of(entry, "origin")
    if origin and origin != "person":
        from ..provenance import label

        extra += f"; {label(origin)}"
    return f"- [{kind}] {content} (confidence: {format_confidence(field_of(entry, 'confidence', 0.0))}{extra})"


def scope_group(entry: Any) -> str:
    """The heading an entry is listed under: its scope (``project: x``), or for a global memory
    about a subject, that subject (``jellyfin``); other global memories are ``general``."""
    scope = str(field_of(entry, "scope") or "global").strip()
    if scope == "global" or not scope:
        subject = one_line(field_of(entry, "subject") or "", 60)
        return subject if subject and subject.lower() != GENERAL_GROUP else GENERAL_GROUP
    kind, sep, name = scope.partition(":")
    if sep and name:
        return f"{kind}: {name}"
    return scope


# ---------------------------------------------------------------------------------------------
# The budget


def _plural(n: int) -> str:
    return "memory" if n == 1 else "memories"


def _header(title: str, included: int, total: int, tokens: int) -> str:
    counted = f"{included} of {total}" if total > included else f"{included}"
    return f"## {title} ({counted} {_plural(total if total > included else included)}, ~{tokens:,} tokens)"


def _assemble(
    title: str, intro: str | None, groups: list[tuple[str | None, list[str]]], included: int, total: int
) -> tuple[str, int]:
    """Join the block and settle the header's own token count (which changes its length)."""
    parts: list[str] = []
    if intro:
        parts.append(intro)
    for heading, lines in groups:
        block = "\n".join(lines)
        parts.append(f"### {heading}\n{block}" if heading else block)
    body = "\n\n".join(parts)
    tokens = estimate_tokens(body)
    text = ""
    for _ in range(6):
        text = _header(title, included, total, tokens) + "\n\n" + body
        actual = estimate_tokens(text)
        if actual == tokens:
            break
        tokens = actual
    return text, tokens


def render_budgeted(
    entries: Iterable[Any],
    *,
    title: str,
    intro: str | None = None,
    total: int | None = None,
    max_entries: int = 15,
    max_tokens: int = 2000,
    max_chars: int = HARD_CHAR_LIMIT,
    group_by: Callable[[Any], str | None] | None = scope_group,
    last_group: str | None = GENERAL_GROUP,
    entry_chars: int = DEFAULT_ENTRY_CHARS,
    unlimited: bool = False,
) -> Rendered:
    """Take ranked entries while the whole block fits; skip one that does not and try the next.

    A long entry that would overflow is left out without ending the walk, so a shorter,
    lower-ranked memory can still use the room. ``total`` is how many memories were eligible
    (defaults to the number of entries given); the header reads "N of total" when some were
    left out.
    """
    ranked = list(entries)
    eligible = len(ranked) if total is None else max(int(total), 0)
    limit = min(max(int(max_tokens), 0) * CHARS_PER_TOKEN, max(int(max_chars), 0))
    if not unlimited:  # ``unlimited``: what the budget alone would take (to report what the ceiling cut)
        limit = min(limit, HARD_CHAR_LIMIT)
    cap = max(int(max_entries), 0)

    order: list[str | None] = []
    grouped: dict[str | None, list[str]] = {}
    chosen: list[Any] = []
    text, tokens = "", 0

    def layout() -> list[tuple[str | None, list[str]]]:
        keys = [k for k in order if k != last_group or last_group is None]
        if last_group is not None and last_group in grouped:
            keys.append(last_group)
        return [(k, grouped[k]) for k in keys]

    for entry in ranked:
        if len(chosen) >= cap:
            break
        key = group_by(entry) if group_by else None
        line = bullet(
            entry,
            entry_chars=entry_chars,
            show_subject=not key or key != one_line(field_of(entry, "subject") or "", 60),
        )
        if len(line) + len(text) > limit and chosen:
            continue  # cannot fit whatever the layout; skip without re-rendering
        new_group = key not in grouped
        if new_group:
            order.append(key)
            grouped[key] = []
        grouped[key].append(line)
        candidate, cand_tokens = _assemble(title, intro, layout(), len(chosen) + 1, max(eligible, len(chosen) + 1))
        if len(candidate) <= limit:
            chosen.append(entry)
            text, tokens = candidate, cand_tokens
            continue
        grouped[key].pop()
        if new_group:
            order.pop()
            del grouped[key]

    if not chosen:
        return Rendered(text="", included=[], total=eligible, tokens=0)
    # The final header must count every eligible memory, not the running total.
    text, tokens = _assemble(title, intro, layout(), len(chosen), max(eligible, len(chosen)))
    return Rendered(text=text, included=chosen, total=max(eligible, len(chosen)), tokens=tokens)


# ---------------------------------------------------------------------------------------------
# The three renderings the hooks use


def render_session(
    entries: Sequence[Any],
    *,
    total: int | None = None,
    max_entries: int = 15,
    max_tokens: int = 2000,
    max_chars: int = HARD_CHAR_LIMIT,
    title: str = SESSION_TITLE,
    unlimited: bool = False,
) -> Rendered:
    """The SessionStart block: grouped by scope (global memories by subject), general memories last.

    ``## Operational Memory (12 of 18 memories, ~1,847 tokens)`` then ``### project: x`` groups
    of ``- [type] content (confidence: c)`` bullets.
    """
    return render_budgeted(
        entries,
        title=title,
        intro=SESSION_INTRO,
        total=total,
        max_entries=max_entries,
        max_tokens=max_tokens,
        max_chars=max_chars,
        unlimited=unlimited,
    )


def render_prompt(
    entries: Sequence[Any],
    *,
    total: int | None = None,
    max_entries: int = 3,
    max_tokens: int = 300,
    max_chars: int = HARD_CHAR_LIMIT,
) -> Rendered:
    """The per-prompt block: a few bullets, no groups, a small budget, shorter lines."""
    return render_budgeted(
        entries,
        title=PROMPT_TITLE,
        total=total,
        max_entries=max_entries,
        max_tokens=max_tokens,
        max_chars=max_chars,
        group_by=None,
        last_group=None,
        entry_chars=300,
    )


def render_solutions(
    entries: Sequence[Any],
    *,
    tool_name: str | None = None,
    total: int | None = None,
    max_entries: int = 3,
    max_tokens: int = 400,
    max_chars: int = HARD_CHAR_LIMIT,
) -> Rendered:
    """Memories offered after a failed tool call, introduced as matches for that failure."""
    what = f"the failed {one_line(tool_name, 60)} call" if tool_name else "the failed tool call"
    intro = f"Memories that match the error from {what}, best match first."
    return render_budgeted(
        entries,
        title=SOLUTIONS_TITLE,
        intro=intro,
        total=total,
        max_entries=max_entries,
        max_tokens=max_tokens,
        max_chars=max_chars,
        group_by=None,
        last_group=None,
        entry_chars=400,
    )


def join_blocks(*blocks: str, limit: int = HARD_CHAR_LIMIT) -> str:
    """Join context blocks, dropping trailing ones that would push the total past ``limit``."""
    out = ""
    for block in blocks:
        if not block:
            continue
        candidate = f"{out}\n\n{block}" if out else block
        if len(candidate) > limit:
            continue
        out = candidate
    return out
