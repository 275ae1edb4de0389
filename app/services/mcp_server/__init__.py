"""The space's MCP server: automations a definition exposes, offered as tools to outside agents."""
