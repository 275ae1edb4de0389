"""JSON Schema (draft 2020-12) export of the definition models."""

from __future__ import annotations

from functools import cache
from typing import Any

from app.definitions.automation import AutomationDefinition

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


@cache
def definition_json_schema() -> dict[str, Any]:
    """The automation definition's JSON Schema, as served by `GET /api/v1/schemas/definition`."""
    schema = AutomationDefinition.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": DRAFT_2020_12, "$id": "urn:automations:definition:1.0", **schema}
