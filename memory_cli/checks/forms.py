"""Each approved lesson's form of enforcement: proposed at approval, changeable by the person.

``rule``: the gate (and the native copy where the person turned it on); ``reminder``: the
lesson beside each call of the tools it names (PreToolUse ``additionalContext``); ``ask``: the
person is asked before each call of those tools, with the lesson as the reason; ``stop-check``:
checked when the agent stops (:mod:`.compile` chooses how); ``advice``: a memory and nothing more.
Only a lesson the person approved gets a form: the review (:mod:`memory_cli.review`) and the
person's own ``lessons form`` command are the only callers that write one.
"""

from __future__ import annotations

import os

from ..errors import InvalidInput, NotFound
from ..fastjson import loads
from ..store import kvstate
from ..util import dumps, now_iso
from .schema import FORMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store.db import Store

PAUSED_KEY = "checks.paused"


def check_form(form: str | None) -> str | None:
    if form is None:
        return None
    f = form.strip().lower().replace("_", "-")
    if f == "stop":
        f = "stop-check"
    if f not in FORMS:
        raise InvalidInput(f"unknown form {form!r}: use one of {', '.join(FORMS)}")
    return f


def _root_for(scope: str, cwd: str | None) -> str | None:
    """The checkout whose settings hold a project lesson's judge (None: a global lesson, or a
    project this machine cannot place from here)."""
    from .. import scope as scopes

    if scope.startswith("repo:"):
        return scope[5:]
    if not scope.startswith("project:"):
        return None
    root = scopes.find_project_root(cwd or os.getcwd())
    if root and scopes.normalize_project(scopes.project_name(root) or "") == scopes.normalize_project(scope[8:]):
        return root
    return None


def root_of(lesson: dict, cwd: str | None = None) -> str | None:
    """The checkout holding a project lesson's judge now: the one recorded at approval while it
    is still the lesson's project (its scope may have changed since), else the one here."""
    from .. import scope as scopes

    scope, root = lesson["scope"], lesson.get("project_root")
    if scope.startswith("repo:"):
        return scope[5:]
    if not scope.startswith("project:"):
        return None
    if root and scopes.normalize_project(scopes.project_name(root) or "") == scopes.normalize_project(scope[8:]):
        return root
    return _root_for(scope, cwd)


def settle(store: Store, entry_id: str, form: str | None, *, cwd: str | None = None) -> dict:
    """Give an approved lesson its form (``form`` None: the proposed one) and compile it; ``rule``
    without a rule to enforce stays advice, said as a warning. ``rule_enabled`` in the answer
    says whether the lesson's rule must be switched on (True) or off (False) to match the form
    (None: as it is); :func:`memory_cli.checks.lesson_review.apply` does that."""
    from . import compile as compiler

    form = check_form(form)
    entry = store.row("SELECT id, content, scope, status FROM memory_entries WHERE id = ?", (entry_id,))
    if entry is None:
        raise NotFound(f"no lesson {entry_id}")
    rule = store.row("SELECT active, pattern FROM enforcement_rules WHERE id = ?", (entry_id,))
    has_rule = bool(rule and rule["active"])
    proposed = compiler.propose(entry["content"], has_rule or (rule is not None and form == "rule"))
    chosen = form or proposed
    now = now_iso()
    if chosen == "rule" and rule is None:
        store.warn("this lesson names no command or file a rule could hold: kept as advice")
        chosen = "advice"
    # The rule is switched on or off by the caller, through the rules' door (lesson_review.apply).
    rule_enabled = None if rule is None or bool(rule["active"]) == (chosen == "rule") else chosen == "rule"
    kind = compiler.check_kind(entry["content"]) if chosen == "stop-check" else None
    tools = compiler.tools_named(entry["content"]) if chosen in ("reminder", "ask") else []
    if chosen in ("reminder", "ask") and not tools:
        tools = ["Bash"]
    root = _root_for(entry["scope"], cwd)
    store.execute(
        "INSERT INTO lesson_forms(entry_id, form, check_kind, tools, project_root, created_at, updated_at)"
        " VALUES (?,?,?,?,?,?,?) ON CONFLICT(entry_id) DO UPDATE SET form = excluded.form,"
        " check_kind = excluded.check_kind, tools = excluded.tools, project_root = excluded.project_root,"
        " updated_at = excluded.updated_at",
        (entry_id, chosen, kind, dumps(tools), root, now, now),
    )
    from .. import audit

    audit.record(
        store,
        "lesson_form",
        entry_id=entry_id,
        context=entry["content"][:300],
        result=chosen,
        details={"proposed": proposed, "check_kind": kind, "tools": tools, "project_root": root},
    )
    return {
        "form": chosen,
        "proposed": proposed,
        "check_kind": kind,
        "tools": tools,
        "project_root": root,
        "rule_enabled": rule_enabled,
    }


def drop(store: Store, entry_id: str | None) -> bool:
    """A rejected lesson has no form any more."""
    if not entry_id:
        return False
    had = store.value("SELECT 1 FROM lesson_forms WHERE entry_id = ?", (entry_id,)) is not None
    if had:
        store.execute("DELETE FROM lesson_forms WHERE entry_id = ?", (entry_id,))
    return had


def resolve(store: Store, ref: str) -> str:
    """A lesson's entry id from an id or a unique prefix (of the entry or of its correction)."""
    from ..ids import check_id, like_prefix

    ref = check_id(ref)
    ids = [
        r["entry_id"]
        for r in store.rows("SELECT entry_id FROM lesson_forms WHERE entry_id LIKE ? ESCAPE '\\'", (like_prefix(ref),))
    ]
    if not ids:
        ids = [
            r["promoted_to"]
            for r in store.rows(
                "SELECT promoted_to FROM corrections WHERE id LIKE ? ESCAPE '\\' AND promoted_to IS NOT NULL",
                (like_prefix(ref),),
            )
        ]
    if not ids:
        raise NotFound(f"no approved lesson {ref}")
    if len(set(ids)) > 1:
        raise InvalidInput(f"{ref} matches {len(set(ids))} lessons; give more of the id")
    return ids[0]


def in_force(store: Store, *, form: str | None = None) -> list[dict]:
    """Approved lessons whose entry is active, with their form, check, tools, scope and root."""
    sql = (
        "SELECT f.entry_id AS id, f.form, f.check_kind, f.tools, f.project_root, e.content, e.scope, e.status"
        " FROM lesson_forms f JOIN memory_entries e ON e.id = f.entry_id WHERE e.status = 'active'"
    )
    params: tuple = ()
    if form:
        sql += " AND f.form = ?"
        params = (form,)
    out = []
    for r in store.rows(sql + " ORDER BY f.created_at, f.entry_id", params):
        r = dict(r)
        try:
            r["tools"] = loads(r["tools"] or "[]")
        except ValueError:
            r["tools"] = []
        out.append(r)
    return out


def paused(store: Store) -> bool:
    return bool(kvstate.get(store, PAUSED_KEY))


def set_paused(store: Store, value: bool) -> None:
    with store.transaction():
        if value:
            kvstate.put(store, PAUSED_KEY, {"since": now_iso()})
        else:
            kvstate.delete(store, PAUSED_KEY)
