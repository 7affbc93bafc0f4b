"""Health checks for enforcement, called by `memory-cli doctor`."""

from __future__ import annotations


def doctor_checks(store, settings) -> list[dict]:
    import os

    from .. import audit
    from . import api, ruleset
    from .safe_regex import fork_available

    checks: list[dict] = []
    try:
        rs = ruleset.load(store)
    except Exception as e:  # doctor reports, never raises
        return [{"name": "rules", "status": "fail", "detail": f"cannot build the rule set: {type(e).__name__}: {e}"}]
    from .tamper import doctor_checks as outside_changes

    checks.extend(outside_changes(store, settings))
    counts = api.rule_counts(store)
    total, disabled = counts["total"], counts["disabled"]
    checks.append(
        {
            "name": "rules",
            "status": "ok",
            "detail": f"{len(rs)} active rules ({total} stored, {disabled} disabled), "
            f"rule-set generation {rs.generation}",
        }
    )
    if rs.broken:
        checks.append(
            {
                "name": "rules: patterns",
                "status": "fail",
                "detail": f"{len(rs.broken)} rule(s) cannot be compiled and are skipped: "
                + "; ".join(f"{i[:8]} {err}" for i, err in rs.broken[:5]),
            }
        )
    unconfirmed = counts["unconfirmed"]
    if unconfirmed:
        checks.append(
            {
                "name": "rules: unconfirmed",
                "status": "warn",
                "detail": f"{unconfirmed} rule(s) only warn until confirmed: "
                "`memory-cli rules list --unconfirmed`, then `rules confirm ID`",
            }
        )
    path = ruleset.cache_path(store)
    if path is not None:
        import os

        directory = os.path.dirname(path) or "."
        if not os.access(directory, os.W_OK):
            checks.append(
                {
                    "name": "rules: cache",
                    "status": "warn",
                    "detail": f"{directory} is not writable: every hook rebuilds the rule set",
                }
            )
    if not fork_available():
        checks.append(
            {
                "name": "rules: regex budget",
                "status": "warn",
                "detail": "no os.fork here: risky regexes on large inputs are skipped "
                "(and audited) instead of being run under a deadline",
            }
        )
    from ..settings import value as setting

    if not setting(settings, "enforcement.enabled"):
        checks.append(
            {
                "name": "rules: enforcement",
                "status": "warn",
                "detail": "enforcement.enabled is false: PreToolUse blocks nothing",
            }
        )
    from .proof import RETIRE_AFTER_DAYS, retire_candidates

    idle = retire_candidates(store)
    if idle:
        checks.append(
            {
                "name": "rules: never fired",
                "status": "warn",
                "detail": f"{len(idle)} rule(s) no hook fired in {RETIRE_AFTER_DAYS} days, candidates to retire"
                " (`memory-cli rules disable ID`): "
                + "; ".join(f"{r['id'][:8]} {r['pattern_type']} {r['pattern']!r}" for r in idle[:5]),
            }
        )
    overruns = audit.count_unchecked_overruns(store, days=7)
    if overruns:
        checks.append(
            {
                "name": "rules: budget",
                "status": "warn",
                "detail": f"{overruns} call(s) in the last 7 days left rules unchecked "
                "(`memory-cli audit --action enforce_overrun` for which and why)",
            }
        )
    return checks
