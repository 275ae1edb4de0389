"""MCP servers connected per space: connections, harvests, and their tools as capabilities."""
