"""Checks for ``memory-cli doctor``: can the configured provider run, is the daily cap being hit,
are transcripts waiting, is any scope over its limit."""

from __future__ import annotations

import os
import shutil


def doctor_checks(store, settings) -> list[dict]:
    from memory_cli.llm import config as llm_config
    from memory_cli.llm import providers
    from memory_cli.llm.compact import scopes_over_limit
    from memory_cli.llm.queue import PENDING_KEY
    from memory_cli.store import kvstate

    section = llm_config.llm_section(settings)
    name = section.get("provider") or "none"
    checks = []
    if name == "none":
        checks.append(
            {
                "name": "session memories",
                "status": "ok",
                "detail": "provider none (the default, never changed without your yes): the local extractive "
                "reader writes them and nothing is sent; `memory-cli config set llm.provider claude-cli` "
                "lets your own Claude Code write them",
            }
        )
    elif name == "anthropic":
        problems = []
        try:
            import anthropic  # noqa: F401
        except ImportError:
            problems.append("the anthropic SDK is not installed (pip install 'memory-cli[llm]')")
        if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
            problems.append("ANTHROPIC_API_KEY is not set in this environment")
        checks.append(
            {
                "name": "session memories",
                "status": "warn" if problems else "ok",
                "detail": "; ".join(problems) + "; the extractive reader is used instead"
                if problems
                else f"provider anthropic ({section.get('model') or providers.DEFAULT_ANTHROPIC_MODEL})",
            }
        )
    elif name == "openai-compatible":
        from memory_cli.llm.openai_compat import check_base_url, is_local

        try:
            url = check_base_url(section.get("base_url"))
        except providers.LLMError as err:
            checks.append(
                {
                    "name": "session memories",
                    "status": "warn",
                    "detail": f"{err}; the extractive reader is used instead",
                }
            )
        else:
            where = (
                "this machine" if is_local(url) else f"{url.split('/')[2]} (transcripts, redacted, leave this machine)"
            )
            checks.append(
                {
                    "name": "session memories",
                    "status": "ok",
                    "detail": f"provider openai-compatible ({section.get('model') or 'the server default model'} at {url}; {where})",
                }
            )
    else:
        exe = shutil.which(os.path.expanduser(section.get("claude_command") or "claude"))
        checks.append(
            {
                "name": "session memories",
                "status": "ok" if exe else "warn",
                "detail": f"provider claude-cli ({exe})"
                if exe
                else f"{section.get('claude_command')!r} is not on PATH (llm.claude_command); "
                "the extractive reader is used instead",
            }
        )
    if name != "none":
        used, cap = providers.calls_today(store), int(section["max_calls_per_day"])
        checks.append(
            {
                "name": "LLM calls today",
                "status": "warn" if used >= cap else "ok",
                "detail": f"{used} of {cap}"
                + (" (cap reached: local fallbacks until tomorrow, UTC)" if used >= cap else ""),
            }
        )
    if name != "none":
        from memory_cli.llm import spend

        used_tokens, token_cap = spend.tokens_today(store), int(section["daily_token_cap"])
        checks.append(
            {
                "name": "model tokens today",
                "status": "warn" if used_tokens >= token_cap else "ok",
                "detail": f"{used_tokens} of {token_cap} (llm.daily_token_cap)"
                + (" (cap reached: the local reader until tomorrow, UTC)" if used_tokens >= token_cap else ""),
            }
        )
    last = last_reader(store)
    if last:
        checks.append({"name": "last session end", "status": "ok", "detail": last})
    pending = kvstate.with_prefix(store, PENDING_KEY)
    if len(pending) > 5:
        checks.append(
            {
                "name": "queued transcripts",
                "status": "warn",
                "detail": f"{len(pending)} transcripts wait for the session-end job "
                "(see `memory-cli maintenance status`)",
            }
        )
    over = scopes_over_limit(store, settings)
    if over:
        checks.append(
            {
                "name": "per-scope limit",
                "status": "warn",
                "detail": f"{', '.join(over[:5])} over limits.per_scope; `memory-cli compact` fixes it",
            }
        )
    return checks


def last_reader(store) -> str | None:
    """Who wrote the last session's memories, and why when it was not the configured model."""
    from memory_cli import audit

    for row in audit.query(store, action="summarize", limit=20):
        d = row.get("details")
        if isinstance(d, dict) and d.get("provider"):
            why = f" because {d['fallback']}" if d.get("fallback") else ""
            return f"{str(row['timestamp'])[:16]}: written by {d['provider']}{why} ({row['result']})"
    return None
