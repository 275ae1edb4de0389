"""The cost ledger: every LLM call with its tokens and cost, and the totals the caps are checked against."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from app import metrics
from app.persistence.base import utcnow
from app.persistence.models import LlmUsage, Run
from app.persistence.repositories.ledger import LedgerRepository
from app.persistence.types import AsyncSession
from app.registry.llm_ports import LlmReply


@dataclass(frozen=True)
class StepSpend:
    step_id: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


def start_of_day(moment: datetime) -> datetime:
    """Midnight UTC of the moment's day: daily caps reset then."""
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


class LedgerService:
    async def record(self, session: AsyncSession, run: Run, step_id: str, reply: LlmReply) -> None:
        cost = Decimal(str(reply.cost_usd))
        repository = LedgerRepository(session)
        await repository.create(
            LlmUsage(
                id=uuid.uuid4(),
                space_id=run.space_id,
                automation_id=run.automation_id,
                run_id=run.id,
                step_id=step_id,
                model=reply.model,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                cost_usd=cost,
                created_at=utcnow(),
            )
        )
        await repository.add_to_run(run.id, cost, reply.input_tokens + reply.output_tokens)
        metrics.llm_usage(reply.model, float(cost), reply.input_tokens, reply.output_tokens)

    async def record_authoring(
        self, session: AsyncSession, space_id: uuid.UUID, draft_id: str, purpose: str, reply: LlmReply
    ) -> None:
        """One drafting call (generate, review), charged to the space and the draft, not to a run."""
        await LedgerRepository(session).create(
            LlmUsage(
                id=uuid.uuid4(),
                space_id=space_id,
                draft_id=draft_id,
                purpose=purpose,
                model=reply.model,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                cost_usd=Decimal(str(reply.cost_usd)),
                created_at=utcnow(),
            )
        )

    async def authoring_spent_today(self, session: AsyncSession, space_id: uuid.UUID, now: datetime) -> float:
        """The space's drafting spend since midnight UTC, for the daily authoring cap."""
        return float(await LedgerRepository(session).authoring_spent_since(space_id, start_of_day(now)))

    async def run_totals(self, session: AsyncSession, run_id: uuid.UUID) -> tuple[float, int]:
        cost, tokens = await LedgerRepository(session).run_totals(run_id)
        return float(cost), tokens

    async def run_by_step(self, session: AsyncSession, run_id: uuid.UUID) -> list[StepSpend]:
        """What each step of the run spent on models, in the order the steps first called one."""
        rows = await LedgerRepository(session).run_by_step(run_id)
        return [
            StepSpend(step_id, calls, inputs, outputs, float(cost))
            for step_id, calls, inputs, outputs, cost in rows
        ]

    async def spent_today(self, session: AsyncSession, automation_id: uuid.UUID, now: datetime) -> float:
        return float(await LedgerRepository(session).spent_since(automation_id, start_of_day(now)))


ledger_service = LedgerService()
