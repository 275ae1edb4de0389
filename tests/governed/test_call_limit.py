"""The per-run call limit, counted by the claim that holds the run; a later claim starts from the calls
the run recorded in the last minute (real PostgreSQL)."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.base import utcnow
from app.persistence.models import ActionInvocation, Run
from app.worker.ports import ClaimCallLimiter
from tests.support.factories import Factory
from tests.support.runs import stored_run


def _writes(app: Any) -> Any:
    def write() -> AbstractAsyncContextManager[AsyncSession]:
        return app.state.sessionmaker.begin()

    return write


def _call(
    run: Run, index: int, *, status: str = "executed", denied: str | None = None, ago: float = 5
) -> ActionInvocation:
    return ActionInvocation(
        id=uuid.uuid4(),
        space_id=run.space_id,
        automation_id=run.automation_id,
        run_id=run.id,
        step_id="call",
        call_key=f"{run.id}/call/1/{index}",
        capability="http.request",
        tier="native",
        risk="write",
        chosen_by="definition",
        mode="allow",
        mode_source="default",
        status=status,
        denied_reason=denied,
        created_at=utcnow() - timedelta(seconds=ago),
    )


async def test_calls_past_the_limit_are_refused_until_the_window_moves(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    run = await stored_run(app, owner, await owner.create_automation(), status="running", attempt=1)
    limiter = ClaimCallLimiter(3, run, _writes(app), window_seconds=0.5)
    assert [await limiter.allow() for _ in range(4)] == [True, True, True, False]
    await asyncio.sleep(0.6)
    assert await limiter.allow() is True


async def test_a_later_claim_counts_the_calls_the_run_made_in_the_window(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    run = await stored_run(app, owner, await owner.create_automation(), status="running", attempt=2)
    async with app.state.sessionmaker.begin() as session:
        session.add_all(
            [
                _call(run, 0),
                _call(run, 1, status="failed"),
                # Not counted: refused before the limit counts a call, or by the limit itself, or too old.
                _call(run, 2, status="denied", denied="policy"),
                _call(run, 3, status="denied", denied="rate_limit"),
                _call(run, 4, ago=120),
            ]
        )
    limiter = ClaimCallLimiter(3, run, _writes(app))
    assert [await limiter.allow() for _ in range(2)] == [True, False]

    first_claim = ClaimCallLimiter(3, Run(id=run.id, attempt=1), _writes(app))
    assert [await first_claim.allow() for _ in range(4)] == [True, True, True, False], (
        "a first claim has no earlier calls to read"
    )
