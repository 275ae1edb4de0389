"""Implementations of the engine's ports (secrets, artifacts, plugin and MCP capability sources)."""
