"""The outside world: egress-guarded HTTP, and later LLM providers, MCP, SMTP, Slack."""
