"""The runs table stores every state of the machine and refuses anything else."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import text, update
from sqlalchemy.exc import IntegrityError

from app.definitions.run_states import RunStatus
from app.persistence.models import Run
from tests.support.factories import Factory


async def _run(app: Any, factory: Factory) -> uuid.UUID:
    owner = await factory.owner()
    automation = await owner.create_automation()
    response = await owner.request(
        "POST", owner.space_path(f"/automations/{automation['id']}/runs"), json={"inputs": {}}
    )
    assert response.status_code == 202, response.text
    return uuid.UUID(response.json()["id"])


@pytest.mark.parametrize("status", list(RunStatus))
async def test_every_status_is_stored_and_loads_as_the_enum(
    app: Any, factory: Factory, status: RunStatus
) -> None:
    run_id = await _run(app, factory)
    async with app.state.sessionmaker() as session:
        # Straight to the column: this checks the table, not the transition rules. RETURNING reads the
        # stored value in the same statement, so a worker claiming the run meanwhile cannot interfere.
        statement = update(Run).where(Run.id == run_id).values(status=status).returning(Run.status)
        stored = (await session.scalars(statement)).one()
        await session.commit()
    assert stored is status


async def test_an_unknown_status_is_refused_by_the_database(app: Any, factory: Factory) -> None:
    run_id = await _run(app, factory)
    async with app.state.sessionmaker() as session:
        with pytest.raises(IntegrityError, match="ck_runs_status"):
            await session.execute(text("UPDATE runs SET status = 'paused' WHERE id = :id"), {"id": run_id})
