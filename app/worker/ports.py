"""The ports a run's action context gets in a worker: HTTP and LLMs through the egress guard,
notifications, and the run's cost ledger."""

from __future__ import annotations

from typing import Any

from app.config import Settings
from app.integrations.http import GuardedHttp
from app.integrations.slack import SlackApi
from app.integrations.smtp import RelayMail, SmtpMailer, SmtpRelay
from app.persistence.models import Run
from app.registry.ports import LlmReply, Ports
from app.security.egress import EgressAllowList
from app.services.artifact_writer import RunArtifacts
from app.services.events import event_service
from app.services.execution import PortsFactory
from app.services.ledger import ledger_service
from app.services.notifications import notification_service
from app.worker.runtime import WorkerRuntime


class RunNotifications:
    """Notifications written in their own transaction: the side effect is durable when the call returns."""

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.run = run

    async def send(self, *, level: str, title: str, body: str) -> str:
        async with self.worker.unit_of_work() as session:
            notification = await notification_service.create(
                session, space_id=self.run.space_id, run_id=self.run.id, level=level, title=title, body=body
            )
        return str(notification.id)


class RunEvents:
    """Events a run's handlers publish (a plugin's emitter): into the run's space, each in its own
    transaction, carrying the run's chain depth so event chains stay bounded."""

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.run = run

    async def publish(self, event_type: str, payload: dict[str, Any], *, source_id: str) -> str:
        async with self.worker.unit_of_work() as session:
            event = await event_service.publish(
                session, self.run.space_id, event_type, payload, source_id, chain_depth=self.run.chain_depth
            )
        return str(event.id)


class RunLedger:
    """The run's LLM spending, read and written in short transactions of their own."""

    def __init__(self, worker: WorkerRuntime, run: Run) -> None:
        self.worker = worker
        self.run = run

    async def spent(self) -> tuple[float, int]:
        async with self.worker.unit_of_work() as session:
            return await ledger_service.run_totals(session, self.run.id)

    async def record(self, *, step_id: str, reply: LlmReply) -> None:
        async with self.worker.unit_of_work() as session:
            await ledger_service.record(session, self.run, step_id, reply)


def mail_port(settings: Settings, allow: EgressAllowList) -> RelayMail | None:
    """The SMTP relay of AUTOMATIONS_SMTP_URL from AUTOMATIONS_SMTP_FROM, or None when not configured."""
    if settings.smtp_url is None or not settings.smtp_url.get_secret_value() or not settings.smtp_from:
        return None
    relay = SmtpRelay.parse(settings.smtp_url.get_secret_value())
    return RelayMail(SmtpMailer(relay, settings.smtp_from, allow))


def ports_for(worker: WorkerRuntime) -> PortsFactory:
    """The ports of each claimed run: the worker's egress guard and LLM adapter, the run's own ledger
    and artifacts, Slack's Web API and the SMTP relay (when one is configured)."""
    slack = SlackApi(worker.core.settings.slack_api_url, worker.core.egress_allow)
    mail = mail_port(worker.core.settings, worker.core.egress_allow)

    def make(run: Run) -> Ports:
        http = GuardedHttp(worker.core.egress_allow)
        return Ports(
            http=http,
            notifications=RunNotifications(worker, run),
            llm=worker.core.llm,
            ledger=RunLedger(worker, run),
            slack=slack,
            mail=mail,
            artifacts=RunArtifacts(
                worker.unit_of_work,
                worker.core.artifact_store,
                run,
                worker.core.artifact_limits,
                link_secret=worker.core.settings.resolved_secret_key(),
            ),
            download=http,
            events=RunEvents(worker, run),
        )

    return make
