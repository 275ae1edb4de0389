"""Pure data: pydantic models of definitions and their JSON Schema export."""
