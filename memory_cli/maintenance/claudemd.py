"""The memory-cli-managed block of pinned entries inside a CLAUDE.md file.

Claude Code loads CLAUDE.md at every session start and re-reads the project's after
compaction, so a pinned rule written there survives at full text however long the session
runs. CLAUDE.md belongs to the person, though: memory-cli owns exactly one delimited block and
must leave every byte outside it alone (line endings, BOM, encoding, trailing newline or not),
must notice when the person edited inside the block instead of silently overwriting them, and
must leave the file exactly as it found it when the last pin goes.

Layout of the block (``<nl>`` is the file's dominant line ending)::

    <!-- memory-cli:pins:begin (managed by memory-cli; edit with `memory-cli pin/unpin`) sha256=<16 hex> [new-file] -->
    ...body lines...
    <!-- memory-cli:pins:end -->

* ``sha256`` is the first 16 hex digits of SHA-256 over the body with line endings normalised
  to ``\\n`` (so that git's autocrlf is not mistaken for an edit). Body hash != recorded hash
  means the person edited inside the block.
* ``new-file`` records that memory-cli created the file, so removing the last pin deletes it
  again instead of leaving an empty CLAUDE.md behind.
* A new block is appended at the end of the file after one blank line. If the file had no
  trailing newline, the block has none either: that is how removal knows how many separator
  bytes to take back, so insert-then-remove is the identity on bytes.

Writes go through :mod:`memory_cli.files.safe_write` (a new temporary file under a random name,
fsync, ``os.replace``); the file's mode is kept and a symlinked CLAUDE.md is written through to
its target, but only when that target lies inside the project (or the Claude config dir) and
is a regular file. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memory_cli.files import safe_write

# The target of pins in the person's own CLAUDE.md (the Claude config dir), beside the project files.
GLOBAL_TARGET = "global"
BEGIN_TAG = "<!-- memory-cli:pins:begin"
END_MARKER = "<!-- memory-cli:pins:end -->"
MANAGED_NOTE = "(managed by memory-cli; edit with `memory-cli pin/unpin`)"
HASH_LEN = 16
NEW_FILE_FLAG = "new-file"

_BEGIN_RE = re.compile(r"[ \t]*<!-- memory-cli:pins:begin\b(?P<attrs>.*?)-->[ \t]*\Z")
_END_RE = re.compile(r"[ \t]*<!-- memory-cli:pins:end[ \t]*-->[ \t]*\Z")
_HASH_RE = re.compile(r"\bsha256=([0-9a-fA-F]+)")

# Sync actions (plain strings: cheap to import, readable in JSON output and audit details).
CREATE_FILE = "create-file"
INSERT = "insert"
REPLACE = "replace"
REMOVE = "remove"
DELETE_FILE = "delete-file"
NOTHING = "nothing"
CONFLICT = "conflict"


class ClaudeMdError(Exception):
    """The file cannot be edited safely (unreadable encoding, changed while we wrote)."""


class ChangedSincePlan(ClaudeMdError):
    """CLAUDE.md changed between planning and writing; plan again."""


# --------------------------------------------------------------------------- rendering


def body_hash(body: str) -> str:
    normalised = body.replace("\r\n", "\n")
    return hashlib.sha256(normalised.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LEN]


def _one_line(text: str) -> str:
    """One bullet per entry, text otherwise untouched.

    Markers only count as whole lines, so an entry on a bullet line ("- [rule] ...") can
    never open or close the block whatever it contains.
    """
    return " ".join(text.split())


def render_pins_body(pins: Iterable[tuple[str, str, str]]) -> str:
    """Body text for ``(entry_id, type, content)`` pins, in the given order; "" when none.

    Written as facts (not "system" commands, which can trip prompt-injection defences), one
    bullet per entry at full text, with a short id so the person can ``memory-cli unpin`` it.
    """
    pins = list(pins)
    if not pins:
        return ""
    lines = [
        "## Pinned memory",
        "",
        "Entries pinned with memory-cli; they stay here at full text through context compaction.",
        "Change them with `memory-cli pin` / `memory-cli unpin` rather than by editing this block.",
        "",
    ]
    for entry_id, kind, content in pins:
        lines.append(f"- [{_one_line(kind)}] {_one_line(content)} (id {entry_id[:8]})")
    return "\n".join(lines) + "\n"


def _begin_line(body: str, new_file: bool) -> str:
    flag = f" {NEW_FILE_FLAG}" if new_file else ""
    return f"{BEGIN_TAG} {MANAGED_NOTE} sha256={body_hash(body)}{flag} -->"


def _render_block(body: str, nl: str, new_file: bool) -> str:
    """The block from the begin marker to the end marker, without a final line ending."""
    body = body.replace("\r\n", "\n")
    if body and not body.endswith("\n"):
        body += "\n"
    return _begin_line(body, new_file) + nl + body.replace("\n", nl) + END_MARKER


# --------------------------------------------------------------------------- parsing


def _decode(raw: bytes) -> tuple[str, bytes, str, str]:
    """Split ``raw`` into (codec, BOM bytes, text, errors) such that encoding gives it back."""
    if raw.startswith(b"\xef\xbb\xbf"):
        codec, bom = "utf-8", raw[:3]
    elif raw.startswith(b"\xff\xfe"):
        codec, bom = "utf-16-le", raw[:2]
    elif raw.startswith(b"\xfe\xff"):
        codec, bom = "utf-16-be", raw[:2]
    else:
        codec, bom = "utf-8", b""
    # surrogateescape keeps stray non-UTF-8 bytes (a cp1252 file) exactly as they were.
    errors = "surrogateescape" if codec == "utf-8" else "surrogatepass"
    payload = raw[len(bom) :]
    try:
        text = payload.decode(codec, errors)
    except UnicodeDecodeError as err:
        raise ClaudeMdError(f"cannot read it as {codec}: {err}") from None
    if text.encode(codec, errors) != payload:  # pragma: no cover - defensive
        raise ClaudeMdError(f"it does not round-trip through {codec}")
    return codec, bom, text, errors


def _dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    return "\r\n" if crlf > lf else "\n"


@dataclass
class _Doc:
    raw: bytes
    codec: str
    bom: bytes
    text: str
    errors: str
    nl: str
    begin_start: int | None = None  # index of the begin line's first character
    body_start: int | None = None  # just after the begin line's terminator
    end_start: int | None = None  # index of the end line's first character
    end_stop: int | None = None  # just after the end marker (before its line ending)
    attrs: str = ""
    problem: str | None = None

    @property
    def found(self) -> bool:
        return self.begin_start is not None and self.problem is None

    def encode(self, text: str) -> bytes:
        return self.bom + text.encode(self.codec, self.errors)


def _parse(raw: bytes) -> _Doc:
    codec, bom, text, errors = _decode(raw)
    doc = _Doc(raw, codec, bom, text, errors, _dominant_newline(text))
    begins: list[tuple[int, int, str]] = []
    ends: list[tuple[int, int]] = []
    pos, n = 0, len(text)
    while pos < n:
        nl_at = text.find("\n", pos)
        stop = n if nl_at < 0 else nl_at + 1
        content_end = nl_at if nl_at >= 0 else n
        if nl_at >= 0 and content_end > pos and text[content_end - 1] == "\r":
            content_end -= 1
        line = text[pos:content_end]
        if "memory-cli:pins:" in line:
            m = _BEGIN_RE.match(line)
            if m:
                begins.append((pos, stop, m.group("attrs")))
            elif _END_RE.match(line):
                ends.append((pos, content_end))
        pos = stop
    if not begins and not ends:
        return doc
    if len(begins) != 1 or len(ends) != 1:
        doc.problem = (
            f"found {len(begins)} begin and {len(ends)} end markers of the memory-cli block; "
            "expected exactly one of each"
        )
        doc.begin_start = begins[0][0] if begins else None
        return doc
    (b_start, b_stop, attrs), (e_start, e_stop) = begins[0], ends[0]
    if e_start < b_stop:
        doc.problem = "the memory-cli end marker comes before its begin marker"
        doc.begin_start = b_start
        return doc
    doc.begin_start, doc.body_start, doc.end_start, doc.end_stop = b_start, b_stop, e_start, e_stop
    doc.attrs = attrs
    return doc


@dataclass(frozen=True)
class BlockState:
    """What is in a CLAUDE.md right now."""

    path: Path
    exists: bool
    found: bool
    body: str | None = None  # line endings normalised to "\n"
    recorded_hash: str | None = None
    actual_hash: str | None = None
    new_file: bool = False
    problem: str | None = None  # malformed markers or unreadable file

    @property
    def edited(self) -> bool:
        """True when the person changed something inside the block since memory-cli wrote it."""
        return self.found and self.recorded_hash != self.actual_hash


def _state_from_doc(path: Path, doc: _Doc) -> BlockState:
    if doc.problem:
        return BlockState(path, True, False, problem=doc.problem)
    if not doc.found:
        return BlockState(path, True, False)
    body = doc.text[doc.body_start : doc.end_start].replace("\r\n", "\n")
    m = _HASH_RE.search(doc.attrs)
    recorded = m.group(1).lower() if m else None
    new_file = re.search(rf"(?<![\w-]){NEW_FILE_FLAG}(?![\w-])", doc.attrs) is not None
    return BlockState(path, True, True, body, recorded, body_hash(body), new_file)


UnsafeTarget = safe_write.UnsafeTarget  # a CLAUDE.md leading outside its project, or no file


def allowed_roots(path: Path) -> list[str]:
    """Where a CLAUDE.md (or the file its symlink names) may live: its project, the Claude dir."""
    parent = Path(os.path.abspath(path)).parent
    project = parent.parent if parent.name == ".claude" else parent
    from memory_cli.paths import claude_dir_str

    return [os.path.realpath(project), os.path.realpath(claude_dir_str())]


def check_target(path: Path) -> Path:
    """The file a write of ``path`` really changes, refused when that is unsafe.

    A symlinked CLAUDE.md is written through to its target (the link stays a link), but only
    when the target lies inside the project or the Claude config dir; a device, FIFO, socket
    or directory is never opened (a FIFO would hang, a device would be replaced by a file).
    """
    return safe_write.real_target(path, allowed_roots(path))


def _real(path: Path) -> Path:
    """Write through a symlinked CLAUDE.md instead of replacing the link with a file."""
    return check_target(path)


def read_block(path: Path) -> BlockState:
    """The managed block of ``path`` (absent file and absent block are normal states)."""
    path = Path(path)
    try:
        raw = _real(path).read_bytes()
    except FileNotFoundError:
        return BlockState(path, False, False)
    except UnsafeTarget as err:
        return BlockState(path, True, False, problem=str(err))
    try:
        doc = _parse(raw)
    except ClaudeMdError as err:
        return BlockState(path, True, False, problem=str(err))
    return _state_from_doc(path, doc)


# --------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class SyncPlan:
    """What a sync will do to one CLAUDE.md, computed without touching it."""

    path: Path  # the file actually written (symlink resolved)
    action: str
    reason: str
    before: bytes | None  # the file's bytes when planned; None = no file
    after: bytes | None = None  # bytes to write; None with DELETE_FILE = remove the file
    edited_body: str | None = None  # the person's edited block, reported on conflict/overwrite
    state: BlockState | None = field(default=None, compare=False)

    @property
    def conflict(self) -> bool:
        return self.action == CONFLICT

    @property
    def changes_file(self) -> bool:
        return self.action not in (NOTHING, CONFLICT)

    def describe(self) -> str:
        return f"{self.path}: {self.action}: {self.reason}"


def _strip_terminators(text: str, count: int, nl: str) -> str:
    """Remove up to ``count`` trailing line endings, preferring the exact ``nl`` we wrote."""
    for _ in range(count):
        if text.endswith(nl):
            text = text[: -len(nl)]
        elif text.endswith("\r\n"):
            text = text[:-2]
        elif text.endswith("\n"):
            text = text[:-1]
        else:
            break
    return text


def _leading_terminator(text: str) -> str:
    if text.startswith("\r\n"):
        return "\r\n"
    if text.startswith("\n"):
        return "\n"
    return ""


def _text_without_block(doc: _Doc) -> str:
    t = doc.text
    before, after = t[: doc.begin_start], t[doc.end_stop :]
    term = _leading_terminator(after)
    if after == "":
        # Block is last and has no final newline: the original had none either, and we had
        # added a newline to end its last line plus one blank separator line.
        return _strip_terminators(before, 2, doc.nl)
    if after == term:
        # Block is last and ends with a newline: we had added one blank separator line.
        return _strip_terminators(before, 1, doc.nl) if before else ""
    rest = after[len(term) :]
    # Something follows the block (the person moved it or wrote after it): take the block's
    # lines and one adjacent blank separator line.
    if before == "":
        return rest[len(_leading_terminator(rest)) :]
    trimmed = _strip_terminators(before, 1, doc.nl)
    if trimmed != before and (trimmed == "" or trimmed.endswith("\n")):
        before = trimmed  # a blank line preceded the block
    return before + rest


def _text_with_block(text: str, block: str, nl: str) -> str:
    if text == "":
        return block + nl
    if text.endswith("\n"):
        return text + nl + block + nl
    return text + nl + nl + block


def plan_sync(path: Path, body: str | None, *, overwrite_edits: bool = False) -> SyncPlan:
    """Plan making the block of ``path`` hold ``body`` (None or "": no block at all).

    A block the person edited is a CONFLICT unless ``overwrite_edits``; malformed markers or an
    unreadable file are always a CONFLICT, because the block's extent is then unknown.
    """
    path = Path(path)
    real = _real(path)
    want = (body or "").replace("\r\n", "\n")
    if want and not want.endswith("\n"):
        want += "\n"
    try:
        raw = real.read_bytes()
    except FileNotFoundError:
        if not want:
            return SyncPlan(real, NOTHING, "no pins and no CLAUDE.md", None)
        after = _render_block(want, "\n", True) + "\n"
        return SyncPlan(
            real, CREATE_FILE, "create CLAUDE.md holding only the pinned block", None, after.encode("utf-8")
        )
    try:
        doc = _parse(raw)
    except ClaudeMdError as err:
        return SyncPlan(
            real, CONFLICT, f"cannot edit safely: {err}", raw, state=BlockState(path, True, False, problem=str(err))
        )
    state = _state_from_doc(path, doc)
    if doc.problem:
        return SyncPlan(real, CONFLICT, f"{doc.problem}; fix the markers by hand", raw, state=state)
    if state.edited and not overwrite_edits:
        return SyncPlan(
            real,
            CONFLICT,
            "the pinned block was edited by hand since memory-cli wrote it; "
            "not overwriting (sync with overwrite to replace the edit)",
            raw,
            edited_body=state.body,
            state=state,
        )
    edited_body = state.body if state.edited else None
    if not want:
        if not state.found:
            return SyncPlan(real, NOTHING, "no pins and no block", raw, state=state)
        rest = _text_without_block(doc)
        if state.new_file and rest == "" and not doc.bom:
            return SyncPlan(
                real,
                DELETE_FILE,
                "last pin removed; memory-cli created this file, so it goes too",
                raw,
                None,
                edited_body,
                state,
            )
        return SyncPlan(real, REMOVE, "last pin removed; remove the block", raw, doc.encode(rest), edited_body, state)
    if not state.found:
        block = _render_block(want, doc.nl, False)
        return SyncPlan(
            real,
            INSERT,
            "append the pinned block",
            raw,
            doc.encode(_text_with_block(doc.text, block, doc.nl)),
            state=state,
        )
    block = _render_block(want, doc.nl, state.new_file)
    current = doc.text[doc.begin_start : doc.end_stop]
    if current == block:
        return SyncPlan(real, NOTHING, "the block is up to date", raw, state=state)
    new_text = doc.text[: doc.begin_start] + block + doc.text[doc.end_stop :]
    reason = (
        "overwrite the hand-edited block with the pinned entries"
        if edited_body is not None
        else "update the pinned block"
    )
    return SyncPlan(real, REPLACE, reason, raw, doc.encode(new_text), edited_body, state)


# --------------------------------------------------------------------------- writing


def apply_sync(plan: SyncPlan) -> bool:
    """Carry out ``plan``; False when there was nothing to do or it is a conflict.

    Raises :class:`ChangedSincePlan` if the file no longer holds the bytes it was planned from,
    so a concurrent edit by the person is never lost.
    """
    if not plan.changes_file:
        return False
    path = plan.path
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = None
    if current != plan.before:
        raise ChangedSincePlan(f"{path} changed while memory-cli was updating it")
    if plan.action == DELETE_FILE:
        path.unlink()
        safe_write.fsync_dir(path.parent)
        return True
    assert plan.after is not None
    if plan.action == CREATE_FILE:
        try:
            safe_write.write_file(
                path, plan.after, roots=allowed_roots(path), new_mode=safe_write.umask_mode(), exclusive=True
            )
        except FileExistsError:
            raise ChangedSincePlan(f"{path} was created while memory-cli was creating it") from None
        return True
    safe_write.write_file(path, plan.after, roots=allowed_roots(path))
    return True


def sync(path: Path, body: str | None, *, overwrite_edits: bool = False, attempts: int = 3) -> SyncPlan:
    """Plan and apply, planning again if the file changes underneath; returns the applied plan."""
    for _ in range(max(1, attempts) - 1):
        plan = plan_sync(path, body, overwrite_edits=overwrite_edits)
        try:
            apply_sync(plan)
            return plan
        except ChangedSincePlan:
            continue
    plan = plan_sync(path, body, overwrite_edits=overwrite_edits)
    apply_sync(plan)
    return plan


# --------------------------------------------------------------------------- locations


def project_claudemd_path(project_dir: Path) -> Path:
    """The project CLAUDE.md Claude Code re-reads after compaction: ``<project>/CLAUDE.md``.

    A project that keeps its instructions in ``.claude/CLAUDE.md`` only is respected, so that
    memory-cli never adds a second CLAUDE.md to a repository.
    """
    project_dir = Path(project_dir)
    root = project_dir / "CLAUDE.md"
    alt = project_dir / ".claude" / "CLAUDE.md"
    if not root.exists() and alt.exists():
        return alt
    return root


def global_claudemd_path() -> Path:
    """The user's CLAUDE.md, loaded in every project: ``<claude dir>/CLAUDE.md``."""
    from memory_cli.paths import claude_dir

    return claude_dir() / "CLAUDE.md"
