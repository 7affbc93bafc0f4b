"""memory-cli as an MCP server: the agent asks the store mid-session instead of only getting
what the hooks push. A thin shell: every tool calls one domain function."""
