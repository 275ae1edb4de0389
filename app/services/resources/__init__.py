"""What a space holds: secrets and the vault, kv, notifications, artifacts, databases, plugins."""
