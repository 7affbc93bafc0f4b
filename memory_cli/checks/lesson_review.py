"""What the review's decisions mean for a lesson's form and the settings that enforce it.

:mod:`memory_cli.review` calls these and nothing else of this package (the CLI's ``lessons
form`` calls ``apply``): ``settle`` inside the
approval's transaction, ``dropped`` inside the rejection's, and ``synced`` after either has
committed, so the settings files follow only what the store holds.
"""

from __future__ import annotations

from .forms import check_form

__all__ = ["apply", "check_form", "dropped", "settle", "synced"]


def settle(store, view: dict, form: str | None) -> dict | None:
    """The approved lesson's form (None when the approval made no entry)."""

    eid = view.get("promoted_entry_id")
    if not eid or not store.value("SELECT 1 FROM memory_entries WHERE id = ?", (eid,)):
        return None
    return apply(store, eid, form)


def apply(store, entry_id: str, form: str | None) -> dict:
    """Give the lesson its form and switch its rule on or off to match, through the rules' one
    door (a lesson enforced as a reminder, a Stop check or advice keeps its rule, switched off)."""
    from ..rules import api as rules_api
    from . import forms

    out = forms.settle(store, entry_id, form)
    if out.get("rule_enabled") is not None:
        rules_api.write_rule(store, entry_id, {"enabled": out["rule_enabled"]})
    return out


def dropped(store, entry_id: str | None) -> None:
    from . import forms

    forms.drop(store, entry_id)
    return None


def synced(store, view: dict) -> dict:
    """Bring the Stop checks in the settings files in step; a file that cannot be written is
    said as a warning (the decision is stored; ``memory-cli checks sync`` retries)."""
    from . import claude_settings

    try:
        view["checks_sync"] = [
            {k: r[k] for k in ("path", "action", "backup")} for r in claude_settings.sync(store) if r["changed"]
        ]
    except Exception as err:  # noqa: BLE001 - the review's decision is already committed
        store.warn(f"Stop checks not written to the settings: {err}; `memory-cli checks sync` retries")
    return view
