"""The inbox and audit listings stay index scans with 10,000 invocations in the table."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.dialects import postgresql

from app.persistence.models import ActionInvocation, Run
from app.persistence.repositories.invocations import InvocationRepository
from app.persistence.transaction import transaction
from tests.support.factories import Factory
from tests.support.runs import definition

ROWS = 10_000


async def _plan(session: Any, statement: Any) -> str:
    compiled = statement.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})
    rows = await session.execute(text(f"EXPLAIN {compiled}"))
    return "\n".join(row[0] for row in rows)


async def test_ten_thousand_invocations_are_listed_with_an_index_scan(app: Any, factory: Factory) -> None:
    owner = await factory.owner()
    automation = await owner.create_automation(
        definition({"step_id": "a", "action": "transform_data", "config": {"output": 1}})
    )
    space_id, run_id = uuid.UUID(owner.space_id), uuid.uuid4()
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        session.add(
            Run(
                id=run_id,
                space_id=space_id,
                automation_id=uuid.UUID(automation["id"]),
                automation_version=1,
                definition=automation["definition"],
                status="awaiting_approval",
                queue="runs.fast",
                trigger_type="manual",
                trigger_payload={},
                inputs={},
            )
        )
        await session.flush()
        # One call in fifty still waits, like an inbox a team keeps up with.
        await session.execute(
            text(
                "INSERT INTO action_invocations (id, space_id, automation_id, run_id, step_id, call_key,"
                " capability, tier, risk, destructive, chosen_by, mode, mode_source, params, status,"
                " created_at, expires_at)"
                " SELECT gen_random_uuid(), :space, :automation, :run, 'a', 'k' || n, 'http.request',"
                " 'native', 'write', false, 'agent', 'require_approval', 'inferred_default', '{}'::jsonb,"
                " CASE WHEN n % 50 = 0 THEN 'pending' ELSE 'executed' END,"
                " now() - make_interval(secs => n), now() + interval '1 day'"
                " FROM generate_series(1, :rows) AS n"
            ),
            {"space": space_id, "automation": uuid.UUID(automation["id"]), "run": run_id, "rows": ROWS},
        )
    async with app.state.sessionmaker() as session:
        await session.execute(text("ANALYZE action_invocations"))
        repository = InvocationRepository(session)
        order = (ActionInvocation.created_at.desc(), ActionInvocation.id.desc())
        inbox = repository.listing_statement(space_id, statuses=["pending"]).order_by(*order).limit(50)
        audit = repository.listing_statement(space_id).order_by(*order).limit(50)
        for statement in (inbox, audit):
            plan = await _plan(session, statement)
            assert "Index" in plan, plan
            assert "Seq Scan on action_invocations" not in plan, plan

    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 150}
    while True:  # the inbox, page by page
        listed = await owner.request("GET", owner.space_path("/approvals"), params=params)
        assert listed.status_code == 200
        items += listed.json()["items"]
        if listed.json()["next_cursor"] is None:
            break
        params["cursor"] = listed.json()["next_cursor"]
    assert len(items) == ROWS // 50
    assert len({i["id"] for i in items}) == len(items)
    assert [i["created_at"] for i in items] == sorted((i["created_at"] for i in items), reverse=True)
