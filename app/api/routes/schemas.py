"""Published JSON Schemas of the definition language."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.definitions.export import definition_json_schema
from app.definitions.filter_schema import FILTER_SCHEMA

router = APIRouter(prefix="/schemas", tags=["schemas"])


@router.get("/definition", summary="JSON Schema (draft 2020-12) of an automation definition")
async def definition_schema() -> dict[str, Any]:
    return definition_json_schema()


@router.get("/filter", summary="JSON Schema (draft 2020-12) of the event filter grammar")
async def filter_schema() -> dict[str, Any]:
    return FILTER_SCHEMA
