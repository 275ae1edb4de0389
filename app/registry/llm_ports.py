"""The LLM ports a handler's context offers: completions (through litellm in the worker) and the run's
spending ledger. Provider keys never pass through them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


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

    async def spent_today(self) -> float:
        """USD the run's automation has spent since midnight UTC, this run included."""
        ...

    async def record(self, *, step_id: str, reply: LlmReply) -> None: ...
