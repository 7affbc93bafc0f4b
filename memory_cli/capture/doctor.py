"""`memory-cli doctor` checks for capture: things a person should act on, not internals."""

from __future__ import annotations

from .. import audit


def doctor_checks(store, settings) -> list[dict]:
    checks = []
    from ..settings import value as setting

    try:
        enabled = setting(settings, "capture.enabled") is not False
    except Exception:
        enabled = True
    checks.append(
        {
            "name": "capture: correction capture",
            "status": "ok" if enabled else "warn",
            "detail": "on" if enabled else "off (capture.enabled = false): corrections and markers are ignored",
        }
    )
    checks.append(_pattern_cache_check())
    if not store.table_exists("corrections"):
        return checks
    from .corrections import waiting_counts

    proposals, pending = waiting_counts(store)
    checks.append(
        {
            "name": "capture: review queue",
            "status": "warn" if proposals else "ok",
            "detail": (
                f"{proposals} proposed rule(s) and {pending} correction(s) wait for `memory-cli review`"
                if proposals or pending
                else "nothing waiting"
            ),
        }
    )
    rejected = audit.count_recent(store, "marker", result="rejected", days=7)
    checks.append(
        {
            "name": "capture: memory markers",
            "status": "warn" if rejected else "ok",
            "detail": (
                f"{rejected} marker(s) with an unknown category or bad format in the last 7 days "
                "(`memory-cli audit --action marker`)"
                if rejected
                else "no rejected markers"
            ),
        }
    )
    return checks


def _pattern_cache_check() -> dict:
    from ..files.regex_cache import status

    st = status()
    check = {"name": "capture: compiled patterns", "status": "ok"}
    if not st["writable"]:
        check["status"] = "warn"
        check["detail"] = (
            f"{st['path']} cannot be written: every prompt compiles its capture patterns again "
            "(10-40 ms); make the folder writable"
        )
    elif not st["patterns"]:
        check["detail"] = "none kept yet: the first prompts compile them (`memory-cli install` does it at once)"
    else:
        check["detail"] = f"{st['patterns']} patterns kept in {st['path']}"
    return check
