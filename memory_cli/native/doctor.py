"""`doctor`: does each native rule copy still hold what the store says?"""

from __future__ import annotations


def doctor_checks(store, settings) -> list[dict]:
    from . import sync

    agents = sync.written_agents(store)
    if not agents:
        return [
            {
                "name": "native rules",
                "status": "ok",
                "detail": "none written (the hooks enforce every rule; `memory-cli rules export --to AGENT --write` adds "
                "a copy in the agent's own rule format)",
            }
        ]
    out = []
    drifted = dict(sync.drift_report(store))
    for agent in agents:
        problem = drifted.get(agent)
        out.append(
            {
                "name": f"native rules ({agent})",
                "status": "warn" if problem else "ok",
                "detail": problem or f"{sync.FORMATS[agent].path()} matches the store",
            }
        )
    return out
