"""Automation versions parsed and their inputs schemas compiled once per (automation, version).

A version is immutable (every edit makes a new one), so a cached entry never goes stale.
"""

from __future__ import annotations

import uuid
from typing import Any

from app.definitions.automation import AutomationDefinition
from app.definitions.json_schema import CompiledSchema, compiled_schema
from app.lru import LruCache

PARSED_CACHE_SIZE = 2048
_PARSED: LruCache[tuple[uuid.UUID, int], AutomationDefinition] = LruCache(PARSED_CACHE_SIZE)
_VALIDATORS: LruCache[tuple[uuid.UUID, int], CompiledSchema] = LruCache(PARSED_CACHE_SIZE)


def parsed_definition(
    automation_id: uuid.UUID, version: int, document: dict[str, Any]
) -> AutomationDefinition:
    """An automation version's definition as a model, parsed once per (automation, version).

    Fires pass the automation's current version; a claim passes its run's snapshot, which is that same
    version's document, so both share one entry.
    """
    return _PARSED.get_or_build(
        (automation_id, version), lambda: AutomationDefinition.model_validate(document)
    )


def inputs_validator(
    automation_id: uuid.UUID, version: int, definition: AutomationDefinition
) -> CompiledSchema:
    """The inputs schema of an automation version, compiled once like its parsed definition."""
    return _VALIDATORS.get_or_build(
        (automation_id, version), lambda: compiled_schema(definition.inputs.schema_)
    )
