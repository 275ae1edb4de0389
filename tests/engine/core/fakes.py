"""Fakes of the engine's ports (journal, clock, LLM, ledger, HTTP, notifications) for unit tests.

The engine does I/O only through these ports, so its loop and its rules run here without a database,
a broker or a worker, and retries wait on a clock that only moves when asked to.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from app.definitions.run_modes import LlmMode, RunMode
from app.engine.capabilities import CapabilityPipeline, NamedRule, NoSecrets, SecretResolver, default_rules
from app.engine.claim_ports import StepAt, StopRequested
from app.engine.context import ActionContext, RunLimits
from app.registry import Capability, CapabilityResolver, CapabilitySource, Registry, RegistrySource
from app.registry.llm_ports import LlmReply, LlmToolCall
from app.registry.ports import HttpAnswer, KvEntry, Ports
from app.security.egress import CarriedSecret

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class FakeClock:
    """Time that moves only when the executor sleeps on it."""

    def __init__(self, start: datetime = START) -> None:
        self.current = start
        self.sleeps: list[float] = []

    def now(self) -> datetime:
        return self.current

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.current += timedelta(seconds=seconds)


@dataclass
class Record:
    phase: str
    index: int
    step_id: str
    attempt: int
    path: str = ""
    action: str = ""
    status: str = "running"
    config: Any = None
    output: Any = None
    error: dict[str, Any] | None = None
    suspension: dict[str, Any] | None = None
    suppressed: list[dict[str, Any]] | None = None
    items: list[Any] | None = None


class FakeJournal:
    """Step records in a list; `stop_after` answers "cancelled" once that many attempts have begun."""

    def __init__(self, stop_after: int | None = None, stop: str = "cancelled") -> None:
        self.records: list[Record] = []
        self.failed_plan: tuple[str, dict[str, Any]] | None = None
        self.stop_after = stop_after
        self.stop = stop

    async def begin_step(self, phase: str, at: StepAt, attempt: int) -> Record:
        if self.stop_after is not None and len(self.records) >= self.stop_after:
            raise StopRequested("cancelled" if self.stop == "cancelled" else "lease_lost")
        record = Record(phase, at.index, at.step_id, attempt, at.path, at.action)
        self.records.append(record)
        return record

    async def finish_step(
        self,
        record: Record,
        *,
        status: str,
        config: Any = None,
        output: Any = None,
        error: dict[str, Any] | None = None,
        suppressed: list[dict[str, Any]] | None = None,
    ) -> None:
        record.status, record.config, record.output, record.error = status, config, output, error
        record.suppressed = suppressed

    async def suspend_step(self, record: Record, *, config: Any, suspension: dict[str, Any]) -> None:
        record.status, record.config, record.suspension = "suspended", config, suspension

    async def fix_items(self, record: Record, items: list[Any]) -> None:
        record.items = items

    async def plan_failed(self, step_id: str, error: dict[str, Any]) -> None:
        self.failed_plan = (step_id, error)

    async def stop_reason(self) -> str | None:
        if self.stop_after is not None and len(self.records) >= self.stop_after:
            return self.stop
        return None

    def attempts(self, step_id: str) -> list[Record]:
        return [record for record in self.records if record.step_id == step_id]

    def at(self, path: str) -> list[Record]:
        """The attempts recorded at `path`."""
        return [record for record in self.records if record.path == path]


class FakeLlm:
    """Scripted replies; prices of one dollar per thousand tokens either way."""

    def __init__(self, replies: Sequence[LlmReply] = (), allowed: Sequence[str] = ("test/model",)) -> None:
        self.replies = list(replies)
        self.allowed = set(allowed)
        self.calls: list[dict[str, Any]] = []

    def allows(self, model: str) -> bool:
        return model in self.allowed

    def worst_case_cost(self, model: str, prompt_tokens: int, max_tokens: int) -> float:
        return (prompt_tokens + max_tokens) / 1000

    def count_tokens(self, model: str, messages: list[dict[str, Any]]) -> int:
        return sum(len(str(message.get("content") or "").split()) for message in messages)

    async def complete(self, **request: Any) -> LlmReply:
        self.calls.append(request)
        return self.replies.pop(0)


def text_reply(text: str, tokens: int = 10) -> LlmReply:
    return LlmReply(text, (), tokens, tokens, tokens * 2 / 1000, "test/model")


def tool_reply(name: str, arguments: str, call_id: str = "call-1") -> LlmReply:
    return LlmReply(None, (LlmToolCall(call_id, name, arguments),), 5, 5, 0.01, "test/model")


class FakeLedger:
    def __init__(self, cost: float = 0.0, tokens: int = 0, today: float = 0.0) -> None:
        self.cost, self.tokens, self.today = cost, tokens, today
        self.recorded: list[tuple[str, LlmReply]] = []
        self.reads = 0

    async def spent(self) -> tuple[float, int]:
        self.reads += 1
        return self.cost, self.tokens

    async def spent_today(self) -> float:
        return self.today

    async def record(self, *, step_id: str, reply: LlmReply) -> None:
        self.recorded.append((step_id, reply))


class FakeHttp:
    """Answers every request with 200 and the request echoed as JSON."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def request(self, method: str, url: str, **kwargs: Any) -> HttpAnswer:
        self.requests.append({"method": method, "url": url, **kwargs})
        return HttpAnswer(200, {"content-type": "text/plain"}, b"ok", url)


class FakeNotifications:
    def __init__(self) -> None:
        self.sent: list[dict[str, str]] = []

    async def send(self, *, level: str, title: str, body: str) -> str:
        self.sent.append({"level": level, "title": title, "body": body})
        return f"n-{len(self.sent)}"


class FakeKv:
    """An automation's key/value state in a dict (no limits, no expiry)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    async def get(self, key: str) -> KvEntry | None:
        if key not in self.values:
            return None
        return KvEntry(key, self.values[key], None, START.isoformat())

    async def set(self, key: str, value: Any, *, ttl_seconds: int | None) -> KvEntry:
        self.values[key] = value
        return KvEntry(key, value, None, START.isoformat())

    async def delete(self, key: str) -> bool:
        return self.values.pop(key, None) is not None

    async def list(self, *, prefix: str, limit: int, cursor: str | None) -> tuple[list[KvEntry], str | None]:
        keys = sorted(key for key in self.values if key.startswith(prefix))[:limit]
        return [KvEntry(key, self.values[key], None, START.isoformat()) for key in keys], None


@dataclass
class FakePorts:
    http: FakeHttp = field(default_factory=FakeHttp)
    notifications: FakeNotifications = field(default_factory=FakeNotifications)
    llm: FakeLlm = field(default_factory=FakeLlm)
    ledger: FakeLedger = field(default_factory=FakeLedger)
    kv: FakeKv = field(default_factory=FakeKv)

    def ports(self) -> Ports:
        return Ports(
            http=self.http, notifications=self.notifications, llm=self.llm, ledger=self.ledger, kv=self.kv
        )


class DictSecrets:
    """A vault of one space, as a dict; records every lookup."""

    def __init__(self, values: Mapping[str, str], hosts: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.values = dict(values)
        self.hosts = dict(hosts or {})
        self.lookups: list[tuple[str, list[str]]] = []

    async def carried(self, space_id: str, names: Collection[str]) -> Mapping[str, CarriedSecret]:
        self.lookups.append((space_id, sorted(names)))
        return {
            name: CarriedSecret(name, self.values[name], self.hosts.get(name, ()))
            for name in names
            if name in self.values
        }


def capability_registry(*capabilities: Capability) -> Registry[Capability]:
    registry: Registry[Capability] = Registry("capability", Capability, lambda item: item.id)
    for capability in capabilities:
        registry.register(capability)
    return registry


def pipeline(
    *capabilities: Capability,
    secrets: SecretResolver | None = None,
    extra: Sequence[tuple[NamedRule, str]] = (),
    sources: Sequence[CapabilitySource] = (),
) -> CapabilityPipeline:
    """The default rules over a resolver of `capabilities` (then `sources`), with `extra` rules
    inserted before the rules they name."""
    resolver = CapabilityResolver([RegistrySource(capability_registry(*capabilities)), *sources])
    built = CapabilityPipeline(default_rules(resolver, secrets or NoSecrets()), resolver)
    for rule, before in extra:
        built = built.with_rule(rule, before=before)
    return built


def context(
    built: CapabilityPipeline,
    ports: FakePorts | None = None,
    *,
    limits: RunLimits | None = None,
    step_id: str = "step",
    attempt: int = 1,
    timeout: float = 30.0,
    max_retries: int = 0,
    mode: RunMode = "live",
    llm: LlmMode = "run",
) -> ActionContext:
    return ActionContext(
        space_id="space-1",
        run={"id": "run-1"},
        step_id=step_id,
        ports=(ports or FakePorts()).ports(),
        pipeline=built,
        timeout_seconds=timeout,
        limits=limits or RunLimits(),
        max_retries=max_retries,
        attempt=attempt,
        mode=mode,
        llm=llm,
    )
