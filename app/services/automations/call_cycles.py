"""Refusing, at save, a definition whose `call_automation` steps would make its automation call itself
(directly or through others of the space): 422 `automation_cycle` with a pointer to the step."""

from __future__ import annotations

import uuid
from typing import Any

from app.engine.call_graph import call_graph_problems, calls
from app.errors import ErrorDetail, ValidationFailed
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.types import AsyncSession
from app.services.automations.definitions import DEFINITION_POINTER


async def refuse_call_cycles(
    session: AsyncSession, space_id: uuid.UUID, automation_id: uuid.UUID, document: Any
) -> None:
    """Raise `ValidationFailed` (`automation_cycle`) when saving `document` as `automation_id` would close
    a cycle of calls; a definition that calls nothing costs no query."""
    if next(calls(document), None) is None:
        return
    others = await AutomationRepository(session).calling_definitions(space_id, but=automation_id)
    problems = call_graph_problems(str(automation_id), document, others)
    if problems:
        raise ValidationFailed(
            "The definition's calls make a cycle of automations.",
            code="automation_cycle",
            details=[
                ErrorDetail(path=DEFINITION_POINTER + p.path, message=p.message, code=p.code)
                for p in problems
            ],
        )
