"""Knowledge: documents a space's automations search and read (docs/knowledge.md)."""
