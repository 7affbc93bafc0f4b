"""The last lines of ``install``: what is now installed, whether the embedding model is ready,
and what to do next, so the person is not left on the model's progress line."""

from __future__ import annotations

AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI"}
SESSION = {"claude": "claude", "codex": "codex", "gemini": "gemini"}


def lines(agent: str, scope: str, mcp: bool, model_ready: bool, no_model: bool) -> list[str]:
    name = AGENT_NAMES.get(agent, agent)
    parts = "hooks and MCP server" if mcp else "hooks (no MCP server)"
    if model_ready:
        model = "embedding model ready (search by meaning)"
    elif no_model:
        model = "embedding model not installed (--no-model): search works by keywords"
    else:
        model = "embedding model not installed: search works by keywords; `memory-cli install` again retries it"
    return [
        f"memory-cli is installed for {name} ({parts}, {scope} scope); {model}",
        f"next: `memory-cli doctor` checks everything, then start a {name} session (`{SESSION.get(agent, agent)}`)",
    ]


def say(agent: str, scope: str, mcp: bool, model_ready: bool | None, no_model: bool) -> None:
    """Print the verdict; ``model_ready`` None: not tried in this command (looked up now)."""
    if model_ready is None:
        from ..embeddings import packaged

        model_ready = packaged.installed()
    for line in lines(agent, scope, mcp, model_ready, no_model):
        print(line)
