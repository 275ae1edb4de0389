"""A fire's inputs: the payload's, completed by the schema's defaults (the space's among them), checked.

A required input whose default is `$space_default` and that the space has no value for is named as
such (`space_default_missing`), so the answer says what to set instead of quoting the schema.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from app.definitions.automation import AutomationDefinition
from app.definitions.json_schema import CompiledSchema, ValidationTooCostly, Violation
from app.definitions.pointers import join
from app.engine.inputs import (
    SPACE_DEFAULT_MISSING,
    FireContext,
    resolve_inputs,
    space_default_names,
    unresolved_required,
)
from app.errors import ErrorDetail, ValidationFailed
from app.persistence.repositories.input_defaults import InputDefaultRepository
from app.persistence.types import AsyncSession

if TYPE_CHECKING:
    from app.services.runs.fire_request import FiredAutomation, FireRequest

# Keyword evaluations a fire may spend validating inputs on the event loop (about 20 ms at most,
# ordinary inputs need under a hundred); a check that needs more moves to a thread, so one costly fire
# never stalls the API.
INLINE_VALIDATION_BUDGET = 5_000
MAX_INPUT_PROBLEMS = 50


def _violations_or_refusal(validator: CompiledSchema, inputs: dict[str, Any]) -> list[Violation]:
    try:
        return validator.violations(inputs, limit=MAX_INPUT_PROBLEMS)
    except ValidationTooCostly as exc:
        return [Violation((), str(exc), inputs)]


async def fire_inputs(
    session: AsyncSession,
    definition: AutomationDefinition,
    automation: FiredAutomation,
    request: FireRequest,
    validator: CompiledSchema,
) -> tuple[dict[str, Any], list[ErrorDetail]]:
    """The resolved inputs of a fire and their problems (empty when they are fine)."""
    schema = definition.inputs.schema_
    wanted = space_default_names(schema, request.inputs)
    # One query, and only when an input the fire left out defaults to the space's value.
    space_defaults = (
        await InputDefaultRepository(session).values(automation.space_id, wanted) if wanted else {}
    )
    fire = FireContext(
        last_fired_at=request.last_fired_at,
        creator=str(automation.created_by) if automation.created_by else None,
        space_defaults=space_defaults,
    )
    inputs = resolve_inputs(schema, request.inputs, fire)
    missing = unresolved_required(schema, inputs)
    if missing:
        return inputs, [
            ErrorDetail(
                path=join("inputs", name),
                message=f"no input default {name!r} is set in this space (Settings, Input defaults)",
                code=SPACE_DEFAULT_MISSING,
            )
            for name in missing
        ]
    try:
        found = validator.violations(inputs, limit=MAX_INPUT_PROBLEMS, budget=INLINE_VALIDATION_BUDGET)
    except ValidationTooCostly:
        found = await asyncio.to_thread(_violations_or_refusal, validator, inputs)
    problems = [
        ErrorDetail(path=join("inputs", *violation.path), message=violation.message, code="invalid_input")
        for violation in found
    ]
    return inputs, problems


def inputs_refusal(problems: list[ErrorDetail]) -> ValidationFailed:
    """The 422 a caller hears for bad inputs: `space_default_missing` when that is all that is wrong."""
    if all(problem.code == SPACE_DEFAULT_MISSING for problem in problems):
        return ValidationFailed(
            "A required input takes the space's default, and this space has none set.",
            code=SPACE_DEFAULT_MISSING,
            details=problems,
        )
    return ValidationFailed(
        "The inputs do not match the automation's inputs schema.", code="invalid_inputs", details=problems
    )
