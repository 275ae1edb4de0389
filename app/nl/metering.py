"""Authoring's LLM calls: the daily cap checked before each call, each reply charged to space and draft.

The ledger rows are written in a transaction of their own, committed at once: money spent on a model
stays on record even when the request that spent it fails afterwards (Redis down, a 409 on save).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from app.definitions.signals import StepError
from app.errors import AppError
from app.jobs import Job
from app.persistence.base import utcnow
from app.persistence.transaction import transaction
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry.llm_ports import LlmPort, LlmReply
from app.services.governance.ledger import ledger_service


class AuthoringBudgetExceeded(AppError):
    status_code = 429
    code = "authoring_budget_exceeded"
    message = "This space has used today's authoring budget."


class SpendingLedger(Protocol):
    """Where authoring spend is recorded and summed (per space and UTC day)."""

    async def spent_today(self, space_id: uuid.UUID) -> float: ...

    async def record(self, space_id: uuid.UUID, draft_id: str, purpose: str, reply: LlmReply) -> None: ...


class DatabaseLedger:
    """The LLM ledger table, each record committed on its own."""

    def __init__(
        self, sessionmaker: async_sessionmaker[AsyncSession], send_job: Callable[[Job], None]
    ) -> None:
        self.sessionmaker = sessionmaker
        self.send_job = send_job

    async def spent_today(self, space_id: uuid.UUID) -> float:
        async with self.sessionmaker() as session:
            return await ledger_service.authoring_spent_today(session, space_id, utcnow())

    async def record(self, space_id: uuid.UUID, draft_id: str, purpose: str, reply: LlmReply) -> None:
        async with transaction(self.sessionmaker, self.send_job) as session:
            await ledger_service.record_authoring(session, space_id, draft_id, purpose, reply)


@dataclass(frozen=True)
class CallLimits:
    max_tokens: int
    timeout_seconds: float
    daily_cap_usd: float


@dataclass
class MeteredLlm:
    """One draft's view of the model: every call capped, metered, and added to the draft's cost."""

    llm: LlmPort
    ledger: SpendingLedger
    limits: CallLimits
    space_id: uuid.UUID
    draft_id: str
    spent_usd: float = 0.0

    async def complete_json(
        self,
        *,
        model: str,
        purpose: str,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
        tools: list[dict[str, Any]] | None = None,
    ) -> LlmReply:
        """One completion asking for JSON against `schema`; raises AuthoringBudgetExceeded before a call
        that could take the space over its daily cap, StepError when the model cannot be had."""
        await self.check_budget(model, messages)
        reply = await self.llm.complete(
            model=model,
            messages=messages,
            tools=tools,
            response_schema=schema,
            max_tokens=self.limits.max_tokens,
            temperature=0,
            timeout_seconds=self.limits.timeout_seconds,
        )
        self.spent_usd += reply.cost_usd
        await self.ledger.record(self.space_id, self.draft_id, purpose, reply)
        return reply

    async def check_budget(self, model: str, messages: list[dict[str, Any]]) -> None:
        spent = await self.ledger.spent_today(self.space_id)
        try:
            worst = self.llm.worst_case_cost(
                model, self.llm.count_tokens(model, messages), self.limits.max_tokens
            )
        except StepError:
            worst = 0.0  # the call itself refuses an unpriced model, with the reason
        if spent + worst > self.limits.daily_cap_usd:
            raise AuthoringBudgetExceeded(
                f"Authoring in this space has cost ${spent:.4f} today; the next call could exceed"
                f" the daily cap of ${self.limits.daily_cap_usd:.2f} (AUTOMATIONS_AUTHORING_DAILY_CAP_USD)."
                " It resets at midnight UTC."
            )
