"""memory-cli: a memory with teeth for Claude Code."""

__version__ = "0.1.0"
