"""The MCP client side: sessions with one server, its tool listing, tool calls, OAuth."""
