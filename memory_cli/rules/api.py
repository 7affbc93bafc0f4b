"""Enforcement rules in the store: create, derive, list, edit, confirm, count violations.

A rule is a memory entry of type ``rule`` (its content is what gets injected and what the
person reads) plus a row in ``enforcement_rules`` (what a hook checks). Both are written in
one transaction. Trust follows provenance: rules a person writes are confirmed; rules promoted
from captured corrections start unconfirmed and act at most as ``warn`` until the person
confirms them (a false block stops a person's work).
"""

from __future__ import annotations

import json

from .. import audit, entries
from ..errors import InvalidInput, NotFound
from ..util import now_iso
from . import spec
from .listing import _SELECT, effective_action, list_rules, public_rule  # noqa: F401 (read here as rules.api.*)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

__all__ = [
    "RuleSpec",
    "add_rule",
    "new_rule",
    "create_rule",
    "attach_rule",
    "get_rule",
    "list_rules",
    "edit_rule",
    "set_enabled",
    "confirm_rule",
    "delete_rule",
    "record_violation",
    "same_rule",
    "reinforce_rule",
    "guess_pattern_type",
    "public_rule",
    "rule_exists",
    "active_rule_tools",
    "rule_counts",
]

#: A rule's enforcement fields as another store re-creates them (the repository file, the team
#: store), in the shape :func:`public_rule` gives them.
PORTABLE_FIELDS = (
    "pattern",
    "pattern_type",
    "action",
    "severity",
    "alternative",
    "message",
    "tools",
    "fields",
    "case_sensitive",
    "conditions",
    "name",
    "hook_events",
    "enabled",
)


def portable_rule(store: Store, entry_id: str) -> dict | None:
    """The :data:`PORTABLE_FIELDS` of the rule on ``entry_id``; None when the entry has none."""
    row = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (entry_id,))
    if row is None:
        return None
    rule = public_rule(row)
    return {k: rule[k] for k in PORTABLE_FIELDS}


def portable_kwargs(rule: dict) -> dict:
    """:class:`RuleSpec`'s keyword arguments for a rule another store described with
    :data:`PORTABLE_FIELDS` (the repository file, the team store); a field it left out or
    left empty takes RuleSpec's default."""
    out = {k: rule[k] for k in PORTABLE_FIELDS if rule.get(k) is not None}
    if "case_sensitive" in out:
        out["case_sensitive"] = bool(out["case_sensitive"])
    return out


def guess_pattern_type(pattern: str) -> str:
    """``command`` when the pattern reads as a plain command line, else ``regex``."""
    if any(ch in pattern for ch in "\\^$*+?[]{}|()"):
        return "regex"
    try:
        spec.check_pattern(pattern, "command")
    except InvalidInput:
        return "regex"
    return "command"


def _intent_vector(text: str) -> bytes | None:
    """Embed an intent rule now if the daemon is warm; otherwise the hook embeds it later."""
    try:
        from ..daemon import client

        vectors = client.embed([text], timeout_ms=300)
    except Exception:
        return None
    return vectors[0] if vectors else None


#: What a rule's enforcement row holds, as :func:`write_rule` takes it, with the value a new
#: rule gets when it is not given (``tools``: the pattern type's default).
RULE_FIELDS = {
    "pattern": None,
    "pattern_type": None,
    "action": None,
    "severity": "medium",
    "alternative": None,
    "message": None,
    "tools": None,
    "fields": [],
    "case_sensitive": False,
    "provenance": "manual",
    "confirmed": True,
    "conditions": [],
    "enabled": True,
    "name": None,
    "hook_events": [],
    "source_ref": None,
    "spelling_only": False,
}
_ANALYSED = ("pattern", "pattern_type", "case_sensitive", "conditions", "spelling_only")


def _stored(key: str, value):
    """``value`` of field ``key`` checked and in its column's form."""
    if key == "pattern_type":
        return spec.check_pattern_type(value)
    if key == "action":
        return spec.check_action(value)
    if key == "severity":
        return spec.check_severity(value or "medium")
    if key == "provenance":
        return spec.check_provenance(value)
    if key in ("alternative", "message"):
        return _clean_text(value) if value != "" else None
    if key == "name":
        return value or None
    if key == "tools":
        return json.dumps(spec.normalize_tools(value))
    if key == "fields":
        return json.dumps(spec.normalize_fields(value))
    if key == "conditions":
        return json.dumps(spec.normalize_conditions(value))
    if key == "hook_events":
        return json.dumps(spec.normalize_hook_events(value))
    if key in ("case_sensitive", "confirmed", "spelling_only"):
        return 1 if value else 0
    return value


def write_rule(store: Store, rule_id: str, changes: dict, *, create: bool = False, why: str | None = None) -> dict:
    """The one door to the ``enforcement_rules`` table: create the enforcement row of entry
    ``rule_id`` (``create``) or change it. Every field is checked by the rules area; the pattern
    is re-analysed whenever it, its type, case or conditions change (the analysis is what the
    engine compiles: a pattern stored without it would keep enforcing the old one); a change is
    audited (a new rule is audited with its entry, by the entry's ``add`` or the review's
    ``promote`` in the same transaction); and once the outermost transaction has committed in a
    process that may wait for the store (not a hook), the native rule copies follow. The
    rule-set generation is bumped by the table's triggers (:mod:`.schema`). ``changes`` uses
    :data:`RULE_FIELDS`' names (``enabled`` for the ``active`` column); None values are ignored.
    ``why``: the audit row's result, for a change no person asked for (a severity escalated by
    violations)."""
    unknown = set(changes) - set(RULE_FIELDS)
    if unknown:
        raise InvalidInput(f"cannot set {', '.join(sorted(unknown))} on a rule")
    changes = {k: v for k, v in changes.items() if v is not None}
    with store.transaction():
        before = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (rule_id,))
        if create and before is not None:
            raise InvalidInput(f"memory {rule_id[:8]} has a rule already")
        if not create and before is None:
            raise NotFound(f"no rule with id {rule_id!r}")
        if create:
            for key in ("pattern", "pattern_type", "action"):
                if not changes.get(key):
                    raise InvalidInput(f"a rule needs a {key.replace('_', ' ')}")
            given = dict(RULE_FIELDS, **changes)
            new: dict = {"id": rule_id}
            for key in ("pattern_type", *[k for k in RULE_FIELDS if k not in ("pattern_type", "enabled")]):
                if key == "tools" and given["tools"] is None:
                    new["tools"] = json.dumps(spec.default_tools(new["pattern_type"]))
                elif key != "pattern":
                    new[key] = _stored(key, given[key])
            new["active"] = 1 if given["enabled"] else 0
        else:
            new = dict(before)
            for key, value in changes.items():
                if key == "enabled":
                    new["active"] = 1 if value else 0
                elif key != "pattern":
                    new[key] = _stored(key, value)
        analysed = create or any(k in changes for k in _ANALYSED)
        if analysed:
            new["pattern"] = spec.check_pattern(
                changes.get("pattern", before["pattern"] if before else None),
                new["pattern_type"],
                case_sensitive=bool(new["case_sensitive"]),
            )
            vector = _intent_vector(new["pattern"]) if new["pattern_type"] == "intent" else None
            new["analysis"] = json.dumps(
                spec.analyze(
                    new["pattern"],
                    new["pattern_type"],
                    case_sensitive=bool(new["case_sensitive"]),
                    conditions=json.loads(new["conditions"] or "[]"),
                    vector=vector,
                )
            )
        now = now_iso()
        if create:
            new["created_at"] = new["updated_at"] = now
            cols = list(new)
            store.execute(
                f"INSERT INTO enforcement_rules({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [new[c] for c in cols],
            )
        else:
            diff = {
                k: {"before": before[k], "after": new[k]}
                for k in new
                if k not in ("updated_at", "analysis") and new[k] != before[k]
            }
            cols = [k for k in new if k != "id" and new[k] != before[k]]
            if cols:
                new["updated_at"] = now
                cols.append("updated_at")
                store.execute(
                    f"UPDATE enforcement_rules SET {', '.join(c + ' = ?' for c in cols)} WHERE id = ?",
                    [new[c] for c in cols] + [rule_id],
                )
            if diff:
                audit.record(store, "update", entry_id=rule_id, context="rule", result=why, details=diff)
    if store._depth == 0 and store.write_wait:
        sync_native(store)
    return get_rule(store, rule_id)


def sync_native(store: Store) -> list[str]:
    """Rewrite the native rule copies after a committed rule change (one warning line per copy
    that could not be written, also handed to ``store.warn``)."""
    from ..entry_effects import resync_native

    lines = resync_native(store)
    for line in lines:
        store.warn(line)
    return lines


def _clean_text(value) -> str | None:
    if value is None:
        return None
    from ..privacy.redact import redact

    text = str(value).strip()
    return redact(text)[0] if text else None


class RuleSpec:
    """What a new rule is, as one named shape: the pattern and how it acts, where it applies,
    where it came from. :func:`new_rule` stores one; callers build it by keyword.

    A slotted class rather than a dataclass: capture promotes corrections from the prompt hook,
    and importing ``dataclasses`` (with ``inspect``) costs a hook milliseconds.
    """

    __slots__ = (
        "content",
        "pattern",
        "pattern_type",
        "action",
        "severity",
        "alternative",
        "message",
        "tools",
        "fields",
        "scope",
        "provenance",
        "confirmed",
        "source",
        "conditions",
        "case_sensitive",
        "enabled",
        "name",
        "hook_events",
        "source_ref",
        "confidence",
        "tags",
        "fingerprint",
        "entry_id",
        "origin",
    )

    def __init__(
        self,
        content: str,
        *,
        pattern: str,
        pattern_type: str,
        action: str,
        severity: str = "medium",
        alternative: str | None = None,
        message: str | None = None,
        tools: list[str] | str | None = None,
        fields: list[str] | str | None = None,
        scope: str = "global",
        provenance: str = "manual",
        confirmed: bool = True,
        source: str = "manual",
        conditions: list | None = None,
        case_sensitive: bool = False,
        enabled: bool = True,
        name: str | None = None,
        hook_events: list[str] | str | None = None,
        source_ref: str | None = None,
        confidence: float | None = None,
        tags: list[str] | str | None = None,
        fingerprint: str | None = None,
        entry_id: str | None = None,
        origin: str | None = None,
    ) -> None:
        """``entry_id`` keeps the id a rule has elsewhere (a teammate's store, the repository
        file); ``origin`` says who wrote it (:mod:`memory_cli.provenance`)."""
        self.content = content
        self.pattern = pattern
        self.pattern_type = pattern_type
        self.action = action
        self.severity = severity
        self.alternative = alternative
        self.message = message
        self.tools = tools
        self.fields = fields
        self.scope = scope
        self.provenance = provenance
        self.confirmed = confirmed
        self.source = source
        self.conditions = conditions
        self.case_sensitive = case_sensitive
        self.enabled = enabled
        self.name = name
        self.hook_events = hook_events
        self.source_ref = source_ref
        self.confidence = confidence
        self.tags = tags
        self.fingerprint = fingerprint
        self.entry_id = entry_id
        self.origin = origin

    def __repr__(self) -> str:
        return f"RuleSpec({self.content!r}, pattern={self.pattern!r}, action={self.action!r}, scope={self.scope!r})"


def new_rule(store: Store, rule: RuleSpec, *, session_id: str | None = None) -> dict:
    """Store a new rule (entry + enforcement row) in one transaction; returns the rule.
    An agent or a model never creates an enforced rule: what they propose waits for the person."""
    from .. import provenance as prov_mod

    if (rule.origin or prov_mod.ORIGIN_OF_SOURCE.get(rule.source, prov_mod.PERSON)) in prov_mod.UNREVIEWED:
        raise prov_mod.NotOwner("an agent or a model cannot create an enforced rule; the person approves rules")
    fields = {
        "pattern": rule.pattern,
        "pattern_type": rule.pattern_type,
        "action": rule.action,
        "severity": rule.severity,
        "alternative": rule.alternative,
        "message": rule.message,
        "tools": rule.tools,
        "fields": rule.fields,
        "case_sensitive": rule.case_sensitive,
        "provenance": rule.provenance,
        "confirmed": rule.confirmed,
        "conditions": rule.conditions,
        "enabled": rule.enabled,
        "name": rule.name,
        "hook_events": rule.hook_events,
        "source_ref": rule.source_ref,
    }
    ptype = spec.check_pattern_type(rule.pattern_type)
    spec.check_pattern(rule.pattern, ptype, case_sensitive=rule.case_sensitive)  # refused before the entry exists
    with store.transaction():
        entry = entries.add(
            store,
            rule.content,
            "rule",
            scope=rule.scope,
            source=rule.source,
            confidence=rule.confidence,
            tags=rule.tags,
            session_id=session_id,
            fingerprint=rule.fingerprint,
            entry_id=rule.entry_id,
            origin=rule.origin,
        )
        write_rule(store, entry["id"], fields, create=True)
    if store._depth == 0 and store.write_wait:
        sync_native(store)
    return get_rule(store, entry["id"])


def create_rule(store: Store, content: str, *, session_id: str | None = None, **fields) -> dict:
    """:func:`new_rule` by keyword (``RuleSpec``'s fields), for the many tests and scripts that
    write a rule in one call."""
    return new_rule(store, RuleSpec(content, **fields), session_id=session_id)


def attach_rule(
    store: Store,
    entry: dict,
    *,
    pattern: str | None = None,
    pattern_type: str | None = None,
    action: str | None = None,
    severity: str | None = None,
    alternative: str | None = None,
    message: str | None = None,
    tools=None,
    fields=None,
    conditions=None,
    case_sensitive: bool = False,
) -> dict | None:
    """Give a just-added ``rule`` entry its enforcement data, deriving a pattern from the
    content when none is given. Returns None (and warns) when nothing concrete can be derived:
    the entry stays a reminder that is injected but not enforced."""
    content = entry.get("content") or ""
    filled = _fill_from_words(
        content,
        pattern=pattern,
        pattern_type=pattern_type,
        action=action,
        tools=tools,
        fields=fields,
        alternative=alternative,
        conditions=conditions,
    )
    if filled is None:
        store.warn(
            "no pattern could be derived from this rule, so it is injected as a "
            "reminder but not enforced; add --pattern (and --pattern-type) to enforce it"
        )
        return None
    derived = filled["derived"]
    pattern, pattern_type, action = filled["pattern"], filled["pattern_type"], filled["action"]
    tools, fields, alternative, conditions = (
        filled["tools"],
        filled["fields"],
        filled["alternative"],
        filled["conditions"],
    )
    source = entry.get("source") or "manual"
    person_wrote_it = source in ("manual", "imported", "migrated")
    if source == "promoted":
        provenance = "promoted"
    elif source in ("imported", "migrated"):
        provenance = "imported"
    else:
        provenance = "derived" if derived is not None else "manual"
    act = spec.check_action(action)
    if not person_wrote_it and act == "block":
        act = "warn"  # captured, not written: it earns "block" when the person confirms it
    return write_rule(
        store,
        entry["id"],
        {
            "pattern": pattern,
            "pattern_type": pattern_type,
            "action": act,
            "severity": severity,
            "alternative": alternative,
            "message": message,
            "tools": tools,
            "fields": fields,
            "case_sensitive": case_sensitive,
            "provenance": provenance,
            "confirmed": person_wrote_it,
            "conditions": conditions,
        },
        create=True,
    )


def _fill_from_words(
    content: str, *, pattern, pattern_type, action, tools, fields, alternative, conditions
) -> dict | None:
    """What a rule in words leaves out: the pattern (and its type, tools, fields, alternative,
    conditions) derived from the content, the action from its wording ("never" blocks) or the
    configured default. None when no pattern is given and none can be derived."""
    from .derive import derive_rule, wording_action

    derived = None
    if pattern is None:
        derived = derive_rule(content)
        if derived is None:
            return None
        pattern = derived["pattern"]
        pattern_type = pattern_type or derived["pattern_type"]
        tools = derived["tools"] if tools is None else tools
        fields = derived["fields"] if fields is None else fields
        alternative = derived.get("alternative") if alternative is None else alternative
        conditions = list(conditions or []) + list(derived.get("conditions") or [])
    if action is None:
        action = wording_action(content)
    if action is None:
        from .. import settings as settings_mod

        action = settings_mod.value(settings_mod.load(), "enforcement.default_action") or "warn"
    return {
        "pattern": pattern,
        "pattern_type": pattern_type or guess_pattern_type(pattern),
        "action": action,
        "tools": tools,
        "fields": fields,
        "alternative": alternative,
        "conditions": conditions,
        "derived": derived is not None,
    }


def add_rule(
    store: Store,
    content: str | None = None,
    *,
    pattern: str | None = None,
    pattern_type: str | None = None,
    action: str | None = None,
    severity: str | None = None,
    alternative: str | None = None,
    message: str | None = None,
    tools=None,
    fields=None,
    conditions=None,
    scope: str = "global",
    case_sensitive: bool = False,
    name: str | None = None,
    enabled: bool = True,
) -> dict:
    """A rule a person writes (`memory-cli rules add`, the dashboard): words, a pattern, or both.
    Without a pattern one is derived from the words; without words they are made from the pattern."""
    text = (content or "").strip()
    if not text and pattern:
        text = f"{pattern_type or guess_pattern_type(pattern)} rule: {pattern}"
    if not text:
        raise InvalidInput("a rule needs content (the rule in words) or --pattern")
    filled = _fill_from_words(
        text,
        pattern=pattern,
        pattern_type=pattern_type,
        action=action,
        tools=tools,
        fields=fields,
        alternative=alternative,
        conditions=conditions,
    )
    if filled is None:
        raise InvalidInput(
            "nothing concrete to enforce could be derived from this content; give --pattern and "
            "--pattern-type (or add it as a reminder with `memory-cli add --type rule`)"
        )
    existing = same_rule(
        store,
        pattern=filled["pattern"],
        pattern_type=filled["pattern_type"],
        scope=scope,
        tools=filled["tools"],
        fields=filled["fields"],
        conditions=filled["conditions"],
        case_sensitive=case_sensitive,
    )
    if existing is not None:
        rule = reinforce_rule(store, existing["id"], context=text)
        if action and action != rule["action"]:
            store.warn(
                f"the rule {rule['id'][:8]} stays '{rule['action']}'; change it with "
                f"`memory-cli rules edit {rule['id'][:8]} --action {action}`"
            )
        return dict(rule, reinforced=True)
    rule = RuleSpec(
        text,
        pattern=filled["pattern"],
        pattern_type=filled["pattern_type"],
        action=filled["action"],
        severity=severity or "medium",
        alternative=filled["alternative"],
        message=message,
        tools=filled["tools"],
        fields=filled["fields"],
        scope=scope,
        provenance="derived" if filled["derived"] else "manual",
        confirmed=True,
        conditions=filled["conditions"],
        case_sensitive=case_sensitive,
        enabled=enabled,
        name=name,
    )
    return new_rule(store, rule)


#: How much a rule's confidence rises when it is stated again (as a marker reinforces a memory).
REINFORCE_STEP = 0.1


def _same_pattern(a: str, b: str, case_sensitive: bool) -> bool:
    a, b = " ".join(a.split()), " ".join(b.split())
    return a == b if case_sensitive else a.lower() == b.lower()


def same_rule(
    store: Store,
    *,
    pattern: str,
    pattern_type: str,
    scope: str = "global",
    tools=None,
    fields=None,
    conditions=None,
    case_sensitive: bool = False,
) -> dict | None:
    """The enabled rule of an active memory that means the same: same scope, pattern type,
    pattern (spacing, and case unless case-sensitive, ignored), tools, fields and conditions.
    A second rule beside it would only report every violation twice."""
    from .. import scope as scopes

    ptype = spec.check_pattern_type(pattern_type)
    sc = scopes.parse(scope)
    tool_list = spec.normalize_tools(tools) if tools is not None else spec.default_tools(ptype)
    field_list = spec.normalize_fields(fields)
    conds = spec.normalize_conditions(conditions)
    rows = store.rows(
        "SELECT r.id, r.pattern, r.tools, r.fields, r.conditions, r.case_sensitive FROM enforcement_rules r"
        " JOIN memory_entries e ON e.id = r.id"
        " WHERE r.active = 1 AND e.status = 'active' AND r.pattern_type = ? AND e.scope = ?"
        " ORDER BY r.confirmed DESC, r.created_at",
        (ptype, sc),
    )
    for r in rows:
        if bool(r["case_sensitive"]) != bool(case_sensitive):
            continue
        if not _same_pattern(r["pattern"], pattern, bool(case_sensitive)):
            continue
        try:
            same = (
                json.loads(r["tools"] or "[]") == tool_list
                and json.loads(r["fields"] or "[]") == field_list
                and json.loads(r["conditions"] or "[]") == conds
            )
        except ValueError:
            continue
        if same:
            return get_rule(store, r["id"])
    return None


def reinforce_rule(store: Store, rule_id: str, *, context: str | None = None, session_id: str | None = None) -> dict:
    """The rule was stated again: its confidence rises a step and its decay clock restarts."""
    with store.transaction():
        row = store.row("SELECT confidence FROM memory_entries WHERE id = ?", (rule_id,))
        before = float(row["confidence"]) if row else 0.0
        after = round(min(1.0, before + REINFORCE_STEP), 6)
        entries.set_confidence(store, rule_id, after, reinforced=True)
        audit.record(
            store,
            "reinforce",
            entry_id=rule_id,
            context=(context or "")[:300] or None,
            result=f"{after:g}",
            details={"before": before, "after": after, "by": "the same rule stated again"},
            session_id=session_id,
        )
    return get_rule(store, rule_id)


def _resolve(store, ref: str) -> str:
    try:
        return entries.resolve_id(store, ref, "enforcement_rules")
    except NotFound:
        if store.value("SELECT 1 FROM memory_entries WHERE id = ? AND type = 'rule'", (ref,)):
            raise NotFound(
                f"memory {ref!r} is a rule without a pattern (a reminder, not "
                "enforced); to enforce it, add it with `memory-cli rules add "
                "--pattern P`"
            ) from None
        raise NotFound(f"no rule with id {ref!r}") from None


def rule_exists(store, rule_id: str) -> bool:
    """Whether ``rule_id`` (a full id) is an enforced rule: an entry may be a rule without a pattern."""
    return store.value("SELECT 1 FROM enforcement_rules WHERE id = ?", (rule_id,)) is not None


def active_rule_tools(store) -> list[str]:
    """Every tool name an active rule applies to, once each, in stored order: the tools whose
    calls the installed PreToolUse hook must see."""
    tools: list[str] = []
    for r in store.rows("SELECT tools FROM enforcement_rules WHERE active = 1"):
        for t in json.loads(r["tools"] or "[]"):
            if isinstance(t, str) and t and t not in tools:
                tools.append(t)
    return tools


def rule_counts(store) -> dict:
    """How many rules are stored, disabled, and active but unconfirmed (acting at most as warn)."""
    row = store.row(
        "SELECT count(*) AS total, coalesce(sum(active = 0), 0) AS disabled,"
        " coalesce(sum(confirmed = 0 AND active = 1), 0) AS unconfirmed FROM enforcement_rules"
    )
    return {k: int(row[k] or 0) for k in ("total", "disabled", "unconfirmed")}


def get_rule(store: Store, ref: str) -> dict:
    rid = _resolve(store, ref)
    return public_rule(store.row(_SELECT + " WHERE r.id = ?", (rid,)))


_EDITABLE = (
    "pattern",
    "pattern_type",
    "action",
    "severity",
    "alternative",
    "message",
    "tools",
    "fields",
    "conditions",
    "case_sensitive",
    "scope",
    "content",
    "name",
    "hook_events",
    "enabled",
    "confirmed",
)


def edit_rule(store: Store, ref: str, *, by: str = "person", **changes) -> dict:
    """Change a rule; the pattern is re-validated and re-analysed. None values are ignored.
    ``by`` is who asks: the person, or the source that created the rule."""
    unknown = set(changes) - set(_EDITABLE)
    if unknown:
        raise InvalidInput(f"cannot edit {', '.join(sorted(unknown))}")
    rid = _resolve(store, ref)
    if by != "person":
        from ..provenance import check_may_change

        check_may_change(store, rid, by, "change")
    changes = {k: v for k, v in changes.items() if v is not None}
    entry_changes = {k: changes.pop(k) for k in ("content", "scope") if k in changes}
    with store.transaction():
        if entry_changes:
            entries.update(store, rid, by=by, **entry_changes)
        write_rule(store, rid, changes)
    if store._depth == 0 and store.write_wait and entry_changes:
        sync_native(store)  # a scope change moves the rule in the native copies too
    return get_rule(store, rid)


def set_enabled(store: Store, ref: str, enabled: bool) -> dict:
    return edit_rule(store, ref, enabled=enabled)


def confirm_rule(store: Store, ref: str, action: str | None = None) -> dict:
    """The person vouches for a rule. A promoted ``warn`` rule becomes ``block`` unless the
    person chooses another action."""
    rule = get_rule(store, ref)
    new_action = action
    if new_action is None and rule["provenance"] == "promoted" and rule["action"] == "warn":
        new_action = "block"
    return edit_rule(store, rule["id"], confirmed=True, action=new_action)


def delete_rule(store: Store, ref: str, *, by: str = "person") -> dict:
    """Delete the rule and its memory entry (the audit log keeps both rows)."""
    rule = get_rule(store, ref)
    entries.delete(store, rule["id"], by=by)
    return rule


def record_violation(store: Store, rule_id: str, *, escalate_after: int = 3) -> dict:
    """Count one violation; past ``escalate_after`` violations the severity rises one level,
    and again each further ``escalate_after + 1`` (4th, 8th, 12th with the default 3)."""
    now = now_iso()
    with store.transaction():
        entries.count_violation(store, rule_id)
        # a counter beside the rule, not a change of what it enforces: no audit row, no new generation
        store.execute("UPDATE enforcement_rules SET last_violation_at = ? WHERE id = ?", (now, rule_id))
        row = store.row(
            "SELECT e.violation_count AS n, r.severity FROM enforcement_rules r"
            " JOIN memory_entries e ON e.id = r.id WHERE r.id = ?",
            (rule_id,),
        )
        if row is None:
            return {"violation_count": 0, "severity": None, "escalated": False}
        n, severity = row["n"], row["severity"]
        step = max(1, int(escalate_after)) + 1
        escalated = False
        if n > escalate_after and n % step == 0 and spec.SEVERITY_UP[severity] != severity:
            new = spec.SEVERITY_UP[severity]
            write_rule(store, rule_id, {"severity": new}, why=f"severity escalated after {n} violations")
            severity, escalated = new, True
    return {"violation_count": n, "severity": severity, "escalated": escalated}


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """A violation a PostToolUse hook counted while another process held the write lock."""
    record_violation(store, str(args.get("rule_id")), escalate_after=int(args.get("escalate_after") or 3))
