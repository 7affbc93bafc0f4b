"""Importing hookify rule files as memory-cli rules, keeping their meaning.

A hookify rule is "all these conditions hold"; a memory-cli rule is "this pattern matches one
of these fields, and all these extra conditions hold". The first ``regex_match`` condition
becomes the pattern (a positive string condition is turned into the equivalent
case-sensitive regex when there is none), every other condition is kept as it is, and the
event decides the tools (``bash`` -> Bash, ``file`` -> Edit/Write/MultiEdit) or hook events
(``stop``, ``prompt``, ``all``). Imported rules are the person's own rules, so they are
confirmed. Importing the same file again updates its rule instead of adding a second one.
"""

from __future__ import annotations

import os
import re

from .. import audit
from .hookify import HookifyRule, load_rules

_MARKDOWN_NOISE = re.compile(r"[*_`#>]+")


def _summary(rule: HookifyRule) -> str:
    for line in rule.message.splitlines():
        text = _MARKDOWN_NOISE.sub("", line).strip(" -:")
        if text:
            return f"{rule.name}: {text}"[:300]
    return rule.name


def hookify_to_spec(rule: HookifyRule) -> dict:
    """The RuleSpec fields that mean what the hookify rule means."""
    conds = [c.to_dict() for c in rule.conditions]
    main_idx = next((k for k, c in enumerate(conds) if c["operator"] == "regex_match"), None)
    case_sensitive = False
    if main_idx is not None:
        pattern = conds[main_idx]["pattern"]
    else:
        main_idx = next(
            (k for k, c in enumerate(conds) if c["operator"] in ("contains", "equals", "starts_with", "ends_with")),
            None,
        )
        if main_idx is not None:
            c = conds[main_idx]
            body = re.escape(c["pattern"])
            pattern = {
                "contains": body,
                "equals": r"\A" + body + r"\Z",
                "starts_with": r"\A" + body,
                "ends_with": body + r"\Z",
            }[c["operator"]]
            case_sensitive = True  # hookify's string operators are case-sensitive
        else:
            pattern = r"\A"  # only negative conditions: they decide, on a field that exists
            main_idx = None
    if main_idx is not None:
        field = conds[main_idx]["field"]
        rest = conds[:main_idx] + conds[main_idx + 1 :]
    else:
        field = conds[0]["field"] if conds else "content"
        rest = conds
    tools = rule.tools
    if rule.event in ("stop", "prompt"):
        events = ["Stop"] if rule.event == "stop" else ["UserPromptSubmit"]
    elif rule.event == "all":
        events = ["PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"]
    else:
        events = []
    return {
        "content": _summary(rule),
        "pattern": pattern,
        "pattern_type": "regex",
        "action": rule.action,
        "severity": "high" if rule.action == "block" else "medium",
        "message": rule.message or None,
        "tools": tools or [],
        "fields": [field],
        "conditions": rest,
        "case_sensitive": case_sensitive,
        "enabled": rule.enabled,
        "name": rule.name,
        "hook_events": events,
    }


_COMPARED = (
    "content",
    "pattern",
    "action",
    "severity",
    "message",
    "tools",
    "fields",
    "conditions",
    "case_sensitive",
    "enabled",
    "name",
    "hook_events",
)


def import_hookify(store, directory: str, *, dry_run: bool = False) -> dict:
    """Import every ``hookify.*.local.md`` under ``directory``; returns what happened."""
    from .api import RuleSpec, edit_rule, get_rule, new_rule

    rules, errors = load_rules(directory)
    report: dict = {"created": [], "updated": [], "unchanged": [], "errors": errors, "warnings": [], "dry_run": dry_run}
    for rule in rules:
        spec = hookify_to_spec(rule)
        ref = os.path.abspath(rule.source)
        for w in rule.warnings:
            report["warnings"].append(f"{rule.source}: {w}")
        existing = store.value("SELECT id FROM enforcement_rules WHERE source_ref = ?", (ref,))
        try:
            if existing:
                current = get_rule(store, existing)
                changed = {k: spec[k] for k in _COMPARED if current.get(k) != spec[k]}
                if not changed:
                    report["unchanged"].append({"id": existing, "name": rule.name, "file": ref})
                    continue
                if not dry_run:
                    edit_rule(store, existing, by="import", **changed)
                report["updated"].append({"id": existing, "name": rule.name, "file": ref, "changed": sorted(changed)})
                continue
            if dry_run:
                report["created"].append(
                    {"id": None, "name": rule.name, "file": ref, "pattern": spec["pattern"], "action": spec["action"]}
                )
                continue
            with store.transaction():
                rule_spec = RuleSpec(
                    spec.pop("content"),
                    **spec,
                    provenance="imported",
                    source="imported",
                    confirmed=True,
                    source_ref=ref,
                    fingerprint="hookify:" + ref,
                )
                created = new_rule(store, rule_spec)
                audit.record(
                    store,
                    "import",
                    entry_id=created["id"],
                    context="hookify",
                    result="created",
                    details={"file": ref, "name": rule.name},
                )
            report["created"].append(
                {
                    "id": created["id"],
                    "name": rule.name,
                    "file": ref,
                    "pattern": created["pattern"],
                    "action": created["action"],
                }
            )
        except Exception as e:  # one bad rule file must not stop the others
            from ..errors import MemoryCliError

            if not isinstance(e, MemoryCliError):
                raise
            report["errors"].append(f"{ref}: {e}")
    return report
