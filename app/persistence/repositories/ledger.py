"""Queries over the LLM cost ledger."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal

from sqlalchemy import func, select, update

from app.persistence.models import LlmUsage, Run
from app.persistence.repositories.base import RepositoryBase


class LedgerRepository(RepositoryBase[LlmUsage]):
    model = LlmUsage

    async def add_to_run(self, run_id: uuid.UUID, cost_usd: Decimal, tokens: int) -> None:
        """Add one call's figures to the run's totals in one atomic update."""
        await self.session.execute(
            update(Run)
            .where(Run.id == run_id)
            .values(cost_usd=Run.cost_usd + cost_usd, llm_tokens=Run.llm_tokens + tokens)
        )

    async def run_totals(self, run_id: uuid.UUID) -> tuple[Decimal, int]:
        """What the run's budget and token cap count: its own calls and its finished children's."""
        statement = select(
            Run.cost_usd + Run.children_cost_usd, Run.llm_tokens + Run.children_llm_tokens
        ).where(Run.id == run_id)
        row = (await self.session.execute(statement)).one()
        return Decimal(row[0]), int(row[1])

    async def run_by_step(self, run_id: uuid.UUID) -> list[tuple[str, int, int, int, Decimal]]:
        """The run's model calls summed per step: (step_id, calls, input tokens, output tokens, cost)."""
        statement = (
            select(
                LlmUsage.step_id,
                func.count(),
                func.sum(LlmUsage.input_tokens),
                func.sum(LlmUsage.output_tokens),
                func.sum(LlmUsage.cost_usd),
            )
            .where(LlmUsage.run_id == run_id)
            .group_by(LlmUsage.step_id)
            .order_by(func.min(LlmUsage.created_at))
        )
        rows = (await self.session.execute(statement)).all()
        return [(str(r[0] or ""), int(r[1]), int(r[2]), int(r[3]), Decimal(r[4])) for r in rows]

    async def spent_since(self, automation_id: uuid.UUID, since: datetime) -> Decimal:
        statement = select(func.coalesce(func.sum(LlmUsage.cost_usd), 0)).where(
            LlmUsage.automation_id == automation_id, LlmUsage.created_at >= since
        )
        return Decimal((await self.session.execute(statement)).scalar_one())

    async def authoring_spent_since(self, space_id: uuid.UUID, since: datetime) -> Decimal:
        """What drafting cost the space since `since` (calls recorded against drafts, not runs)."""
        statement = select(func.coalesce(func.sum(LlmUsage.cost_usd), 0)).where(
            LlmUsage.space_id == space_id, LlmUsage.draft_id.is_not(None), LlmUsage.created_at >= since
        )
        return Decimal((await self.session.execute(statement)).scalar_one())
