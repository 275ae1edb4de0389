"""Turning a submitted definition document into a validated one, or a list of located problems."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.definitions.automation import AutomationDefinition
from app.definitions.pointers import locate
from app.errors import ErrorDetail, ValidationFailed

DEFINITION_POINTER = "/definition"


def pydantic_details(exc: ValidationError, document: Any, *, prefix: str = "") -> list[ErrorDetail]:
    """Every pydantic error as a detail whose path is a JSON pointer into `document`."""
    return [
        ErrorDetail(
            path=prefix + locate(error["loc"], document),
            message=error["msg"].removeprefix("Value error, "),
            code=error["type"],
        )
        for error in exc.errors(include_url=False)
    ]


def parse_definition(document: Any, *, prefix: str = DEFINITION_POINTER) -> AutomationDefinition:
    """Validate a definition document; 422 listing every problem (not just the first) otherwise."""
    try:
        return AutomationDefinition.model_validate(document)
    except ValidationError as exc:
        raise ValidationFailed(
            "The definition is not valid.",
            code="invalid_definition",
            details=pydantic_details(exc, document, prefix=prefix),
        ) from None
