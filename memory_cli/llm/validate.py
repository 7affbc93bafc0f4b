"""Strict checks of a model's tool answer before any of it touches the store.

A model's answer is untrusted input. An answer whose shape is wrong (not an object, missing or
extra keys, lists that are not lists) is :class:`Malformed` as a whole and the caller falls
back to its local method. Inside a well-shaped answer each item is judged alone: an item that
names an unknown id, a type outside the six, another scope's entry, or an entry a person wrote,
pinned or confirmed is *refused* (returned with its reason for the audit log) and never
applied, while the valid items go ahead.
"""

from __future__ import annotations

from memory_cli.entries import CATEGORIES, TYPES
from memory_cli.llm.config import AUTOMATIC_SOURCES

MAX_MEMORIES = 20
MAX_CONTENT_CHARS = 1000
_MEMORY_KEYS = {"content", "type", "scope", "category", "subject", "confidence"}


class Malformed(ValueError):
    """The answer as a whole does not have the tool's shape."""


def _refuse(refused: list, item, reason: str) -> None:
    refused.append({"item": item, "reason": reason})


def _content(value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = " ".join(value.split())
    return text if len(text) <= MAX_CONTENT_CHARS else None


def check_save(data, *, project: str | None) -> tuple[list[dict], list[dict], str]:
    """Validate a ``save_memories`` input: (accepted memories, refused items, report).

    Accepted memories carry a resolved ``scope`` (``project:<name>`` or ``global``).
    """
    if not isinstance(data, dict):
        raise Malformed("the answer is not an object")
    extra = set(data) - {"memories", "report", "corrections"}
    if extra:
        raise Malformed(f"unexpected keys {sorted(extra)}")
    memories = data.get("memories")
    if not isinstance(memories, list):
        raise Malformed("memories is not a list")
    report = data.get("report", "")
    if report is None:
        report = ""
    if not isinstance(report, str):
        raise Malformed("report is not a string")
    accepted, refused = [], []
    for item in memories:
        if len(accepted) >= MAX_MEMORIES:
            _refuse(refused, item, f"more than {MAX_MEMORIES} memories in one answer")
            continue
        if not isinstance(item, dict):
            _refuse(refused, item, "a memory must be an object")
            continue
        unknown = set(item) - _MEMORY_KEYS
        if unknown:
            _refuse(refused, item, f"unknown fields {sorted(unknown)}")
            continue
        content = _content(item.get("content"))
        if content is None:
            _refuse(refused, item, f"content must be non-empty text of at most {MAX_CONTENT_CHARS} characters")
            continue
        mtype = item.get("type")
        if mtype not in TYPES:
            _refuse(refused, item, f"type {mtype!r} is not one of {', '.join(TYPES)}")
            continue
        if mtype == "rule":
            # A rule enforces; only a person may write one (memory-cli add / review).
            _refuse(refused, item, "type 'rule' is reserved for rules a person writes or approves")
            continue
        raw_scope = item.get("scope")
        if raw_scope == "project":
            if not project:
                _refuse(refused, item, "scope 'project' but the session has no known project")
                continue
            scope = project
        elif raw_scope == "global":
            scope = "global"
        else:
            _refuse(refused, item, f"scope {raw_scope!r} is not 'project' or 'global'")
            continue
        category = item.get("category")
        if category is not None and category not in CATEGORIES:
            _refuse(refused, item, f"category {category!r} is not one of {', '.join(CATEGORIES)}")
            continue
        subject = item.get("subject")
        if subject is not None and (not isinstance(subject, str) or len(subject) > 200):
            _refuse(refused, item, "subject must be short text")
            continue
        conf = item.get("confidence")
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1):
            _refuse(refused, item, "confidence must be a number between 0 and 1")
            continue
        accepted.append(
            {
                "content": content,
                "type": mtype,
                "scope": scope,
                "category": category,
                "subject": subject.strip() if isinstance(subject, str) and subject.strip() else None,
            }
        )
    return accepted, refused, report.strip()


def protection(store, entry_id: str, scope: str) -> str | None:
    """Why compaction may not touch ``entry_id`` in ``scope`` (None: it may)."""
    if not isinstance(entry_id, str) or not entry_id:
        return "not an id"
    row = store.row("SELECT id, scope, source, pinned, status FROM memory_entries WHERE id = ?", (entry_id,))
    if row is None:
        return "unknown id"
    if row["scope"] != scope:
        return "another scope's entry"
    if row["pinned"]:
        return "pinned entry"
    if store.value("SELECT confirmed FROM enforcement_rules WHERE id = ?", (entry_id,)):
        return "confirmed rule"
    if row["source"] not in AUTOMATIC_SOURCES:
        return f"person-written entry (source {row['source']})"
    if row["status"] != "active":
        return f"entry is {row['status']}"
    return None


def check_compact(store, data, *, scope: str, offered: set[str]) -> tuple[list[dict], list[dict]]:
    """Validate a ``compact_memories`` input: (operations to apply, refused items).

    Operations are ``{"op": "delete"|"merge"|"edit", "ids": [...], "content": str|None}``. An id
    may be used once per answer, and only if it was offered to the model and is still
    unprotected (checked again against the store: the list may have changed meanwhile).
    """
    if not isinstance(data, dict):
        raise Malformed("the answer is not an object")
    extra = set(data) - {"delete", "merge", "edit"}
    if extra:
        raise Malformed(f"unexpected keys {sorted(extra)}")
    for key in ("delete", "merge", "edit"):
        if not isinstance(data.get(key, []), list):
            raise Malformed(f"{key} is not a list")
    used: set[str] = set()
    ops, refused = [], []

    def id_problem(eid) -> str | None:
        if not isinstance(eid, str):
            return "not an id"
        if eid in used:
            return "id used twice in one answer"
        why = protection(store, eid, scope)
        if why:
            return why
        if eid not in offered:
            return "id was not offered for compaction"
        return None

    for eid in data.get("delete", []):
        why = id_problem(eid)
        if why:
            _refuse(refused, {"delete": eid}, why)
            continue
        used.add(eid)
        ops.append({"op": "delete", "ids": [eid], "content": None})
    for item in data.get("merge", []):
        if not isinstance(item, dict) or set(item) - {"ids", "content"} or not isinstance(item.get("ids"), list):
            _refuse(refused, {"merge": item}, "a merge is {ids: [...], content: text}")
            continue
        content = _content(item.get("content"))
        ids = item["ids"]
        if content is None:
            _refuse(refused, {"merge": item}, "merged content must be non-empty text")
            continue
        if len(ids) < 2 or len(set(map(str, ids))) != len(ids):
            _refuse(refused, {"merge": item}, "a merge needs two or more different ids")
            continue
        problems = [(eid, id_problem(eid)) for eid in ids]
        bad = [(eid, why) for eid, why in problems if why]
        if bad:
            _refuse(refused, {"merge": item}, "; ".join(f"{eid}: {why}" for eid, why in bad))
            continue
        used.update(ids)
        ops.append({"op": "merge", "ids": list(ids), "content": content})
    for item in data.get("edit", []):
        if not isinstance(item, dict) or set(item) - {"id", "content"}:
            _refuse(refused, {"edit": item}, "an edit is {id, content}")
            continue
        content = _content(item.get("content"))
        if content is None:
            _refuse(refused, {"edit": item}, "edited content must be non-empty text")
            continue
        why = id_problem(item.get("id"))
        if why:
            _refuse(refused, {"edit": item}, why)
            continue
        used.add(item["id"])
        ops.append({"op": "edit", "ids": [item["id"]], "content": content})
    return ops, refused


MAX_CORRECTIONS = 20
MAX_STATEMENT_CHARS = 300
_CORRECTION_KEYS = {"quote", "statement", "kind"}
CORRECTION_KINDS = ("pushback", "standing")


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def check_corrections(data, *, typed: list[str]) -> tuple[list[dict], list[dict]]:
    """Validate the ``corrections`` of a ``save_memories`` input: (accepted, refused).

    Each must quote words the person really typed in this transcript (``typed``, their prompts
    as stored, redacted): a correction the model made up, or one it put in the agent's mouth, is
    refused. An answer without the list has none; a list of the wrong shape is ``Malformed``."""
    items = data.get("corrections") if isinstance(data, dict) else None
    if items is None:
        return [], []
    if not isinstance(items, list):
        raise Malformed("corrections is not a list")
    said = [_flat(t) for t in typed if t]
    accepted, refused = [], []
    for item in items:
        if len(accepted) >= MAX_CORRECTIONS:
            _refuse(refused, item, f"more than {MAX_CORRECTIONS} corrections in one answer")
            continue
        if not isinstance(item, dict) or set(item) - _CORRECTION_KEYS:
            _refuse(refused, item, "a correction is an object of quote, statement and kind")
            continue
        quote, statement, kind = item.get("quote"), item.get("statement"), item.get("kind")
        if kind not in CORRECTION_KINDS:
            _refuse(refused, item, f"kind {kind!r} is not one of {', '.join(CORRECTION_KINDS)}")
            continue
        if not isinstance(statement, str) or not statement.strip() or len(statement) > MAX_STATEMENT_CHARS:
            _refuse(refused, item, f"statement must be non-empty text of at most {MAX_STATEMENT_CHARS} characters")
            continue
        if not isinstance(quote, str) or len(_flat(quote)) < 2 or not any(_flat(quote) in t for t in said):
            _refuse(refused, item, "quote is not something the person typed in this session")
            continue
        accepted.append({"quote": " ".join(quote.split()), "statement": " ".join(statement.split()), "kind": kind})
    return accepted, refused
