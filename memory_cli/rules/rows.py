"""The rules the engine compiles, as one query: what the rule set is built from and what the
record of the confirmed rules holds. Apart from :mod:`.ruleset` so that :mod:`.confirmed`,
which the rule set reads, can read the same rows without importing it back."""

from __future__ import annotations

ROWS_SQL = (
    "SELECT r.id, r.pattern, r.pattern_type, r.action, r.severity, r.alternative,"
    " r.message, r.tools, r.fields, r.case_sensitive, r.provenance, r.confirmed,"
    " r.conditions, r.name, r.hook_events, r.analysis, r.spelling_only, e.content, e.scope"
    " FROM enforcement_rules r JOIN memory_entries e ON e.id = r.id"
    " WHERE r.active = 1 AND e.status = 'active'"
)
