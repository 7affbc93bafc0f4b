"""The tools the MCP server offers, by name: what ``doctor`` checks the running server's answer
against, without importing the MCP SDK or the server.
"""

TOOLS = (
    "query_memory",
    "remember",
    "record_correction",
    "record_incident",
    "search_incidents",
    "resolve_incident",
    "save_report",
    "get_previous_report",
    "record_metric",
    "check_baseline",
)
