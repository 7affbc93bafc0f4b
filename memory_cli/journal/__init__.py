"""What an agent journals beside its memories: incidents, session reports and metric samples.

This package holds only their shared schema and field helpers; each store lives in its own
package (incidents/, reports/, baselines/) with no knowledge of MCP, HTTP or Claude Code.
"""
