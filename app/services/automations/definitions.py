"""Turning a submitted definition document into a validated one, or a list of located problems."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from app.definitions.automation import AutomationDefinition
from app.engine.validation import Problem, Vocabulary, errors, validate_definition, warnings
from app.errors import ErrorDetail, ValidationFailed

DEFINITION_POINTER = "/definition"


@dataclass(frozen=True)
class CheckedDefinition:
    """A definition that passed validation, and the warnings that do not block saving it."""

    definition: AutomationDefinition
    warnings: list[Problem]


async def problems_of(document: Any, vocabulary: Vocabulary | None = None) -> list[Problem]:
    """Every problem of a definition, found on a thread: a large definition (up to the body cap, with
    hundreds of templates, filters and schemas) costs CPU that must not hold up the event loop."""
    return await asyncio.to_thread(validate_definition, document, vocabulary)


async def check_definition(
    document: Any, vocabulary: Vocabulary | None = None, *, prefix: str = DEFINITION_POINTER
) -> CheckedDefinition:
    """Validate a definition; 422 listing every error (not just the first) otherwise."""
    problems = await problems_of(document, vocabulary)
    blocking = errors(problems)
    if blocking:
        raise ValidationFailed(
            "The definition is not valid.",
            code="invalid_definition",
            details=[ErrorDetail(path=prefix + p.path, message=p.message, code=p.code) for p in blocking],
        )
    return CheckedDefinition(AutomationDefinition.model_validate(document), warnings(problems))
