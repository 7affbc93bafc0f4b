"""What `doctor` says about team memory: joined or not, the last sync, the last failure."""

from __future__ import annotations


def doctor_checks(store, settings) -> list[dict]:
    from ..store import kvstate
    from . import api

    conninfo = api.joined(store)
    if not conninfo:
        return []
    last = kvstate.get(store, api.KEY_LAST_SYNC)
    err = kvstate.get(store, api.KEY_LAST_ERROR)
    shared, unpushed = api.sync_backlog(store)
    if err:
        return [
            {
                "name": "team",
                "status": "warn",
                "detail": f"last team sync failed at {err['at']}: {err['message']} ({unpushed} of {shared} shared "
                "entries wait for the next sync; the local store works as usual)",
            }
        ]
    when = last["at"] if last else "never"
    return [
        {
            "name": "team",
            "status": "ok",
            "detail": f"joined {conninfo}; last sync {when}; {shared} shared entries, {unpushed} waiting",
        }
    ]
