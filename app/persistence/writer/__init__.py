"""The one writer of run plans: a plan becomes the fewest statements that keep its guarantees.

On the claim's autocommit connection a plan the rules expect nothing after (`RunPlan.alone`) is one
statement, durable when it returns, with no BEGIN or COMMIT; when that statement refuses (a consequence
turned out to be due) or the plan says it needs one, the plan is written in a transaction on the same
connection and its consequences (`follow`) run in it. In a caller's transaction (a request, a beat
tick) the plan is one statement in it. The fast path is a branch here, never a second copy of a policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.autocommit import AutocommitWrites
from app.persistence.writer.plans import PlanShape, RunPlan, Written
from app.persistence.writer.statements import RUN_COLUMNS, plan_params, plan_statement, run_of

Follow = Callable[[AsyncSession, Written], Awaitable[None]]
"""What follows a plan that took, on the session that wrote it (in its transaction, if any)."""

__all__ = ["Follow", "PlanShape", "PlanWriter", "RunPlan", "Written", "plan_writer"]


class PlanWriter:
    async def statement(self, session: AsyncSession, plan: RunPlan, *, alone: bool) -> Written | None:
        """The plan as one statement on `session`; None when the run was not in the plan's sources (or
        the claim was lost), and, `alone`, when a consequence needs a transaction (then only the step end
        was written)."""
        row = (
            await session.execute(plan_statement(plan.shape(alone=alone)), plan_params(plan))
        ).one_or_none()
        if row is None:
            return None
        context = len(RUN_COLUMNS)
        return Written(
            run_of(row),
            queued_waiting=bool(row[context]),
            endpoints_listening=bool(row[context + 1]),
            triggers_listening=bool(row[context + 2]),
            alone=alone,
        )

    async def in_transaction(self, session: AsyncSession, plan: RunPlan, follow: Follow) -> Written | None:
        """The plan in the caller's transaction, then its consequences in the same transaction."""
        written = await self.statement(session, plan, alone=False)
        if written is not None:
            await follow(session, written)
        return written

    async def on_claim(self, writes: AutocommitWrites, plan: RunPlan, follow: Follow) -> Written | None:
        """The plan on a claim's connection: alone when it may be, else (or when that refuses) in a
        transaction. Wake-ups the consequences queue go to the caller's job scope either way."""
        if plan.alone:
            async with writes.last_write() as session:
                written = await self.statement(session, plan, alone=True)
                if written is not None:
                    await follow(session, written)
                    return written
            # The refused statement wrote the step end already.
            plan = replace(plan, step_end=None)
        async with writes.transaction() as session:
            return await self.in_transaction(session, plan, follow)


plan_writer = PlanWriter()
