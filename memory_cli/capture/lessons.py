"""Lessons the agent records: the person's corrections, read by the model that understood them.

The agent has read the whole conversation and knows what it just did, so it is a better reader
of "was I just corrected?" than any word model, at no extra model call. Session start teaches it
(:mod:`.instructions`) to record a lesson when the person corrects how it works or states a
standing rule, quoting the person: through the MCP tool ``record_correction`` or, without MCP
tools, a ``[LESSON: "<quote>" -> <lesson>]`` line in its reply (read by the Stop hook).

What keeps an agent from inventing corrections is the quote: it must be in what the person
typed in that session or project. UserPromptSubmit keeps each prompt in ``capture_prompts`` as
the 32-bit CRC of each of its words (its first ``MAX_PROMPT_CHARS`` characters, the last
``KEEP_PROMPTS`` prompts): enough to tell whether a quote's words are there, in that order, and
no text to redact, to leak or to pay the redaction of on every prompt. A lesson is accepted only
when its quote's words (case, whitespace, punctuation and quote marks aside) are found there, and
otherwise refused and audited (action ``lesson``, result ``refused``). An accepted lesson is a
correction of origin ``agent``: it counts repeats like any other and is proposed after repeats,
but what its promotion creates is held back (rule off, entry archived) until the person approves
it in ``memory-cli review``.

A prompt counts once: a lesson quoting a prompt from which a correction was already recorded
(by the hook's detector or an earlier lesson) that says the same thing is not counted again,
and one that reads the prompt differently from the learned model's guess replaces the guess.

Standard library only on the hook path (``remember_prompt``, ``parse_lessons``).
"""

from __future__ import annotations

import binascii  # already loaded in a hook process (zlib is not): the same CRC-32

from ..files import regex_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

MAX_PROMPT_CHARS = 4000  # as much as detection reads and a correction keeps
KEEP_PROMPTS = 2000  # prompts kept, all projects together; older ones are pruned
PRUNE_EVERY = 64  # prune on one insert in this many
SEARCHED = 1000  # newest prompts of the project (or session) a quote is looked for in
LESSON_CONFIDENCE = 0.7
MAX_LESSON = 300
MAX_QUOTE = 1000
KINDS = ("pushback", "standing")
MARKER_START = "[lesson:"


class LessonRefused(Exception):
    """The lesson was not recorded (its quote is not the person's words, or it is malformed)."""


# --------------------------------------------------------------------------- schema


def apply_schema(store: Store) -> None:
    """Migration 15: the prompts a quote is checked against, and each correction's origin."""
    store.execute(
        "CREATE TABLE IF NOT EXISTS capture_prompts ("
        " id INTEGER PRIMARY KEY, session_id TEXT, project_crc INTEGER NOT NULL, typed_at TEXT NOT NULL,"
        " words BLOB NOT NULL, correction_id TEXT)"
    )
    store.execute("CREATE INDEX IF NOT EXISTS idx_capture_prompts_project ON capture_prompts(project_crc, id)")
    store.execute("CREATE INDEX IF NOT EXISTS idx_capture_prompts_session ON capture_prompts(session_id, id)")
    cols = {r["name"] for r in store.rows("PRAGMA table_info(corrections)")}
    if "origin" not in cols:
        store.execute("ALTER TABLE corrections ADD COLUMN origin TEXT")


# --------------------------------------------------------------------------- the person's prompts


def remember_prompt(
    store: Store, text: str, *, session_id: str | None, project: str | None, correction_id=None
) -> None:
    """Keep one prompt's words (hashed: no text) for the quote check; UserPromptSubmit. Never
    waits for the write lock: a busy store gets it through the spool."""
    from ..store.db import LockBusy
    from ..util import now_iso

    args = {
        "session_id": session_id or None,
        "project_crc": project_crc(project),
        "words": pack(words(text[:MAX_PROMPT_CHARS])).hex(),
        "correction_id": correction_id,
    }
    at = now_iso()
    try:
        with store.transaction(wait=False):
            _insert(store, args, at)
    except LockBusy:
        from ..store import spool

        spool.put(store.path, [spool.make("prompt", args, at)])


def _insert(store, args: dict, at: str) -> None:
    store.execute(
        "INSERT INTO capture_prompts(session_id, project_crc, typed_at, words, correction_id) VALUES (?,?,?,?,?)",
        (
            args.get("session_id"),
            int(args.get("project_crc") or 0),
            at,
            bytes.fromhex(args.get("words") or ""),
            args.get("correction_id"),
        ),
    )
    last = store.value("SELECT last_insert_rowid()")
    if last and last % PRUNE_EVERY == 0:
        store.execute("DELETE FROM capture_prompts WHERE id <= ?", (last - KEEP_PROMPTS,))


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """A prompt kept while another process held the write lock (see memory_cli.store.spool)."""
    from ..util import now_iso

    _insert(store, args, at or now_iso())


# --------------------------------------------------------------------------- the quote check


# A word: a run of letters and digits, or one Chinese, Japanese or Korean character (written
# without spaces, so a quote of part of a sentence still falls on word boundaries).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = f"[{_CJK}]|[^\\W_{_CJK}]+"
_APOSTROPHES = dict.fromkeys(map(ord, "'’‘`´"))  # "don't", "dont" and "don’t" are one word


def words(text: str) -> list[str]:
    """Lower-case words: punctuation, quote marks and whitespace only separate them (apostrophes
    not even that), so "No, use pnpm -- not npm!" and "no use pnpm not npm" are the same words,
    and a paraphrase is not."""
    return regex_cache.compile(_WORD).findall((text or "").casefold().translate(_APOSTROPHES))


def project_crc(project: str | None) -> int:
    """The project a prompt was typed in, as a number (0: none). Kept as a number like the words:
    the store's gate then has no text to read on the hook path."""
    return binascii.crc32(project.encode("utf-8", "replace")) or 1 if project else 0


def pack(found: list[str]) -> bytes:
    """Each word's CRC-32, 4 bytes little-endian, in order."""
    return b"".join(binascii.crc32(w.encode("utf-8", "replace")).to_bytes(4, "little") for w in found)


def fragments(quote: str) -> list[bytes]:
    """The packed words of each part of a quote, split where the agent left words out ("...",
    "…" or "[...]")."""
    parts = regex_cache.compile(r"\.\.\.+|…|\[\.\.\.\]").split(quote or "")
    return [b for b in (pack(words(p)) for p in parts) if b]


def quoted_in(quote: str, packed: bytes) -> bool:
    """Whether every fragment of ``quote`` is among a prompt's packed words, whole words, in order."""
    parts = fragments(quote)
    if not parts:
        return False
    at = 0
    for part in parts:
        i = packed.find(part, at)
        while i >= 0 and i % 4:  # a match must start on a word
            i = packed.find(part, i + 1)
        if i < 0:
            return False
        at = i + len(part)
    return True


def find_prompt(store: Store, quote: str, *, project: str | None, session_id: str | None = None) -> dict | None:
    """The newest kept prompt of this project (or, with no project, of this session) that holds
    ``quote``; None when the person never typed it there."""
    if project:
        rows = store.rows(
            "SELECT * FROM capture_prompts WHERE project_crc = ? ORDER BY id DESC LIMIT ?",
            (project_crc(project), SEARCHED),
        )
    elif session_id:
        rows = store.rows(
            "SELECT * FROM capture_prompts WHERE session_id = ? ORDER BY id DESC LIMIT ?", (session_id, SEARCHED)
        )
    else:
        rows = store.rows("SELECT * FROM capture_prompts WHERE project_crc = 0 ORDER BY id DESC LIMIT ?", (SEARCHED,))
    for r in rows:
        if quoted_in(quote, r["words"]):
            return r
    return None


def _spooled_prompt(store: Store, quote: str, *, project: str | None, session_id: str | None, wait: bool):
    """The prompt holding ``quote`` when UserPromptSubmit could not write it yet (another
    process held the write lock, so it waits in the spool): the spool is applied first
    (``wait``: for the lock, outside a hook), and where it still cannot be, the prompt is read
    from the spool itself (no row id yet). None when the person did not type it."""
    from ..store import spool

    waiting = spool.queued(store.path, "prompt")
    if not waiting:
        return None
    if not spool.drain(store, wait=wait)["busy"]:
        return find_prompt(store, quote, project=project, session_id=session_id)
    crc = project_crc(project) if project else 0
    for args in reversed(waiting):
        mine = (
            int(args.get("project_crc") or 0) == crc
            if project or not session_id
            else args.get("session_id") == session_id
        )
        words = bytes.fromhex(args.get("words") or "")
        if mine and quoted_in(quote, words):
            return {"id": None, "session_id": args.get("session_id"), "words": words, "correction_id": None}
    return None


# --------------------------------------------------------------------------- recording


def _one_line(value, name: str, limit: int, *, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise LessonRefused(f"{name} must be text")
    value = " ".join(value.split())
    if required and not value:
        raise LessonRefused(f"{name} is empty")
    return value[:limit]


def record_lesson(
    store: Store,
    *,
    quote,
    lesson,
    wrong=None,
    right=None,
    kind=None,
    project: str | None,
    session_id: str | None = None,
    agent: str | None = None,
    via: str = "mcp",
    settings=None,
    hook_event: str | None = None,
    same_as=None,
) -> dict:
    """Check the quote and record the lesson as a correction of origin ``agent``. Returns the
    correction's view plus ``already`` (the prompt had already given this correction: nothing
    counted twice). ``same_as``: the id of a waiting lesson (or recurring proposal) the agent
    says this is again; the prompt counts there, and a lesson the agent recorded from this same
    prompt a moment before (before it saw the closest ones) is folded into it. Raises
    :class:`LessonRefused` (audited) when the quote is not the person's or ``same_as`` names
    nothing waiting."""
    from .. import audit
    from ..privacy.redact import redact

    try:
        quote = _one_line(quote, "quote", MAX_QUOTE, required=True).strip("\"'“”‘’ ")
        lesson = _one_line(lesson, "lesson", MAX_LESSON, required=True)
        wrong = _one_line(wrong, "wrong", MAX_LESSON, required=False)
        right = _one_line(right, "right", MAX_LESSON, required=False)
        kind = _one_line(kind, "kind", 20, required=False).lower() or None
        if kind is not None and kind not in KINDS:
            raise LessonRefused(f"kind must be pushback or standing, got {kind!r}")
        if not fragments(quote):
            raise LessonRefused("quote has no words")
        off = _turned_off(settings)
        if off:
            raise LessonRefused(off)
        target = _target(store, same_as)
        prompt = find_prompt(store, quote, project=project, session_id=session_id) or _spooled_prompt(
            store, quote, project=project, session_id=session_id, wait=hook_event is None
        )
        if prompt is None:
            where = f"project {project}" if project else "this session"
            raise LessonRefused(
                f"refused: the quote is not in anything the person typed in {where}; quote their own words verbatim"
            )
    except LessonRefused as e:
        audit.record_safely(
            store,
            "lesson",
            context=redact(str(lesson or ""))[0][:300] or None,
            result="refused",
            details={"quote": redact(str(quote or ""))[0][:300], "why": str(e), "via": via, "project": project},
            session_id=session_id,
            hook_event=hook_event,
            agent=agent,
        )
        raise
    session = prompt["session_id"] or session_id
    from ..store.db import LockBusy
    from .corrections import capture, view

    try:
        with store.transaction():
            if target is not None:
                same = _fold(store, prompt, target, quote)
            else:
                same = _already(store, prompt, wrong, right or lesson)
    except LockBusy:  # a hook's store waits for no one: capture below spools the lesson
        same = None
    if same is not None:
        out = view(store, same)
        out.update(already=True, promoted_now=False)
        return out
    from .detect import Detection
    from .similar import correction_key

    d = Detection(
        kind="explicit",
        what_was_wrong=wrong,
        what_is_right=right or lesson,
        confidence=LESSON_CONFIDENCE,
        key=correction_key(wrong, right or lesson),
        statement=lesson,
        signal=f"agent:{kind or 'lesson'}",
        sentence=quote,
        scope_hint="project" if project else None,
    )
    result = capture(
        store,
        quote,
        session_id=session,
        context=f"lesson recorded by the agent ({kind or 'unspecified'}, via {via})",
        project=project,
        agent=agent,
        settings=settings,
        hook_event=hook_event,
        detection=d,
        origin="agent",
        same_as=target["id"] if target is not None else None,
    )
    if result.get("id") and not result.get("queued"):
        try:
            with store.transaction():
                store.execute("UPDATE capture_prompts SET correction_id = ? WHERE id = ?", (result["id"], prompt["id"]))
        except LockBusy:
            pass  # only the once-per-prompt guard is lost; the lesson is stored
    result["already"] = False
    return result


def _target(store, same_as) -> dict | None:
    """The waiting correction ``same_as`` names (id or unique prefix), or None without one."""
    if same_as is None or (isinstance(same_as, str) and not same_as.strip()):
        return None
    if not isinstance(same_as, str):
        raise LessonRefused("same_as must be the id of a recorded lesson")
    from ..errors import MemoryCliError
    from .corrections import resolve

    try:
        row = resolve(store, same_as.strip())
    except MemoryCliError as e:
        raise LessonRefused(f"same_as: {e}") from None
    if row["status"] in ("rejected", "dismissed"):
        raise LessonRefused(f"same_as: lesson {row['id'][:8]} was {row['status']}; record this one on its own")
    return row


def _fold(store, prompt: dict, target: dict, quote: str) -> dict | None:
    """``same_as`` on a prompt that already gave a correction: the target itself (nothing to
    count again), or a reading taken from this prompt alone (the agent's own a moment before,
    from the same words, or the hook's), folded into the target (dismissed, its count moved
    there by the caller). A lesson the agent took from other words of the prompt is another
    instruction ("build every page with agents ... and i dont want supabase") and stays.
    None: count it on the target."""
    cid = prompt.get("correction_id")
    if not cid:
        return None
    if cid == target["id"]:
        return target
    row = store.row("SELECT * FROM corrections WHERE id = ?", (cid,))
    if row is None:
        return None
    from ..store import kvstate
    from .recurring import INSTANCES_KEY

    if cid in (kvstate.get(store, INSTANCES_KEY + target["id"], {}) or {}).get("instances", []):
        return target
    if row["origin"] == "agent" and not _same_words(row["user_message"] or "", quote):
        return None
    if row["status"] == "pending" and int(row["occurrence_count"] or 1) == 1:
        # the agent's own first reading of this prompt, or the hook's: either way this prompt
        # now counts on the target only
        store.execute(
            "UPDATE corrections SET status = 'dismissed', reviewed_at = NULL, context = ? WHERE id = ?",
            (f"the agent said it is lesson {target['id'][:8]} again", cid),
        )
    return None


def _same_words(a: str, b: str) -> bool:
    """Whether two quotes of one prompt are the same words: most of the shorter one's words are
    in the other (an agent may quote a little more or less the second time)."""
    wa, wb = set(a.casefold().split()), set(b.casefold().split())
    if not wa or not wb:
        return False
    return len(wa & wb) >= 0.6 * min(len(wa), len(wb))


def _turned_off(settings) -> str | None:
    """Why no lesson can be recorded under these settings (no prompts are kept), or None."""
    from ..settings import value as setting

    try:
        enabled, agent_lessons = setting(settings, "capture.enabled"), setting(settings, "capture.agent_lessons")
    except Exception:
        return None
    if enabled is False:
        return "corrections are turned off (capture.enabled = false)"
    if agent_lessons is False:
        return "lessons are turned off (capture.agent_lessons = false)"
    return None


def _already(store, prompt: dict, wrong: str, right: str) -> dict | None:
    """The correction this prompt already gave that says what the lesson says, if any. A guess
    of the learned model (no parts) on this prompt is dismissed instead: the agent read it."""
    cid = prompt.get("correction_id")
    if not cid:
        return None
    row = store.row("SELECT * FROM corrections WHERE id = ?", (cid,))
    if row is None:
        return None
    if not row["key"] and row["detection_type"] == "inferred" and row["status"] == "pending":
        store.execute("UPDATE corrections SET status = 'dismissed', reviewed_at = NULL WHERE id = ?", (cid,))
        return None
    from .similar import correction_key, same_correction

    if row["key"] == correction_key(wrong, right) or same_correction(
        row["what_was_wrong"] or "", row["what_is_right"] or "", wrong, right
    ):
        return row
    return None


# --------------------------------------------------------------------------- the reply's marker


def parse_lessons(text: str) -> list[tuple[str, str]]:
    """``[LESSON: "<quote>" -> <lesson>]`` lines of the agent's own text, as (quote, lesson).
    Injected context, code, inline code and ``>`` quotes are dropped first (as for memory
    markers), so the teaching's own example is never recorded."""
    if not text or MARKER_START not in text.lower():
        return []
    from .markers import _re, strip_injected

    text = strip_injected(text)
    text = _re("fence").sub("", text)
    text = _re("quote").sub("", text)
    text = _re("inline").sub("", text)
    pattern = regex_cache.compile(
        r"(?i)\[lesson:\s*[\"“](?P<quote>.+)[\"”]\s*(?:->|→|=>)\s*(?P<lesson>.+?)\s*\]\s*[*_~]*\s*$"
    )
    out = []
    for line in text.splitlines():
        m = pattern.search(line.strip())
        if not m:
            continue
        quote, lesson = m.group("quote").strip(), m.group("lesson").strip()
        if quote and lesson and not quote.startswith("<") and (quote, lesson) not in out:
            out.append((quote, lesson))
    return out
