"""Turn markdown memory files into entry candidates.

People already keep memory in markdown: CLAUDE.md and CLAUDE.local.md, Claude Code's own
auto-memory folders (``~/.claude/projects/<encoded-path>/memory/``, one fact per file with
frontmatter, plus a MEMORY.md index), and the shared hot-memory.md, corrections-log.md,
context-memory.md and decisions-log.md. Moving to the store must not lose any of it, and must
not drag in what is not memory: memory-cli's own pin block (which is generated *from* the
store), code samples, tables of contents, placeholders.

Each heading's prose and each bullet becomes one candidate. A section written as a record
(``Decision: ...``, ``Rejected: ...``, ``Why: ...`` or ``Wrong:`` / ``Right:``) stays one
candidate, because its fields only mean something together. Types are inferred from the file
(a corrections log holds corrections), the wording, then the heading. Scope comes from where
the file lives. A fingerprint of the normalised content and scope lets an import recognise
what an earlier import already added.

Standard library only, and nothing here touches the database.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

ENTRY_TYPES = ("rule", "correction", "preference", "fact", "pattern", "decision")

#: Files recognised by name when a directory is given as a source.
MEMORY_FILE_NAMES = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    "MEMORY.md",
    "hot-memory.md",
    "corrections-log.md",
    "context-memory.md",
    "decisions-log.md",
)

PIN_BEGIN = "<!-- memory-cli:pins:begin"
PIN_END = "<!-- memory-cli:pins:end -->"


@dataclass
class Candidate:
    """One memory found in a file, ready to become an entry."""

    content: str
    type: str
    scope: str
    tags: list[str] = field(default_factory=list)
    source_file: str = ""
    line: int = 0
    date: str | None = None  # ISO date found in a log heading or a ``Date:`` field

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.content, self.scope)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["fingerprint"] = self.fingerprint
        return d


# ---------------------------------------------------------------------------------------------
# Fingerprints


_MD_NOISE = re.compile(r"[`*_>#~]")
_TRAILING_PUNCT = re.compile(r"[\s.;:!,]+$")


def normalise_content(text: str) -> str:
    """What two spellings of the same memory share: case, markdown marks, spacing, end stops."""
    t = _MD_NOISE.sub("", text.lower())
    t = " ".join(t.split())
    return _TRAILING_PUNCT.sub("", t)


def fingerprint(content: str, scope: str) -> str:
    """Stable id of a memory's meaning in a scope; an import skips fingerprints already stored."""
    key = f"{scope.strip().lower()}\n{normalise_content(content)}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


# ---------------------------------------------------------------------------------------------
# Scopes


def project_scope(name: str) -> str:
    """``project:<name>`` with the name folded the way scopes are compared (lower case, dashes)."""
    from memory_cli.scope import normalize_project

    cleaned = normalize_project(name)
    return f"project:{cleaned}" if cleaned else "global"


def _claude_home(claude_home: Path | str | None) -> Path:
    if claude_home is not None:
        return Path(claude_home).expanduser()
    from memory_cli import paths

    return paths.claude_dir()


def _safe_resolve(p: Path) -> Path:
    try:
        return p.expanduser().resolve()
    except OSError:
        return p.expanduser().absolute()


_PATH_ENCODING = re.compile(r"[^A-Za-z0-9]")


def encode_project_path(path: str) -> str:
    """Claude Code's folder name for a project path: every non-alphanumeric becomes ``-``."""
    return _PATH_ENCODING.sub("-", path)


def _cwd_from_transcripts(folder: Path) -> str | None:
    """The project path as Claude Code itself recorded it in that folder's transcripts."""
    try:
        transcripts = sorted(folder.glob("*.jsonl"))[:5]
    except OSError:
        return None
    for transcript in transcripts:
        try:
            with transcript.open("r", encoding="utf-8", errors="replace") as fh:
                for _, line in zip(range(50), fh):
                    if '"cwd"' not in line:
                        continue
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    cwd = record.get("cwd") if isinstance(record, dict) else None
                    if isinstance(cwd, str) and encode_project_path(cwd) == folder.name:
                        return cwd
        except OSError:
            continue
    return None


def _cwd_from_filesystem(encoded: str) -> str | None:
    """Rebuild the path by walking directories whose encoded names match, longest first."""
    if not encoded.startswith("-"):
        return None

    def walk(base: Path, rest: str, depth: int) -> str | None:
        if not rest:
            return str(base)
        if depth > 40:
            return None
        try:
            children = sorted((c for c in base.iterdir() if c.is_dir()), key=lambda c: -len(c.name))
        except OSError:
            return None
        for child in children:
            enc = encode_project_path(child.name)
            if rest == enc:
                return str(child)
            if rest.startswith(enc + "-"):
                found = walk(child, rest[len(enc) + 1 :], depth + 1)
                if found:
                    return found
        return None

    return walk(Path("/"), encoded[1:], 0)


_CONTAINER_DIRS = {
    "code",
    "src",
    "projects",
    "project",
    "repos",
    "repo",
    "dev",
    "work",
    "git",
    "workspace",
    "workspaces",
    "documents",
    "github",
    "source",
    "sites",
}


def decode_project_folder(folder: Path | str) -> str:
    """The project name behind ``~/.claude/projects/<encoded-path>``.

    The encoding (``/home/u/whisperclick`` -> ``-home-u-whisperclick``) loses which dashes were
    slashes, so the transcripts' own ``cwd`` is asked first, then the file system, and only then
    a guess: the part after the home directory, minus a container such as ``code/``.
    """
    folder = Path(folder)
    name = folder.name
    cwd = _cwd_from_transcripts(folder) or _cwd_from_filesystem(name)
    if cwd:
        return Path(cwd).name or name
    rest = name
    home_enc = encode_project_path(str(Path.home()))
    if home_enc and rest.startswith(home_enc + "-"):
        rest = rest[len(home_enc) + 1 :]
    else:
        parts = [p for p in rest.split("-") if p]
        return parts[-1] if parts else name
    parts = [p for p in rest.split("-") if p]
    while len(parts) > 1 and parts[0].lower() in _CONTAINER_DIRS:
        parts = parts[1:]
    return "-".join(parts) or name


def _projects_memory_folder(path: Path, home: Path) -> Path | None:
    """The ``~/.claude/projects/<encoded>`` folder holding ``path``, if it is auto-memory."""
    projects = _safe_resolve(home / "projects")
    try:
        rel = path.relative_to(projects)
    except ValueError:
        # Not under this home; still recognise the layout anywhere (a copied ~/.claude).
        parts = path.parts
        for i in range(len(parts) - 3, -1, -1):
            if parts[i] == "projects" and i + 2 < len(parts) and parts[i + 2] == "memory":
                return Path(*parts[: i + 2])
        return None
    if len(rel.parts) >= 3 and rel.parts[1] == "memory":
        return projects / rel.parts[0]
    return None


_PROJECT_MARKERS = (".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod", ".claude")


def scope_for_file(path: Path | str, *, claude_home: Path | str | None = None) -> str:
    """Scope from where a memory file lives.

    ``~/.claude/CLAUDE.md`` (and anything else directly in Claude Code's directory) is global;
    ``~/.claude/projects/<encoded>/memory/*`` belongs to the decoded project; a CLAUDE.md,
    CLAUDE.local.md or ``.claude/`` file belongs to the directory it describes; other files
    belong to a project only when they sit at that project's root, otherwise they are global
    (the shared memory files describe the person, not one repository).
    """
    p = _safe_resolve(Path(path))
    home = _safe_resolve(_claude_home(claude_home))
    folder = _projects_memory_folder(p, home)
    if folder is not None:
        return project_scope(decode_project_folder(folder))
    try:
        p.relative_to(home)
        return "global"
    except ValueError:
        pass
    directory = p.parent
    if directory.name == ".claude":
        return project_scope(directory.parent.name)
    if directory.name == "rules" and directory.parent.name == ".claude":
        return project_scope(directory.parent.parent.name)
    if p.name in ("CLAUDE.md", "CLAUDE.local.md"):
        return project_scope(directory.name)
    if any((directory / marker).exists() for marker in _PROJECT_MARKERS):
        return project_scope(directory.name)
    return "global"


# ---------------------------------------------------------------------------------------------
# Types


_DECISION_WORDS = re.compile(
    r"\b(decided|decision|chose|chosen|opted (?:for|to)|went with|settled on|agreed to|ruled out|"
    r"we rejected|rejected in favou?r|was rejected|considered and rejected)\b",
    re.I,
)
_CONDITIONAL = re.compile(r"^(when|whenever|if|after|before|once)\b[^.;]{2,}?(,|:|->|→|\bthen\b)", re.I)
_IMPERATIVE_START = re.compile(
    r"^(never|always|must|don'?t|do not|avoid|stop|no more|only ever|make sure|ensure)\b", re.I
)
_IMPERATIVE_ANY = re.compile(r"\b(must|mustn'?t|shall not|should never)\b", re.I)
_PREFERENCE = re.compile(
    r"\b(prefers?|preferred|preference|rather than|favou?rs?)\b"
    r"|\b(i|user|users|we|they|he|she|team|don'?t|doesn'?t|does not|do not)\s+(really\s+)?"
    r"(likes?|loves?|hates?|dislikes?|wants?)\b",
    re.I,
)
_PATTERN_CUES = re.compile(
    r"\b(workaround|recurring|every time|each time|the fix( is|:)|fixed by|fix:|solution:|"
    r"root cause|usually (caused|fixed)|symptom)\b|->|→",
    re.I,
)

_HEADING_HINTS = (
    (re.compile(r"\b(corrections?|mistakes?|lessons?( learned)?)\b", re.I), "correction"),
    (re.compile(r"\b(decisions?|adrs?|trade-?offs?)\b", re.I), "decision"),
    (re.compile(r"\b(rules?|don'?ts|do not|constraints?|guardrails?|requirements?|must)\b", re.I), "rule"),
    (re.compile(r"\b(preferences?|style|conventions?|likes?)\b", re.I), "preference"),
    (
        re.compile(r"\b(patterns?|gotchas?|troubleshooting|fixes|known issues|workarounds?|recipes?|errors?)\b", re.I),
        "pattern",
    ),
)

_FRONTMATTER_TYPES = {"feedback": "correction", "user": "preference", "project": "fact", "reference": "fact"}
_FILE_KIND_TYPES = {"corrections": "correction", "decisions": "decision"}


def file_kind(path: Path | str) -> str:
    """What a file is by name: ``corrections``, ``decisions``, ``claude``, ``index`` or ``notes``."""
    stem = Path(path).name.lower()
    if stem.startswith("corrections"):
        return "corrections"
    if stem.startswith("decisions"):
        return "decisions"
    if stem in ("claude.md", "claude.local.md"):
        return "claude"
    if stem == "memory.md":
        return "index"
    return "notes"


def _clauses(text: str) -> Iterator[str]:
    yield text
    yield from re.split(r"(?:[.;:!?]|\s[—–-])\s+", text)[1:]


def infer_type(text: str, *, kind: str = "notes", headings: Iterable[str] = (), default: str | None = None) -> str:
    """rule, correction, preference, fact, pattern or decision, from the strongest evidence.

    Order: the file (a corrections log holds corrections), decision wording, an imperative
    (never/always/must/don't), a "when X, do Y" shape, the heading the bullet sits under,
    preference wording, recurring-fix wording, the file's frontmatter type, and fact.
    """
    if kind in _FILE_KIND_TYPES:
        return _FILE_KIND_TYPES[kind]
    plain = _strip_emphasis(text).strip()
    if _DECISION_WORDS.search(plain):
        return "decision"
    if any(_IMPERATIVE_START.search(c.strip()) for c in _clauses(plain)) or _IMPERATIVE_ANY.search(plain):
        return "rule"
    if _CONDITIONAL.search(plain):
        return "pattern"
    for heading in reversed(list(headings)):
        for pattern, kind_of in _HEADING_HINTS:
            if pattern.search(heading):
                return kind_of
    if _PREFERENCE.search(plain):
        return "preference"
    if _PATTERN_CUES.search(plain):
        return "pattern"
    if default in ENTRY_TYPES:
        return default
    return "fact"


# ---------------------------------------------------------------------------------------------
# Rejected alternatives (negative retrieval)

_REJECTED_PHRASES = (
    re.compile(r"\b(?:decided|chose|voted) against\s+(?:using\s+)?(?P<alt>[^.;,()]+)", re.I),
    re.compile(r"\b(?:rejected|ruled out|dropped|abandoned)\s+(?:using\s+)?(?P<alt>[^.;,()]+)", re.I),
    re.compile(
        r"\b(?:chose|picked|went with|opted for|settled on|use|using|prefer)\s+[^.;,()]+?"
        r"\s+(?:over|instead of|rather than)\s+(?P<alt>[^.;,()]+)",
        re.I,
    ),
    re.compile(r"\bnot\s+(?P<alt>[A-Za-z0-9][\w.+-]*(?:\s[\w.+-]+)?)\s*\((?:rejected|considered)", re.I),
)
_ALT_STOP = re.compile(r"\s+(?:(?:because|since|as|due|for|which|so|after|when|but|until)\b|[—–-]\s).*$", re.I)


def rejected_tag(alternative: str) -> str | None:
    """``rejected:<alternative>`` as a tag: lower case, dashes, at most five words."""
    alt = re.sub(r"\([^)]*\)", " ", alternative)
    alt = _ALT_STOP.sub("", alt.strip())
    alt = _strip_emphasis(alt).strip(" `'\".:")
    words = re.findall(r"[a-z0-9][a-z0-9.+#-]*", alt.lower())[:5]
    if not words or words[0] in ("it", "that", "this", "them", "the", "a", "an") and len(words) == 1:
        return None
    return "rejected:" + "-".join(words)


def rejected_in_text(text: str) -> list[str]:
    """Rejected-alternative tags a decision's wording states ("chose X over Y", "rejected Z")."""
    tags: list[str] = []
    for pattern in _REJECTED_PHRASES:
        for m in pattern.finditer(text):
            for alt in re.split(r"\s*(?:,|/|\bor\b|\band\b)\s*", m.group("alt")):
                tag = rejected_tag(alt)
                if tag and tag not in tags:
                    tags.append(tag)
    return tags


# ---------------------------------------------------------------------------------------------
# Markdown clean-up


_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_WIKI = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def _strip_emphasis(text: str) -> str:
    return _EMPHASIS.sub(r"\2", text)


def _clean_inline(text: str) -> str:
    def link(m: re.Match) -> str:
        label, target = m.group(1).strip(), m.group(2).strip()
        if target.startswith(("http://", "https://")) and target not in label:
            return f"{label} ({target})" if label else target
        return label or target

    text = _LINK.sub(link, text)
    text = _WIKI.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    text = _strip_emphasis(text)
    return " ".join(text.split())


def _slug(text: str, words: int = 5) -> str:
    parts = re.findall(r"[a-z0-9][a-z0-9+#.]*", _strip_emphasis(text).lower())[:words]
    return "-".join(p.strip(".") for p in parts if p.strip("."))[:48].strip("-")


_GENERIC_HEADINGS = {
    "notes",
    "note",
    "memory",
    "memories",
    "misc",
    "miscellaneous",
    "general",
    "other",
    "overview",
    "index",
    "claude.md",
    "claude",
    "hot memory",
    "context memory",
    "decisions log",
    "corrections log",
    "decision log",
    "correction log",
    "log",
    "memory index",
    "auto memory",
    "project memory",
    "claude.local.md",
}
_TOC_HEADINGS = {"table of contents", "contents", "toc", "index of topics"}
_BOILERPLATE = re.compile(
    r"^(todo|tbd|tba|n/?a|none|none yet|nothing yet|nothing here yet|empty|placeholder|\.\.\.|…|"
    r"\(none\)|\(empty\)|\(todo\)|add (more )?(entries|items|notes|rules) (here|below)|"
    r"last updated\b.*|updated: ?\d.*|see (above|below)|etc\.?)$",
    re.I,
)
_INIT_BOILERPLATE = re.compile(r"^this file provides guidance to claude code|^# ?claude\.md$", re.I)
_TOC_LINK = re.compile(r"^\[[^\]]+\]\(#[^)]*\)$")


def _is_boilerplate(text: str) -> bool:
    t = text.strip().strip("-*_ ").strip()
    if not t or _BOILERPLATE.match(t) or _INIT_BOILERPLATE.match(t):
        return True
    if _TOC_LINK.match(t):
        return True
    return len(re.findall(r"[A-Za-z0-9]{2,}", t)) < 2


def _heading_title(text: str) -> str:
    """A heading without its date, numbering or emphasis (``## 2025-01-14 — pythonw`` -> ``pythonw``)."""
    t = _clean_inline(text)
    t = _DATE.sub(" ", t)
    t = re.sub(r"^\d+[.)]\s+", "", t)
    return t.strip(" -—–:|·").strip()


def _is_generic_heading(title: str) -> bool:
    return not title or title.lower() in _GENERIC_HEADINGS


# ---------------------------------------------------------------------------------------------
# Frontmatter


def split_frontmatter(text: str) -> tuple[dict, str, int]:
    """(fields, body, lines used): flat ``key: value`` pairs, ``metadata:`` nesting flattened,
    ``>``/``|`` block scalars joined. Unknown shapes are ignored rather than fatal."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    end = next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, text, 0
    fields: dict = {}
    block_key, block_lines = None, []

    def close_block() -> None:
        nonlocal block_key, block_lines
        if block_key:
            fields[block_key] = " ".join(s.strip() for s in block_lines if s.strip())
        block_key, block_lines = None, []

    for raw in lines[1:end]:
        if block_key and (raw.startswith((" ", "\t")) or not raw.strip()):
            block_lines.append(raw)
            continue
        close_block()
        m = re.match(r"^\s*([A-Za-z_][\w-]*)\s*:\s*(.*)$", raw)
        if not m:
            m_item = re.match(r"^\s*-\s+(.*)$", raw)
            if m_item and fields.get("_last_list") is not None:
                fields[fields["_last_list"]].append(m_item.group(1).strip().strip("'\""))
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if value in (">", "|", ">-", "|-", ">+", "|+"):
            block_key = key
            continue
        if value == "":
            fields[key] = []
            fields["_last_list"] = key
            continue
        if value.startswith("[") and value.endswith("]"):
            fields[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
        else:
            fields[key] = value.strip("'\"")
    close_block()
    fields.pop("_last_list", None)
    fields = {k: v for k, v in fields.items() if v != []}
    return fields, "\n".join(lines[end + 1 :]), end + 1


# ---------------------------------------------------------------------------------------------
# Block structure


_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET_RE = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_TABLE_RE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HR_RE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_IMPORT_RE = re.compile(r"^@[\w./~-]+$")
_FIELD_RE = re.compile(r"^(?:\*\*|__)?([A-Za-z][A-Za-z /'-]{0,30}?)(?::(?:\*\*|__)|(?:\*\*|__)\s*:|:)\s*(.*)$")

_FIELD_KEYS = {
    "decision": "decision",
    "decided": "decision",
    "chosen": "decision",
    "choice": "decision",
    "rejected": "rejected",
    "rejected alternative": "rejected",
    "rejected alternatives": "rejected",
    "alternatives": "rejected",
    "alternatives considered": "rejected",
    "considered": "rejected",
    "not chosen": "rejected",
    "instead of": "rejected",
    "why": "reason",
    "reason": "reason",
    "rationale": "reason",
    "because": "reason",
    "context": "context",
    "status": "status",
    "date": "date",
    "consequences": "reason",
    "wrong": "wrong",
    "what was wrong": "wrong",
    "mistake": "wrong",
    "incorrect": "wrong",
    "right": "right",
    "what is right": "right",
    "correct": "right",
    "correction": "right",
    "instead": "right",
    "lesson": "right",
    "error": "error",
    "symptom": "error",
    "cause": "cause",
    "root cause": "cause",
    "fix": "fix",
    "solution": "fix",
    "resolution": "fix",
    "how to apply": "reason",
}


@dataclass
class _Item:
    text: str
    line: int
    indent: int
    children: list = field(default_factory=list)  # list[_Item]


@dataclass
class _Section:
    headings: list  # list[tuple[int, str]]: (level, raw heading text) from outermost
    line: int
    blocks: list = field(default_factory=list)  # ("para"|"item"|"row", payload, line)


def _mask(lines: list[str]) -> list[str]:
    """Blank out what is never memory, keeping line numbers: fences, comments, the pin block."""
    out: list[str] = []
    fence = None
    in_pins = in_comment = False
    for raw in lines:
        stripped = raw.strip()
        if in_pins:
            out.append("")
            if stripped.startswith(PIN_END.rstrip(" ->")) or PIN_END in stripped:
                in_pins = False
            continue
        if fence:
            out.append("")
            if stripped.startswith(fence):
                fence = None
            continue
        if in_comment:
            out.append("")
            if "-->" in stripped:
                in_comment = False
            continue
        if stripped.startswith(PIN_BEGIN):
            in_pins = PIN_END not in stripped
            out.append("")
            continue
        m = _FENCE_RE.match(raw)
        if m:
            fence = m.group(1)
            out.append("")
            continue
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            out.append("")
            continue
        out.append(re.sub(r"<!--.*?-->", "", raw))
    return out


def _sections(lines: list[str], first_line: int) -> list[_Section]:
    """Group lines into heading sections holding paragraphs, top-level list items and table rows."""
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    current = _Section(headings=[], line=first_line)
    sections.append(current)
    para: list[str] = []
    para_line = 0
    item: _Item | None = None
    table_header: list[str] | None = None
    blank_before = True

    def flush_para() -> None:
        nonlocal para
        if para:
            current.blocks.append(("para", para, para_line))
        para = []

    def close_item() -> None:
        nonlocal item
        if item is not None:
            current.blocks.append(("item", item, item.line))
        item = None

    for offset, raw in enumerate(lines):
        lineno = first_line + offset
        stripped = raw.strip()
        if not stripped:
            flush_para()
            blank_before = True
            table_header = None
            continue
        h = _HEADING_RE.match(raw) if not raw.startswith((" ", "\t")) else None
        if h:
            flush_para()
            close_item()
            level = len(h.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, h.group(2)))
            current = _Section(headings=list(stack), line=lineno)
            sections.append(current)
            blank_before = True
            table_header = None
            continue
        if _HR_RE.match(raw):
            flush_para()
            close_item()
            blank_before = True
            continue
        if _TABLE_RE.match(raw):
            flush_para()
            close_item()
            if _TABLE_SEP.match(raw):
                continue
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if table_header is None:
                table_header = cells
            else:
                current.blocks.append(("row", (table_header, cells), lineno))
            continue
        b = _BULLET_RE.match(raw)
        if b:
            flush_para()
            indent = len(b.group(1).expandtabs(4))
            text = _CHECKBOX.sub("", b.group(2).strip())
            if item is None or indent <= item.indent:
                close_item()
                item = _Item(text=text, line=lineno, indent=indent)
            else:
                parent = item
                while parent.children and indent > parent.children[-1].indent:
                    parent = parent.children[-1]
                parent.children.append(_Item(text=text, line=lineno, indent=indent))
            blank_before = False
            continue
        indent = len(raw) - len(raw.lstrip())
        if item is not None and (not blank_before or indent > item.indent):
            target = item
            while target.children:
                target = target.children[-1]
            target.text += " " + stripped
            blank_before = False
            continue
        close_item()
        text = stripped[1:].strip() if stripped.startswith(">") else stripped
        if not para:
            para_line = lineno
        para.append(text)
        blank_before = False
    flush_para()
    close_item()
    return sections


def _as_field(text: str) -> tuple[str, str] | None:
    m = _FIELD_RE.match(text.strip())
    if not m:
        return None
    key = " ".join(m.group(1).lower().split())
    if key not in _FIELD_KEYS or not m.group(2).strip():
        return None
    return key, m.group(2).strip()


def _item_text(item: _Item) -> list[str]:
    """One or more memory texts from a list item and its children.

    A label ending in ``:`` ("Python:") prefixes each child ("Python: never use X"); a full
    statement keeps its children as details in one memory.
    """
    head = item.text.strip()
    if not item.children:
        return [] if head.endswith(":") else [head]  # a lead-in whose example was a code block

    def flat(child: _Item) -> str:
        inner = "; ".join(flat(c) for c in child.children)
        return f"{child.text.strip()} ({inner})" if inner else child.text.strip()

    if head.endswith(":"):
        label = head[:-1].strip()
        return [f"{label}: {flat(c)}" if label else flat(c) for c in item.children]
    details = "; ".join(flat(c) for c in item.children)
    joiner = " " if head.endswith((".", ";", "—", "-")) else ": " if not head.endswith(")") else " "
    return [f"{head}{joiner}{details}"]


# ---------------------------------------------------------------------------------------------
# Parsing


def _section_tags(headings: list[tuple[int, str]], doc_title: str | None) -> list[str]:
    tags: list[str] = []
    for level, raw in headings:
        if level == 1 and raw == doc_title:
            continue
        title = _heading_title(raw)
        if _is_generic_heading(title):
            continue
        slug = _slug(title)
        if slug and slug not in tags:
            tags.append(slug)
    return tags


def _record(section: _Section, kind: str, fm_default: str | None) -> tuple[str, str, list[str], str | None] | None:
    """A section written as one record (Decision/Rejected/Why, Wrong/Right, Error/Fix)."""
    fields: list[tuple[str, str]] = []
    plain: list[str] = []
    for kind_of, payload, _ in section.blocks:
        if kind_of == "item":
            lines_ = [payload.text] + [c.text for c in payload.children]
        elif kind_of == "para":
            lines_ = payload
        else:
            return None
        for text in lines_:
            f = _as_field(text)
            if f:
                fields.append(f)
            else:
                plain.append(text)
    needed = 1 if kind in ("decisions", "corrections") else 2
    if len(fields) < needed:
        return None
    roles = {_FIELD_KEYS[k] for k, _ in fields}
    if kind not in ("decisions", "corrections") and not roles & {
        "decision",
        "rejected",
        "wrong",
        "right",
        "fix",
        "error",
    }:
        return None
    title = _heading_title(section.headings[-1][1]) if section.headings else ""
    date = None
    if section.headings:
        m = _DATE.search(section.headings[-1][1])
        date = m.group(1) if m else None
    parts: list[str] = []
    if title and not _is_generic_heading(title):
        parts.append(title)
    parts.extend(_clean_inline(t) for t in plain if not _is_boilerplate(t))
    tags: list[str] = []
    for key, value in fields:
        role = _FIELD_KEYS[key]
        if role == "date":
            m = _DATE.search(value)
            date = date or (m.group(1) if m else None)
            continue
        if role == "rejected":
            for alt in re.split(r"\s*[;,]\s*|\s+and\s+|\s+or\s+", _strip_emphasis(value)):
                tag = rejected_tag(alt)
                if tag and tag not in tags:
                    tags.append(tag)
        parts.append(f"{key.capitalize()}: {_clean_inline(value)}")
    content = ". ".join(p.rstrip(" .") for p in parts if p.strip()) + "."
    if kind in _FILE_KIND_TYPES:
        typ = _FILE_KIND_TYPES[kind]
    elif roles & {"decision", "rejected"}:
        typ = "decision"
    elif roles & {"wrong", "right"}:
        typ = "correction"
    elif roles & {"fix", "error", "cause"}:
        typ = "pattern"
    else:
        typ = infer_type(content, kind=kind, default=fm_default)
    if typ == "decision":
        for tag in rejected_in_text(content):
            if tag not in tags:
                tags.append(tag)
    return content, typ, tags, date


def parse_text(
    text: str, *, source_file: str = "", scope: str = "global", kind: str = "notes", base_dir: Path | None = None
) -> list[Candidate]:
    """Candidates from one markdown document (see the module docstring for what counts)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    fm, body, used = split_frontmatter(text)
    fm_type = fm.get("type") or fm.get("metadata.type")
    fm_default = _FRONTMATTER_TYPES.get(str(fm_type).lower()) if fm_type else None
    fm_tags = [t for t in (fm.get("tags") if isinstance(fm.get("tags"), list) else []) if t]
    fm_name = fm.get("name") if isinstance(fm.get("name"), str) else None
    base_tags = [_slug(t, 4) for t in fm_tags]
    if fm_name and _slug(fm_name):
        base_tags.append(_slug(fm_name))
    base_tags = [t for i, t in enumerate(base_tags) if t and t not in base_tags[:i]]

    lines = _mask(body.split("\n"))
    sections = _sections(lines, used + 1)
    h1s = [s.headings[-1][1] for s in sections if s.headings and s.headings[-1][0] == 1]
    doc_title = h1s[0] if len(h1s) == 1 else None

    out: list[Candidate] = []

    def add(
        content: str,
        line: int,
        headings: list,
        typ: str | None = None,
        tags: Iterable[str] = (),
        date: str | None = None,
    ) -> None:
        content = _clean_inline(content)
        if _is_boilerplate(content) or _IMPORT_RE.match(content):
            return
        heading_titles = [_heading_title(h) for _, h in headings]
        typ = typ or infer_type(content, kind=kind, headings=heading_titles, default=fm_default)
        all_tags = list(base_tags)
        for t in list(_section_tags(headings, doc_title)) + list(tags):
            if t and t not in all_tags:
                all_tags.append(t)
        if typ == "decision":
            for t in rejected_in_text(content):
                if t not in all_tags:
                    all_tags.append(t)
        if date is None:
            for _, h in reversed(headings):
                m = _DATE.search(h)
                if m:
                    date = m.group(1)
                    break
        out.append(
            Candidate(
                content=content, type=typ, scope=scope, tags=all_tags, source_file=source_file, line=line, date=date
            )
        )

    # One fact per file (Claude Code auto-memory): the whole body is the memory.
    has_structure = any(s.headings for s in sections) or any(
        k in ("item", "row") for s in sections for k, _, _ in s.blocks
    )
    if fm and not has_structure:
        paras = [" ".join(p) for s in sections for k, p, _ in s.blocks if k == "para"]
        body_text = " ".join(paras).strip() or str(fm.get("description") or "")
        first = next((ln for s in sections for k, _, ln in s.blocks), used + 1)
        if body_text:
            add(body_text, first, [])
        return out

    for section in sections:
        if not section.blocks:
            continue
        if any(_heading_title(h).lower() in _TOC_HEADINGS for _, h in section.headings):
            continue
        record = _record(section, kind, fm_default)
        if record:
            content, typ, tags, date = record
            add(content, section.line, section.headings, typ=typ, tags=tags, date=date)
            continue
        prose_only = all(k == "para" for k, _, _ in section.blocks) and len(section.blocks) == 1
        title = _heading_title(section.headings[-1][1]) if section.headings else ""
        for kind_of, payload, line in section.blocks:
            if kind_of == "para":
                joined = " ".join(payload)
                if joined.rstrip().endswith(":"):
                    continue  # a lead-in to the list that follows
                if (
                    prose_only
                    and title
                    and not _is_generic_heading(title)
                    and not normalise_content(joined).startswith(normalise_content(title))
                ):
                    joined = f"{title}: {joined}"
                add(joined, line, section.headings)
            elif kind_of == "item":
                if _index_pointer(payload.text, base_dir):
                    continue
                for text in _item_text(payload):
                    add(text, line, section.headings)
            elif kind_of == "row":
                _header, cells = payload
                if not any(cells):
                    continue
                add(" — ".join(c for c in cells if c), line, section.headings)
    return out


def _index_pointer(text: str, base_dir: Path | None) -> bool:
    """A MEMORY.md index line pointing at a memory file imported on its own."""
    if base_dir is None:
        return False
    for m in _LINK.finditer(text):
        target = m.group(2).split("#", 1)[0]
        if (
            target
            and not target.startswith(("http://", "https://"))
            and target.endswith(".md")
            and (base_dir / target).is_file()
        ):
            return True
    return False


def parse_file(path: Path | str, *, scope: str | None = None, claude_home: Path | str | None = None) -> list[Candidate]:
    """Candidates from one file; ``scope`` overrides the scope its location implies."""
    p = Path(path).expanduser()
    text = p.read_text(encoding="utf-8", errors="replace")
    resolved_scope = scope or scope_for_file(p, claude_home=claude_home)
    return parse_text(text, source_file=str(p), scope=resolved_scope, kind=file_kind(p), base_dir=p.parent)


# ---------------------------------------------------------------------------------------------
# Sources


def _md_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix.lower() == ".md")
    except OSError:
        return []


def discover(sources: Iterable[Path | str], *, claude_home: Path | str | None = None) -> list[Path]:
    """The memory files behind each source: a file, a glob, or a directory.

    A directory yields its known memory files (CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md,
    .claude/rules/*.md, MEMORY.md and the four shared memory files), every ``.md`` if it is a
    ``memory`` folder, and every project's memory folder if it is Claude Code's directory or
    its ``projects`` folder. READMEs and other documentation are not memory and are left alone.
    """
    home = _safe_resolve(_claude_home(claude_home))
    found: list[Path] = []

    def push(p: Path) -> None:
        r = _safe_resolve(p)
        if r.is_file() and r not in found:
            found.append(r)

    for source in sources:
        raw = os.path.expandvars(str(source))
        expanded = Path(raw).expanduser()
        targets = [expanded]
        if not expanded.exists() and any(ch in raw for ch in "*?["):
            targets = [Path(m) for m in sorted(glob.glob(str(expanded)))]
        for target in targets:
            if target.is_file():
                push(target)
                continue
            if not target.is_dir():
                continue
            resolved = _safe_resolve(target)
            for name in MEMORY_FILE_NAMES:
                push(target / name)
            push(target / ".claude" / "CLAUDE.md")
            for p in _md_files(target / ".claude" / "rules"):
                push(p)
            if target.name == "memory":
                for p in _md_files(target):
                    push(p)
            if (target / "memory").is_dir() and target.parent.name == "projects":
                for p in _md_files(target / "memory"):
                    push(p)
            projects = None
            if resolved == home or (target / "projects").is_dir() and (target / "settings.json").exists():
                projects = target / "projects"
                for p in _md_files(target / "rules"):
                    push(p)
            elif target.name == "projects":
                projects = target
            if projects is not None and projects.is_dir():
                for folder in sorted(projects.iterdir()):
                    for p in _md_files(folder / "memory"):
                        push(p)
    return found


def collect(
    sources: Iterable[Path | str], *, scope: str | None = None, claude_home: Path | str | None = None
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """Every distinct candidate under ``sources`` and the files that could not be read.

    The same memory in two files of one scope is kept once (first seen), with both files' tags.
    """
    candidates: list[Candidate] = []
    by_fp: dict[str, Candidate] = {}
    errors: list[tuple[str, str]] = []
    for path in discover(sources, claude_home=claude_home):
        try:
            found = parse_file(path, scope=scope, claude_home=claude_home)
        except (OSError, UnicodeError, ValueError) as exc:
            errors.append((str(path), str(exc)))
            continue
        for cand in found:
            fp = cand.fingerprint
            if fp in by_fp:
                kept = by_fp[fp]
                kept.tags.extend(t for t in cand.tags if t not in kept.tags)
                continue
            by_fp[fp] = cand
            candidates.append(cand)
    return candidates, errors
