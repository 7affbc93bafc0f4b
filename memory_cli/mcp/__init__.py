"""The MCP server: agent tools over the same domain functions the CLI and hooks use."""
