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

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..db import Store

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

_SELECT = (
    "SELECT r.*, e.content, e.scope, e.status, e.confidence, e.violation_count, e.source,"
    " e.tags FROM enforcement_rules r JOIN memory_entries e ON e.id = r.id"
)
_JSON_COLUMNS = ("tools", "fields", "conditions", "hook_events", "tags")


def public_rule(row: dict | None) -> dict | None:
    """The shape every caller sees: JSON columns decoded, booleans as booleans."""
    if row is None:
        return None
    out = dict(row)
    for key in _JSON_COLUMNS:
        if key in out:
            try:
                out[key] = json.loads(out[key] or "[]")
            except (TypeError, ValueError):
                out[key] = []
    out["enabled"] = bool(out.pop("active", 1))
    out["confirmed"] = bool(out.get("confirmed"))
    out["case_sensitive"] = bool(out.get("case_sensitive"))
    if out.get("pattern_type") == "command":
        from .operations import stands_for

        out["spelling_only"] = bool(out.get("spelling_only"))
        out["operation"] = stands_for(out.get("pattern") or "", out["spelling_only"])
    out.pop("analysis", None)
    out["effective_action"] = effective_action(out["action"], out["confirmed"], out.get("pattern_type"))
    return out


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


def effective_action(action: str, confirmed: bool, pattern_type: str | None = None) -> str:
    """An unconfirmed rule never blocks: it warns until the person confirms it. An intent rule
    never blocks or asks: similarity is a hint, not proof (see engine.effective_action)."""
    if pattern_type == "intent" and action in ("block", "ask"):
        return "warn"
    return "warn" if action == "block" and not confirmed else action


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


def _insert(
    store,
    entry_id: str,
    *,
    pattern: str,
    pattern_type: str,
    action: str,
    severity: str,
    alternative: str | None,
    message: str | None,
    tools: list[str],
    fields: list[str],
    case_sensitive: bool,
    provenance: str,
    confirmed: bool,
    conditions: list[dict],
    enabled: bool,
    name: str | None,
    hook_events: list[str],
    source_ref: str | None,
) -> None:
    vector = _intent_vector(pattern) if pattern_type == "intent" else None
    analysis = spec.analyze(pattern, pattern_type, case_sensitive=case_sensitive, conditions=conditions, vector=vector)
    now = now_iso()
    store.execute(
        "INSERT INTO enforcement_rules(id, pattern, pattern_type, action, severity, alternative,"
        " active, message, tools, fields, case_sensitive, provenance, confirmed, created_at,"
        " updated_at, conditions, name, hook_events, source_ref, analysis)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            entry_id,
            pattern,
            pattern_type,
            action,
            severity,
            alternative,
            1 if enabled else 0,
            message,
            json.dumps(tools),
            json.dumps(fields),
            1 if case_sensitive else 0,
            provenance,
            1 if confirmed else 0,
            now,
            now,
            json.dumps(conditions),
            name,
            json.dumps(hook_events),
            source_ref,
            json.dumps(analysis),
        ),
    )


def _clean_text(value) -> str | None:
    if value is None:
        return None
    from ..redact import redact

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
    ptype = spec.check_pattern_type(rule.pattern_type)
    pat = spec.check_pattern(rule.pattern, ptype, case_sensitive=rule.case_sensitive)
    act = spec.check_action(rule.action)
    sev = spec.check_severity(rule.severity or "medium")
    prov = spec.check_provenance(rule.provenance)
    tool_list = spec.normalize_tools(rule.tools) if rule.tools is not None else spec.default_tools(ptype)
    field_list = spec.normalize_fields(rule.fields)
    conds = spec.normalize_conditions(rule.conditions)
    events = spec.normalize_hook_events(rule.hook_events)
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
        _insert(
            store,
            entry["id"],
            pattern=pat,
            pattern_type=ptype,
            action=act,
            severity=sev,
            alternative=_clean_text(rule.alternative),
            message=_clean_text(rule.message),
            tools=tool_list,
            fields=field_list,
            case_sensitive=rule.case_sensitive,
            provenance=prov,
            confirmed=rule.confirmed,
            conditions=conds,
            enabled=rule.enabled,
            name=rule.name,
            hook_events=events,
            source_ref=rule.source_ref,
        )
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
    ptype = spec.check_pattern_type(pattern_type)
    act = spec.check_action(action)
    if not person_wrote_it and act == "block":
        act = "warn"  # captured, not written: it earns "block" when the person confirms it
    with store.transaction():
        _insert(
            store,
            entry["id"],
            pattern=spec.check_pattern(pattern, ptype, case_sensitive=case_sensitive),
            pattern_type=ptype,
            action=act,
            severity=spec.check_severity(severity or "medium"),
            alternative=_clean_text(alternative),
            message=_clean_text(message),
            tools=spec.normalize_tools(tools) if tools is not None else spec.default_tools(ptype),
            fields=spec.normalize_fields(fields),
            case_sensitive=case_sensitive,
            provenance=provenance,
            confirmed=person_wrote_it,
            conditions=spec.normalize_conditions(conditions),
            enabled=True,
            name=None,
            hook_events=[],
            source_ref=None,
        )
    return get_rule(store, entry["id"])


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
        now = now_iso()
        store.execute(
            "UPDATE memory_entries SET confidence = ?, updated_at = ?, reinforced_at = ? WHERE id = ?",
            (after, now, now, rule_id),
        )
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


def list_rules(
    store: Store,
    *,
    enabled: bool | None = None,
    status: str = "active",
    scope: str | None = None,
    pattern_type: str | None = None,
    provenance: str | None = None,
    confirmed: bool | None = None,
    limit: int | None = None,
) -> list[dict]:
    where, params = [], []
    if status != "all":
        where.append("e.status = ?")
        params.append(status)
    if enabled is not None:
        where.append("r.active = ?")
        params.append(1 if enabled else 0)
    if scope:
        from .. import scope as scopes

        where.append("e.scope = ?")
        params.append(scopes.parse(scope))
    if pattern_type:
        where.append("r.pattern_type = ?")
        params.append(spec.check_pattern_type(pattern_type))
    if provenance:
        where.append("r.provenance = ?")
        params.append(spec.check_provenance(provenance))
    if confirmed is not None:
        where.append("r.confirmed = ?")
        params.append(1 if confirmed else 0)
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY CASE r.action WHEN 'block' THEN 0 WHEN 'ask' THEN 1 WHEN 'warn' THEN 2 ELSE 3 END, r.created_at"
    if limit:
        sql += " LIMIT ?"
        params.append(int(limit))
    return [public_rule(r) for r in store.rows(sql, params)]


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
    with store.transaction():
        before = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (rid,))
        entry_changes = {k: changes.pop(k) for k in ("content", "scope") if k in changes}
        if entry_changes:
            entries.update(store, rid, by=by, **entry_changes)
        new = dict(before)
        if "pattern_type" in changes:
            new["pattern_type"] = spec.check_pattern_type(changes["pattern_type"])
        if "case_sensitive" in changes:
            new["case_sensitive"] = 1 if changes["case_sensitive"] else 0
        if "pattern" in changes or "pattern_type" in changes or "case_sensitive" in changes:
            new["pattern"] = spec.check_pattern(
                changes.get("pattern", before["pattern"]),
                new["pattern_type"],
                case_sensitive=bool(new["case_sensitive"]),
            )
        if "action" in changes:
            new["action"] = spec.check_action(changes["action"])
        if "severity" in changes:
            new["severity"] = spec.check_severity(changes["severity"])
        for key in ("alternative", "message"):
            if key in changes:
                new[key] = _clean_text(changes[key]) if changes[key] != "" else None
        if "name" in changes:
            new["name"] = changes["name"] or None
        if "tools" in changes:
            new["tools"] = json.dumps(spec.normalize_tools(changes["tools"]))
        if "fields" in changes:
            new["fields"] = json.dumps(spec.normalize_fields(changes["fields"]))
        if "conditions" in changes:
            new["conditions"] = json.dumps(spec.normalize_conditions(changes["conditions"]))
        if "hook_events" in changes:
            new["hook_events"] = json.dumps(spec.normalize_hook_events(changes["hook_events"]))
        if "enabled" in changes:
            new["active"] = 1 if changes["enabled"] else 0
        if "confirmed" in changes:
            new["confirmed"] = 1 if changes["confirmed"] else 0
        if any(k in changes for k in ("pattern", "pattern_type", "case_sensitive", "conditions")):
            analysis = spec.analyze(
                new["pattern"],
                new["pattern_type"],
                case_sensitive=bool(new["case_sensitive"]),
                conditions=json.loads(new["conditions"] or "[]"),
                vector=_intent_vector(new["pattern"]) if new["pattern_type"] == "intent" else None,
            )
            new["analysis"] = json.dumps(analysis)
        diff = {
            k: {"before": before[k], "after": new[k]}
            for k in new
            if k not in ("updated_at", "analysis") and new[k] != before[k]
        }
        if diff or "analysis" in changes:
            new["updated_at"] = now_iso()
            cols = [k for k in new if k != "id" and new[k] != before[k]]
            if cols:
                store.execute(
                    f"UPDATE enforcement_rules SET {', '.join(c + ' = ?' for c in cols)} WHERE id = ?",
                    [new[c] for c in cols] + [rid],
                )
            audit.record(store, "update", entry_id=rid, context="rule", details=diff)
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
        store.execute("UPDATE memory_entries SET violation_count = violation_count + 1 WHERE id = ?", (rule_id,))
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
            store.execute("UPDATE enforcement_rules SET severity = ?, updated_at = ? WHERE id = ?", (new, now, rule_id))
            audit.record(
                store,
                "update",
                entry_id=rule_id,
                context="rule",
                result="severity escalated",
                details={"severity": {"before": severity, "after": new}, "violations": n},
            )
            severity, escalated = new, True
    return {"violation_count": n, "severity": severity, "escalated": escalated}


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """A violation a PostToolUse hook counted while another process held the write lock."""
    record_violation(store, str(args.get("rule_id")), escalate_after=int(args.get("escalate_after") or 3))
