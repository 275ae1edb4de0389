"""What an action handler sees: the run it belongs to, and `invoke_capability` for side effects.

`ActionContext` is the engine's implementation of the registry's `HandlerContext`. Every capability
call it makes, an agent's model turns included, goes through the pipeline under a stable identity
(run, step, attempt, call index), so a call suspended on one claim is recognised on the next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.definitions.run_modes import LlmMode, RunMode
from app.definitions.signals import CallId, StepError
from app.engine.capabilities import CapabilityCall, CapabilityPipeline
from app.engine.capabilities.governance import Governance
from app.registry import Capability
from app.registry.builtin_llm import MODEL_TURN, reply_from_result
from app.registry.llm_ports import LlmReply
from app.registry.ports import ArtifactData, ArtifactRef, Ports


@dataclass(frozen=True)
class RunLimits:
    """The run's LLM caps: its policy's, else the operator's defaults (None: no cap)."""

    budget_cap_usd: float | None = None
    max_llm_tokens: int | None = None
    daily_cost_cap_usd: float | None = None
    """The automation's cap for the UTC day, across all its runs."""


@dataclass(frozen=True)
class BoundArtifacts:
    """The run's artifact port with the writing step filled in (`ctx.artifacts`)."""

    ports: Ports
    step_id: str
    step_path: str
    """Which execution of the step: iterations of a loop keep their files apart (`fan/3/save`)."""

    async def put(
        self,
        name: str,
        data: ArtifactData,
        content_type: str,
        *,
        kind: str = "document",
        retention: str = "default",
        visibility: str = "private",
    ) -> ArtifactRef:
        """Store `data` as an artifact of this step; the answer names it, the bytes stay in the store."""
        if self.ports.artifacts is None:
            raise StepError("artifacts_unavailable", "this process cannot store artifacts", retryable=False)
        return await self.ports.artifacts.put(
            name,
            data,
            content_type,
            step_id=self.step_id,
            step_path=self.step_path,
            kind=kind,
            retention=retention,
            visibility=visibility,
        )


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
    attempt: int = 1
    mode: RunMode = "live"
    """live, dry_run or verify: which calls the pipeline's `run_mode` rule holds back."""
    llm: LlmMode = "run"
    suppressed: list[dict[str, Any]] = field(default_factory=list)
    """The calls this attempt held back (capability, params, mode, reason, call id), for its record."""
    governance: Governance = field(default_factory=Governance)
    resumed: Mapping[str, Any] | None = None
    """The suspension record of this attempt when it continues after a decision (see `Suspend.as_dict`)."""
    step_path: str = ""
    """Which execution of the step this is (`fetch/3/classify` inside a loop); its step id when empty."""
    _calls: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.step_path:
            self.step_path = self.step_id
        # A resumed attempt meets its paused call again under the same identity.
        if self.resumed is not None:
            call = self.resumed.get("call") or {}
            if isinstance(call.get("index"), int):
                self._calls = call["index"]

    @property
    def checkpoint(self) -> Any:
        """What the attempt saved when it paused (an agent's transcript), or None."""
        return self.resumed.get("checkpoint") if self.resumed is not None else None

    @property
    def artifacts(self) -> BoundArtifacts:
        """Where this step keeps files; the bytes never enter templates, records or prompts."""
        return BoundArtifacts(self.ports, self.step_id, self.step_path)

    def next_call_id(self) -> CallId:
        """The identity of the next call this attempt makes (calls are numbered from 0 in order)."""
        # A step outside any loop keeps the identity it had before plans held loops.
        path = self.step_path if self.step_path != self.step_id else None
        call_id = CallId(str(self.run.get("id", "")), self.step_id, self.attempt, self._calls, path)
        self._calls += 1
        return call_id

    async def invoke_capability(
        self, capability_id: str, args: dict[str, Any], *, chosen_by: str = "definition"
    ) -> Any:
        """Call a capability through the pipeline: the only way an action causes a side effect."""
        call = CapabilityCall(
            ctx=self,
            capability_id=capability_id,
            args=args,
            id=self.next_call_id(),
            chosen_by="agent" if chosen_by == "agent" else "definition",
        )
        return await self.pipeline.invoke(call)

    async def capabilities_matching(self, patterns: Sequence[str]) -> list[Capability]:
        """The space's capabilities whose ids match any of the patterns (`http.*`), in resolver order."""
        return (await self.pipeline.resolver.for_space(self.space_id)).matching(patterns)

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
        """One model turn, through the pipeline's metered path (caps before, ledger after)."""
        args = {
            "model": model,
            "messages": messages,
            "tools": tools,
            "response_schema": response_schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        call = CapabilityCall(
            ctx=self,
            capability_id=MODEL_TURN.id,
            args=args,
            id=self.next_call_id(),
            capability=MODEL_TURN,
        )
        return reply_from_result(await self.pipeline.invoke(call))
