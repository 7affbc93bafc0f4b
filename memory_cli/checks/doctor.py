"""`doctor`: the Stop checks: paused or on, drift in the settings that hold the judges, and
where judged lessons stay advice (a project with no known checkout; Codex CLI and Gemini CLI
with no session provider on)."""

from __future__ import annotations


def doctor_checks(store, settings) -> list[dict]:
    from . import claude_settings, forms

    try:
        lessons = forms.in_force(store, form="stop-check")
    except Exception as err:  # noqa: BLE001 - a store older than the table: nothing to say
        return [{"name": "stop checks", "status": "ok", "detail": f"none ({err})"}]
    if not lessons:
        return [
            {
                "name": "stop checks",
                "status": "ok",
                "detail": "no approved lesson is a Stop check (`memory-cli review --approve ID --form stop-check`)",
            }
        ]
    judged = [r for r in lessons if r["check_kind"] == "judge"]
    out = [
        {
            "name": "stop checks",
            "status": "warn" if forms.paused(store) else "ok",
            "detail": (
                f"{len(lessons)} lesson(s): {len(lessons) - len(judged)} checked by memory-cli over the turn's calls, "
                f"{len(judged)} judged by a model"
                + ("; PAUSED (`memory-cli checks resume`)" if forms.paused(store) else "")
            ),
        }
    ]
    for problem in claude_settings.drift(store):
        out.append({"name": "stop checks (settings)", "status": "warn", "detail": problem})
    homeless = [r for r in judged if r["scope"] != "global" and not forms.root_of(r)]
    if homeless:
        out.append(
            {
                "name": "stop checks (projects)",
                "status": "warn",
                "detail": f"{len(homeless)} project lesson(s) approved outside their checkout stay advice; "
                "run `memory-cli lessons form ID stop-check` inside the project",
            }
        )
    provider = None
    try:
        from ..llm import config as llm_config

        provider = llm_config.llm_section(settings).get("provider")
    except Exception:  # noqa: BLE001 - an unreadable llm section: treated as none
        provider = None
    if judged and (not provider or provider == "none"):
        out.append(
            {
                "name": "stop checks (codex, gemini)",
                "status": "ok",
                "detail": f"{len(judged)} judged lesson(s) are advice only in Codex CLI and Gemini CLI: no session "
                "provider is on (`llm.provider`); their deterministic checks still run",
            }
        )
    return out
