"""The ``openai-compatible`` provider: any server that speaks the OpenAI chat-completions API.

That is what a model kept on the person's own machine speaks (Ollama, llama.cpp's
``llama-server``, LM Studio, vLLM on 127.0.0.1), and many hosted endpoints too, so people who
keep everything local can still have a model read their sessions. ``llm.base_url`` names the
server (``http://127.0.0.1:11434/v1`` for Ollama); the key, when the server wants one, is read
from the environment variable ``llm.api_key_env`` names, never from the config file.

The request is one chat completion: the system text, then the prompt with the tool's schema and
the instruction to answer with its input as one JSON object (as for ``claude-cli``: forcing a
tool call is not supported by every such server), with ``response_format`` asking for JSON.
A server that rejects ``response_format`` (HTTP 400 naming it) is asked again once without it.
A model that answers with a tool call anyway is read from the call's arguments.

The standard library's ``urllib`` sends it: one POST of JSON, nothing the OpenAI SDK would add
for this use, and no new dependency.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request

from memory_cli.llm.answers import MAX_OUTPUT_TOKENS, Answer, LLMError, _json_object, _retry_after, _short

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_local(base_url: str) -> bool:
    """Whether requests to ``base_url`` stay on this machine (a loopback host)."""
    host = (urllib.parse.urlsplit(base_url).hostname or "").lower()
    return host in LOOPBACK or host.startswith("127.")


def check_base_url(base_url: str | None) -> str:
    """``base_url`` without its trailing slash, or LLMError('config') saying what is wrong."""
    if not base_url:
        raise LLMError(
            "config",
            "the openai-compatible provider needs llm.base_url (for example http://127.0.0.1:11434/v1 for Ollama)",
        )
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LLMError("config", f"llm.base_url must be an http(s) URL, not {base_url!r}")
    if parts.scheme == "http" and not is_local(base_url):
        raise LLMError(
            "config",
            f"llm.base_url {base_url!r} is plain http to another host: the transcript would cross the "
            "network unencrypted; use https (or a server on 127.0.0.1)",
        )
    return base_url.rstrip("/")


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, section: dict):
        self.model = section.get("model")
        self.timeout = float(section["timeout_s"])
        self.base_url = section.get("base_url")
        self.key_env = section.get("api_key_env") or "OPENAI_API_KEY"

    def _post(self, body: dict) -> dict:
        url = check_base_url(self.base_url) + "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read(8 * 1024 * 1024)
        except urllib.error.HTTPError as err:
            text = _short(err.read(4096).decode("utf-8", "replace") if err.fp else str(err))
            status = err.code
            if status == 429:
                raise LLMError(
                    "rate_limit", "429 rate limited", retryable=True, retry_after=_retry_after(err)
                ) from None
            if status >= 500:
                raise LLMError(
                    "server", f"{status} server error: {text}", retryable=True, retry_after=_retry_after(err)
                ) from None
            raise LLMError("client", f"{status} {text}") from None
        except TimeoutError:
            raise LLMError("timeout", f"no answer within {self.timeout:g}s", retryable=True) from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise LLMError("timeout", f"no answer within {self.timeout:g}s", retryable=True) from None
            raise LLMError("connection", f"cannot reach {url}: {err.reason}", retryable=True) from None
        except OSError as err:
            raise LLMError("connection", f"cannot reach {url}: {err}", retryable=True) from None
        try:
            data = json.loads(raw)
        except ValueError:
            kind = "an HTML page" if raw.lstrip()[:1] == b"<" else "text that is not JSON"
            raise LLMError("malformed", f"the server answered with {kind}, not a chat completion") from None
        if not isinstance(data, dict):
            raise LLMError("malformed", "the server's answer is not a JSON object")
        return data

    def send(self, system: str, prompt: str, tool: dict) -> Answer:
        from memory_cli.llm.prompts import json_only_instruction

        body = {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt + json_only_instruction(tool)},
            ],
            "temperature": 0,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "response_format": {"type": "json_object"},
        }
        if self.model:
            body["model"] = self.model
        try:
            data = self._post(body)
        except LLMError as err:
            if err.kind != "client" or "response_format" not in str(err):
                raise
            body.pop("response_format")
            data = self._post(body)
        return self._answer(data, tool)

    def _answer(self, data: dict, tool: dict) -> Answer:
        choices = data.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices else None
        if not isinstance(message, dict):
            raise LLMError("malformed", "the answer has no choices[0].message")
        parsed = None
        for call in message.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and fn.get("name") in (None, tool["name"]):
                parsed = _json_object(str(fn.get("arguments") or ""))
                if parsed is not None:
                    break
        if parsed is None:
            parsed = _json_object(str(message.get("content") or ""))
        if parsed is None:
            raise LLMError("malformed", "the model answered without a JSON object")
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        return Answer(
            parsed,
            self.name,
            data.get("model") or self.model,
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
        )
