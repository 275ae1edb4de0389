"""What an action handler sees: the run it belongs to, and `invoke_capability` for side effects.

Handlers never reach the database, the network or credentials directly: the worker hands the
context its ports (HTTP through the egress guard, notifications), and capability handlers use them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine.capabilities import CapabilityCall, CapabilityPipeline


@dataclass(frozen=True)
class HttpAnswer:
    status_code: int
    headers: dict[str, str]
    content: bytes
    url: str


class HttpPort(Protocol):
    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any],
        json_body: Any,
        content: str | None,
        timeout_seconds: float,
    ) -> HttpAnswer: ...


class NotificationPort(Protocol):
    async def send(self, *, level: str, title: str, body: str) -> str: ...


@dataclass(frozen=True)
class Ports:
    http: HttpPort
    notifications: NotificationPort


@dataclass
class ActionContext:
    """Handed to every action handler for one step attempt."""

    space_id: str
    run: Mapping[str, Any]
    step_id: str
    ports: Ports
    pipeline: CapabilityPipeline
    timeout_seconds: float

    async def invoke_capability(self, capability_id: str, args: dict[str, Any]) -> Any:
        """Call a capability through the pipeline: the only way an action causes a side effect."""
        call = CapabilityCall(
            ctx=self, capability_id=capability_id, args=args, timeout_seconds=self.timeout_seconds
        )
        return await self.pipeline.invoke(call)
