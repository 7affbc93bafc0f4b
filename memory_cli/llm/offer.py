"""Offering session memories through a model the person already has, never turning one on
without their yes.

The default reader writes few memories; a model writes many more that are worth keeping, but it
reads the session and spends tokens. So memory-cli offers it, once, with what it costs: at
``install`` on a terminal (a numbered choice, the default being no), and in the first session
afterwards (or the plugin's first session) as one line to the person naming the command that
turns it on. Nothing here changes a setting except :func:`ask_at_terminal` after the person typed
a choice. Standard library only: the SessionStart line is built on the hook path.

The costs are measured (``scripts/bench_session_budget.py``, 107 real sessions of
``tests/fixtures/real``, estimated tokens of the whole request at the default budget).
"""

from __future__ import annotations

import os
import shutil

OFFERED_KEY = "llm.offered"
# Measured: the request memory-cli sends at session end, at llm.max_input_tokens = 16000.
MEDIAN_REQUEST_TOKENS = 14000
LONGEST_REQUEST_TOKENS = 15900
ANSWER_TOKENS = 1500  # what a memories-and-report answer takes, about


def cost_line(budget: int = 16000, cap: int = 150000) -> str:
    return (
        f"one request per session end: about {MEDIAN_REQUEST_TOKENS // 1000}k tokens for a typical "
        f"session, never more than {budget // 1000}k (llm.max_input_tokens), plus about "
        f"{ANSWER_TOKENS // 100 / 10:g}k for the answer; at most {cap // 1000}k tokens a day (llm.daily_token_cap)"
    )


def choices(env: dict | None = None) -> list[dict]:
    """The models this person already has, each with what turning it on means."""
    env = os.environ if env is None else env
    out = []
    if shutil.which("claude", path=env.get("PATH")):
        out.append(
            {
                "provider": "claude-cli",
                "what": "your own Claude Code (`claude -p`, your login and plan; no API key)",
                "settings": {"llm.provider": "claude-cli"},
            }
        )
    if env.get("ANTHROPIC_API_KEY"):
        out.append(
            {
                "provider": "anthropic",
                "what": "the Anthropic API with your ANTHROPIC_API_KEY (billed per token; needs memory-cli[llm])",
                "settings": {"llm.provider": "anthropic"},
            }
        )
    out.append(
        {
            "provider": "openai-compatible",
            "what": "a model on this machine (Ollama at http://127.0.0.1:11434/v1; nothing leaves the machine)",
            "settings": {"llm.provider": "openai-compatible", "llm.base_url": "http://127.0.0.1:11434/v1"},
        }
    )
    return out


def session_start_line(settings) -> str:
    """The one line the first session shows the person while no model writes memories."""
    from memory_cli.settings import value

    return (
        "memory-cli: session memories are written by the local reader, which keeps few. Your own "
        "Claude Code can write them at session end instead ("
        + cost_line(int(value(settings, "llm.max_input_tokens")), int(value(settings, "llm.daily_token_cap")))
        + "): `memory-cli config set llm.provider claude-cli`. Nothing is sent until you run it; this is shown once."
    )


def after_provider_set(provider: str) -> list[str]:
    """What `config set llm.provider X` tells the person."""
    if provider == "none":
        return ["session memories: the local reader writes them; nothing is sent to a model."]
    return [
        f"session memories: written by {provider}, {cost_line()}.",
        "turn it off with `memory-cli config set llm.provider none`; see what it spent with `memory-cli stats`.",
    ]


def ask_at_terminal(read=input, write=print, env: dict | None = None) -> dict | None:
    """Offer the models at a terminal; set the one the person picks. Returns the chosen choice,
    or None (no, an empty answer, end of input)."""
    from memory_cli import config_edit

    options = choices(env)
    write("")
    write("Session memories: at the end of each session memory-cli can ask a model what is worth keeping.")
    write(f"Cost: {cost_line()}.")
    for n, c in enumerate(options, 1):
        write(f"  {n}. {c['what']}")
    write("  n. no, keep the local reader (nothing leaves this machine) [default]")
    try:
        answer = read(f"Use a model for session memories? [1-{len(options)}/N] ").strip().lower()
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if not answer.isdigit() or not 1 <= int(answer) <= len(options):
        write("session memories: the local reader (change with `memory-cli config set llm.provider ...`).")
        return None
    chosen = options[int(answer) - 1]
    for key, val in chosen["settings"].items():
        config_edit.set_value(key, val)
    for line in after_provider_set(chosen["provider"]):
        write(line)
    return chosen


def offer_at_install() -> dict | None:
    """``install``'s offer: only with a person at a terminal (stdin and stdout both terminals)
    and while no model is configured; a script or a pipe is never asked and nothing changes."""
    import sys

    try:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        interactive = False
    if not interactive:
        return None
    from memory_cli import settings as settings_mod

    if settings_mod.value(settings_mod.load(), "llm.provider") != "none":
        return None
    return ask_at_terminal()
