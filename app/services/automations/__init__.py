"""Automations: definitions, their validation and preview, versions, overlap, catalog."""
