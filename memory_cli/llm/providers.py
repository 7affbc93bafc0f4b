"""The LLM providers and the one door every request goes through (:func:`ask`).

:func:`ask` is where the promises are kept, whatever the provider:

* the request text is redacted (``memory_cli.privacy.redact.redact``) right before it is sent, even
  though its parts were redacted when they were built;
* each attempt first checks today's tokens against ``llm.daily_token_cap`` (:mod:`.spend`)
  and takes a slot of ``llm.max_calls_per_day`` in the store (one transaction, so concurrent
  jobs cannot overshoot the cap); retries count, and the tokens an answer cost are added;
* timeouts, 429 and 5xx answers are retried ``llm.retries`` times with exponential backoff;
  anything else fails at once;
* every attempt is audited (``llm_call``) with its provider, model, purpose, outcome, token
  counts and duration.

Providers: ``anthropic`` uses the official SDK (imported here only, when a request is made;
``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY`` are read by the SDK as usual); ``claude-cli``
runs the person's own ``claude -p`` with no tools and no MCP servers, outside any project
directory and with ``MEMORY_CLI_DB=""`` so memory-cli's own hooks in that session do nothing;
``openai-compatible`` (:mod:`memory_cli.llm.openai_compat`) posts to any chat-completions server,
a local one (Ollama, llama.cpp) or a hosted one, at ``llm.base_url``.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime, timezone

from memory_cli import audit
from memory_cli.llm import config as llm_config
from memory_cli.llm.answers import MAX_OUTPUT_TOKENS, Answer, LLMError, _json_object, _retry_after, _short

__all__ = ["Answer", "LLMError", "ask", "provider_for", "calls_today", "take_call_slot"]

DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
CALLS_KEY = "llm.calls:"
# What one answer is expected to cost, counted against the daily token cap before it is sent.
ANSWER_TOKENS_EXPECTED = 1500


# ------------------------------------------------------------------------------ daily cap
def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def calls_today(store) -> int:
    from memory_cli.store import kvstate

    return int(kvstate.get(store, CALLS_KEY + _today(), 0) or 0)


def take_call_slot(store, cap: int) -> int:
    """Count one request against today's cap; raises LLMError('cap') when it is used up."""
    from memory_cli.store import kvstate

    key = CALLS_KEY + _today()
    with store.transaction():
        used = int(kvstate.get(store, key, 0) or 0)
        if used >= cap:
            raise LLMError("cap", f"the daily cap of {cap} LLM calls is reached")
        kvstate.put(store, key, used + 1)
        kvstate.delete_prefix(store, CALLS_KEY, keep=key)
    return used + 1


# ------------------------------------------------------------------------------ providers
class AnthropicProvider:
    name = "anthropic"

    def __init__(self, section: dict):
        self.model = section.get("model") or DEFAULT_ANTHROPIC_MODEL
        self.timeout = float(section["timeout_s"])

    def send(self, system: str, prompt: str, tool: dict) -> Answer:
        try:
            import anthropic
        except ImportError:
            raise LLMError("config", "the anthropic provider needs the SDK: pip install 'memory-cli[llm]'") from None
        if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
            raise LLMError("config", "the anthropic provider needs ANTHROPIC_API_KEY in the environment")
        client = anthropic.Anthropic(timeout=self.timeout, max_retries=0)
        try:
            msg = client.messages.create(
                model=self.model,
                max_tokens=MAX_OUTPUT_TOKENS,
                system=system,
                messages=[{"role": "user", "content": prompt}],
                tools=[tool],
                tool_choice={"type": "tool", "name": tool["name"]},
            )
        except anthropic.APITimeoutError as err:
            raise LLMError("timeout", f"no answer within {self.timeout:g}s", retryable=True) from err
        except anthropic.APIConnectionError as err:
            raise LLMError("connection", f"cannot reach the API: {err}", retryable=True) from err
        except anthropic.APIStatusError as err:
            status = err.status_code
            retry_after = _retry_after(getattr(err, "response", None))
            if status == 429:
                raise LLMError("rate_limit", "429 rate limited", retryable=True, retry_after=retry_after) from err
            if status >= 500:
                raise LLMError("server", f"{status} server error", retryable=True, retry_after=retry_after) from err
            raise LLMError("client", f"{status} {_short(str(err))}") from err
        except anthropic.APIError as err:  # an answer the SDK cannot read as a message
            raise LLMError("malformed", f"the API's answer is not a message: {_short(str(err))}") from err
        content = getattr(msg, "content", None)
        if not isinstance(content, list):  # e.g. a 200 HTML page from a proxy or captive portal
            kind = "an HTML page" if str(msg).lstrip()[:1] == "<" else f"a {type(msg).__name__}"
            raise LLMError("malformed", f"the API answered with {kind}, not a message")
        usage = getattr(msg, "usage", None)
        for block in content:
            if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == tool["name"]:
                if not isinstance(block.input, dict):
                    raise LLMError("malformed", "the tool input is not an object")
                return Answer(
                    block.input,
                    self.name,
                    getattr(msg, "model", None) or self.model,
                    getattr(usage, "input_tokens", None),
                    getattr(usage, "output_tokens", None),
                )
        raise LLMError("malformed", f"the answer has no {tool['name']} tool call")


class ClaudeCliProvider:
    name = "claude-cli"

    def __init__(self, section: dict):
        self.model = section.get("model")
        self.timeout = float(section["timeout_s"])
        self.command = section.get("claude_command") or "claude"

    def send(self, system: str, prompt: str, tool: dict) -> Answer:
        import shutil
        import subprocess
        import tempfile

        from memory_cli.llm.prompts import json_only_instruction

        exe = shutil.which(os.path.expanduser(self.command))
        if not exe:
            raise LLMError("config", f"claude-cli provider: {self.command!r} is not on PATH (llm.claude_command)")
        # No tools, no MCP servers (memory-cli's own would be one), no skills, no saved session:
        # the inner session can only answer. Hooks still load; MEMORY_CLI_DB="" silences ours.
        args = [
            exe,
            "-p",
            "--output-format",
            "json",
            "--tools",
            "",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--no-session-persistence",
            "--system-prompt",
            system,
        ]
        if self.model:
            args += ["--model", self.model]
        env = dict(os.environ)
        env["MEMORY_CLI_DB"] = ""  # memory-cli's hooks in that session become silent no-ops
        env.pop("CLAUDE_PROJECT_DIR", None)
        with tempfile.TemporaryDirectory(prefix="memory-cli-llm-") as cwd:
            try:
                proc = subprocess.run(
                    args,
                    input=prompt + json_only_instruction(tool),
                    capture_output=True,
                    text=True,
                    timeout=self.timeout,
                    env=env,
                    cwd=cwd,
                )
            except subprocess.TimeoutExpired:
                raise LLMError(
                    "timeout", f"claude -p gave no answer within {self.timeout:g}s", retryable=True
                ) from None
            except OSError as err:
                raise LLMError("config", f"cannot run {exe}: {err}") from None
        try:
            out = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else None
        except (ValueError, IndexError):
            out = None
        if not isinstance(out, dict):
            raise LLMError(
                "server" if proc.returncode else "malformed",
                f"claude -p exited {proc.returncode}: {_short(proc.stderr or proc.stdout)}",
                retryable=bool(proc.returncode),
            )
        if out.get("is_error") or proc.returncode:
            status = out.get("api_error_status")
            text = _short(str(out.get("result") or proc.stderr))
            if status == 429 or "429" in text or "rate limit" in text.lower():
                raise LLMError("rate_limit", f"claude -p: {text}", retryable=True)
            if (isinstance(status, int) and status >= 500) or re.search(r"\b5\d\d\b", text):
                raise LLMError("server", f"claude -p: {text}", retryable=True)
            raise LLMError("client", f"claude -p failed: {text}")
        usage = out.get("usage") if isinstance(out.get("usage"), dict) else {}
        data = _json_object(str(out.get("result") or ""))
        if data is None:
            raise LLMError("malformed", "claude -p answered without a JSON object")
        return Answer(data, self.name, self.model, usage.get("input_tokens"), usage.get("output_tokens"))


def provider_for(settings):
    """The configured provider object, or None for ``none``."""
    section = llm_config.llm_section(settings)
    name = section.get("provider") or "none"
    if name == "anthropic":
        return AnthropicProvider(section)
    if name == "claude-cli":
        return ClaudeCliProvider(section)
    if name == "openai-compatible":
        from memory_cli.llm.openai_compat import OpenAICompatibleProvider

        return OpenAICompatibleProvider(section)
    return None


def ask(
    store,
    settings,
    provider,
    *,
    purpose: str,
    system: str,
    prompt: str,
    tool: dict,
    session_id: str | None = None,
    scope: str | None = None,
) -> Answer:
    """Send one request (with retries) and return the tool input. Raises LLMError."""
    from memory_cli.privacy.redact import redact

    section = llm_config.llm_section(settings)
    system, _ = redact(system)
    prompt, kinds = redact(prompt)
    retries = int(section["retries"])
    cap = int(section["max_calls_per_day"])
    from memory_cli.llm import spend
    from memory_cli.llm.condense import estimate_tokens
    from memory_cli.llm.prompts import json_only_instruction

    estimate = estimate_tokens(system) + estimate_tokens(prompt) + estimate_tokens(json_only_instruction(tool))
    attempt = 0
    while True:
        attempt += 1
        spend.check(store, int(section["daily_token_cap"]), estimate + ANSWER_TOKENS_EXPECTED)
        take_call_slot(store, cap)
        started = time.monotonic()
        details = {
            "provider": provider.name,
            "model": provider.model,
            "purpose": purpose,
            "attempt": attempt,
            "request_chars": len(system) + len(prompt),
            "estimated_tokens": estimate,
            "redacted": len(kinds),
            "scope": scope,
        }
        try:
            answer = provider.send(system, prompt, tool)
        except LLMError as err:
            details.update(error=str(err), kind=err.kind, elapsed_ms=round((time.monotonic() - started) * 1000))
            with store.transaction():
                audit.record(
                    store,
                    "llm_call",
                    context=purpose,
                    result=f"failed: {err.kind}",
                    details=details,
                    session_id=session_id,
                )
            if not err.retryable or attempt > retries:
                raise
            backoff = BACKOFF_S * 2 ** (attempt - 1)
            delay = min(MAX_BACKOFF_S, err.retry_after if err.retry_after is not None else backoff)
            time.sleep(max(0.0, delay))
            continue
        details.update(
            model=answer.model,
            input_tokens=answer.input_tokens,
            output_tokens=answer.output_tokens,
            elapsed_ms=round((time.monotonic() - started) * 1000),
        )
        spend.spend(store, (answer.input_tokens or estimate) + (answer.output_tokens or 0))
        with store.transaction():
            audit.record(store, "llm_call", context=purpose, result="ok", details=details, session_id=session_id)
        return answer
