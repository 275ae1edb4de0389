"""A child run's model spend counts against its parent's budget, and a space's totals count it once."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from app.persistence.models import Run
from app.persistence.repositories.ledger import LedgerRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.transaction import transaction
from tests.api.test_run_stats import _runs, _set
from tests.support.factories import Factory


async def test_a_finished_childs_spend_is_its_parents_budget_and_counted_once(
    app: Any, factory: Factory
) -> None:
    alice = await factory.owner()
    parent_id, child_id, grandchild_id = await _runs(alice, (await alice.create_automation())["id"], 3)
    # Written as finished at once: a worker of the session that took one of these runs (beat's recovery
    # wakes pending runs) would add a child's spend to its parent a second time when it ends.
    scene = (
        (parent_id, "0.1", 10, None, 0),
        (child_id, "0.25", 100, parent_id, 1),
        (grandchild_id, "0.05", 5, child_id, 2),
    )
    for run_id, cost, tokens, parent, depth in scene:
        await _set(
            app,
            run_id,
            status="succeeded",
            finished_at=datetime.now(UTC),
            cost_usd=Decimal(cost),
            llm_tokens=tokens,
            parent_run_id=uuid.UUID(parent) if parent else None,
            depth=depth,
        )

    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        runs = RunRepository(session)
        grandchild = await session.get(Run, uuid.UUID(grandchild_id))
        assert grandchild is not None
        await runs.add_child_spend(uuid.UUID(child_id), grandchild)
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        child = await session.get(Run, uuid.UUID(child_id))
        assert child is not None
        await RunRepository(session).add_child_spend(uuid.UUID(parent_id), child)

    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        assert await LedgerRepository(session).run_totals(uuid.UUID(parent_id)) == (Decimal("0.4"), 115)
        assert await RunRepository(session).spend_of(uuid.UUID(child_id)) == (Decimal("0.3"), 105)

    parent = (await alice.request("GET", alice.space_path(f"/runs/{parent_id}"))).json()
    assert parent["cost_usd"] == 0.1, "its own calls only"
    assert parent["children_cost_usd"] == 0.3
    stats = (await alice.request("GET", alice.space_path("/automations/stats"), params={"days": 1})).json()
    assert stats["totals"]["cost_usd"] == 0.4, "each call counted once across the space"
