"""The ports a run's action context gets in a worker: HTTP through the egress guard, notifications."""

from __future__ import annotations

import uuid

from app.engine.context import Ports
from app.integrations.http import GuardedHttp
from app.persistence.models import Run
from app.security.egress import EgressAllowList
from app.services.execution import PortsFactory
from app.services.notifications import notification_service
from app.worker.runtime import WorkerRuntime


class RunNotifications:
    """Notifications written in their own transaction: the side effect is durable when the call returns."""

    def __init__(self, worker: WorkerRuntime, space_id: uuid.UUID, run_id: uuid.UUID) -> None:
        self.worker = worker
        self.space_id = space_id
        self.run_id = run_id

    async def send(self, *, level: str, title: str, body: str) -> str:
        async with self.worker.unit_of_work() as session:
            notification = await notification_service.create(
                session, space_id=self.space_id, run_id=self.run_id, level=level, title=title, body=body
            )
        return str(notification.id)


def ports_for(worker: WorkerRuntime, allow: EgressAllowList) -> PortsFactory:
    def make(run: Run) -> Ports:
        return Ports(http=GuardedHttp(allow), notifications=RunNotifications(worker, run.space_id, run.id))

    return make
