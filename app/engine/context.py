"""What an action handler sees: the run it belongs to, and `invoke_capability` for side effects.

Handlers never reach the database, the network or credentials directly: the worker hands the
context its ports (HTTP through the egress guard, notifications), and capability handlers use them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.engine.capabilities import CapabilityCall, CapabilityPipeline
from app.engine.steps import StepError
from app.registry import Capability


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
class LlmToolCall:
    """One tool call the model asked for; `arguments` is the raw JSON text the model wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class LlmReply:
    """One completion: text or tool calls, and what it cost."""

    content: str | None
    tool_calls: tuple[LlmToolCall, ...]
    input_tokens: int
    output_tokens: int
    cost_usd: float
    model: str


class LlmPort(Protocol):
    """LLM completions (through litellm in the worker); provider keys never pass through here."""

    def allows(self, model: str) -> bool: ...

    def worst_case_cost(self, model: str, prompt_tokens: int, max_tokens: int) -> float:
        """The most a call could cost: prompt tokens plus `max_tokens` of output at the model's prices."""
        ...

    def count_tokens(self, model: str, messages: list[dict[str, Any]]) -> int: ...

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        response_schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float | None,
        timeout_seconds: float,
    ) -> LlmReply: ...


class LedgerPort(Protocol):
    """The run's LLM spending: what it has used so far, and the record of each call."""

    async def spent(self) -> tuple[float, int]:
        """(cost in USD, tokens) the run has used so far."""
        ...

    async def record(self, *, step_id: str, reply: LlmReply) -> None: ...


class SlackPort(Protocol):
    """Slack's Web API; the bot token comes with each call (resolved from a secret), never kept."""

    async def post_message(
        self, token: str, message: dict[str, Any], *, timeout_seconds: float
    ) -> dict[str, Any]: ...


class MailPort(Protocol):
    """The operator's SMTP relay: builds and sends one message (to, cc, bcc, subject, text, html…)."""

    async def send(self, args: dict[str, Any], *, timeout_seconds: float) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Ports:
    http: HttpPort
    notifications: NotificationPort
    llm: LlmPort
    ledger: LedgerPort
    slack: SlackPort | None = None
    # None when the operator configured no SMTP relay: send_email then fails with email_unavailable.
    mail: MailPort | None = None


@dataclass(frozen=True)
class RunLimits:
    """The run's LLM caps from its execution policy (None: no cap)."""

    budget_cap_usd: float | None = None
    max_llm_tokens: int | None = None


@dataclass
class ActionContext:
    """Handed to every action handler for one step attempt."""

    space_id: str
    run: Mapping[str, Any]
    step_id: str
    ports: Ports
    pipeline: CapabilityPipeline
    timeout_seconds: float
    limits: RunLimits = field(default_factory=RunLimits)
    max_retries: int = 0

    async def invoke_capability(self, capability_id: str, args: dict[str, Any]) -> Any:
        """Call a capability through the pipeline: the only way an action causes a side effect."""
        call = CapabilityCall(
            ctx=self, capability_id=capability_id, args=args, timeout_seconds=self.timeout_seconds
        )
        return await self.pipeline.invoke(call)

    def capabilities_matching(self, patterns: Sequence[str]) -> list[Capability]:
        """The capabilities whose ids match any of the patterns (`http.*`), in registry order."""
        return [c for c in self.pipeline.registry if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]

    async def llm_complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        response_schema: dict[str, Any] | None = None,
        max_tokens: int,
        temperature: float | None = None,
    ) -> LlmReply:
        """One metered LLM call: refused before it starts if its worst case would cross the run's caps."""
        llm = self.ports.llm
        if not llm.allows(model):
            raise StepError("model_not_allowed", f"model {model!r} is not allowed here", retryable=False)
        cost, tokens = await self.ports.ledger.spent()
        prompt_tokens = llm.count_tokens(model, messages)
        cap = self.limits.budget_cap_usd
        if cap is not None:
            worst = llm.worst_case_cost(model, prompt_tokens, max_tokens)
            if cost + worst > cap:
                raise StepError(
                    "budget_exceeded",
                    f"this call could cost ${worst:.4f}; with ${cost:.4f} spent the run would pass "
                    f"its ${cap:.4f} cap",
                    retryable=False,
                )
        token_cap = self.limits.max_llm_tokens
        if token_cap is not None and tokens + prompt_tokens + max_tokens > token_cap:
            raise StepError(
                "budget_exceeded",
                f"this call could use {prompt_tokens + max_tokens} tokens; with {tokens} used the run "
                f"would pass its {token_cap}-token cap",
                retryable=False,
            )
        reply = await llm.complete(
            model=model,
            messages=messages,
            tools=tools,
            response_schema=response_schema,
            max_tokens=max_tokens,
            temperature=temperature,
            timeout_seconds=self.timeout_seconds,
        )
        await self.ports.ledger.record(step_id=self.step_id, reply=reply)
        return reply
