"""The queries KEDA scales the run workers on (deploy/kubernetes) run on the migrated schema and count what
a worker of their queue could claim now: pending runs of that queue whose retry delay is over, nothing
queued, running, finished, still in backoff, or of another queue."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import insert, text
from sqlalchemy.exc import DBAPIError

from app.persistence.models import Run
from app.worker.celery_app import RUN_QUEUES
from tests.deploy.test_kubernetes_manifests import BASE, _by_kind, _worker_queues, render
from tests.support.factories import Factory, minimal_definition
from tests.support.runs import CLAIMABLE_IN_MIX, waiting_mix


def _queries() -> dict[str, str]:
    """Each run queue's scaler query, from the base manifests."""
    manifests = render(BASE)
    scaled = _by_kind(manifests, "ScaledObject")
    queries = {}
    for deployment in _by_kind(manifests, "Deployment").values():
        container = deployment.body["spec"]["template"]["spec"]["containers"][0]
        if container["command"][1] != "worker":
            continue
        (queue,) = _worker_queues(container)
        if queue in RUN_QUEUES:
            (trigger,) = scaled[deployment.name].body["spec"]["triggers"]
            queries[queue] = trigger["metadata"]["query"]
    return queries


async def test_each_run_queue_scales_on_its_runs_claimable_now(app: Any, factory: Factory) -> None:
    queries = _queries()
    assert set(queries) == set(RUN_QUEUES)
    owner = await factory.owner()
    automation = await owner.create_automation(minimal_definition())
    now = datetime.now(UTC)
    rows = waiting_mix(owner, automation, now)
    # One snapshot for both counts, nothing committed: other tests' runs change neither, and the role made
    # for KEDA (deploy/kubernetes/README.md) goes with the rollback.
    keda = f"keda_{uuid.uuid4().hex[:12]}"
    async with app.state.engine.connect() as connection:
        await connection.execution_options(isolation_level="REPEATABLE READ")
        async with connection.begin() as outer:

            async def counts() -> dict[str, int]:
                return {
                    queue: (await connection.execute(text(query))).scalar_one()
                    for queue, query in queries.items()
                }

            before = await counts()
            await connection.execute(insert(Run), rows)
            # The grant the deployment guide gives KEDA's own role is enough for every query, and no more.
            await connection.execute(text(f"CREATE ROLE {keda} NOLOGIN"))
            await connection.execute(text(f"GRANT SELECT (status, queue, retry_at) ON runs TO {keda}"))
            await connection.execute(text(f"SET LOCAL ROLE {keda}"))
            after = await counts()
            with pytest.raises(DBAPIError, match="permission denied"):
                await connection.execute(text("SELECT count(inputs) FROM runs"))
            await outer.rollback()
    assert {queue: after[queue] - before[queue] for queue in queries} == CLAIMABLE_IN_MIX
