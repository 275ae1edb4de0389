"""The drift check rule on the engine alone: who is asked, when, and what a drifted answer does."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.definitions.signals import StepError, Suspend
from app.engine.capabilities import CapabilityPipeline, NoSecrets, default_rules
from app.engine.capabilities.governance import CallDecision, Governance
from app.engine.context import ActionContext
from app.registry import Capability, CapabilityResolver, RegistrySource
from app.registry.builtin_llm import MODEL_TURN
from tests.engine.core.fakes import FakeLlm, FakePorts, capability_registry, text_reply
from tests.engine.core.test_governance_rules import MemoryLog, capability


class Recheck:
    """Answers every capability as drifted (or not), recording what it was asked."""

    def __init__(self, *, drifted: bool) -> None:
        self.drifted = drifted
        self.asked: list[tuple[str, str]] = []

    async def rechecked(self, space_id: str, capability: Capability) -> Capability:
        self.asked.append((space_id, capability.id))
        return dataclasses.replace(capability, drifted=True) if self.drifted else capability


def ctx(
    cap: Capability, recheck: Recheck, log: MemoryLog, governance: Governance | None = None, **ports: Any
) -> ActionContext:
    resolver = CapabilityResolver([RegistrySource(capability_registry(cap))])
    built = CapabilityPipeline(default_rules(resolver, NoSecrets(), recheck), resolver)
    return ActionContext(
        space_id="space-1",
        run={"id": "run-1"},
        step_id="step",
        ports=dataclasses.replace(FakePorts(**ports).ports(), invocations=log),
        pipeline=built,
        timeout_seconds=30.0,
        governance=governance or Governance(),
    )


async def test_a_capability_found_drifted_needs_approval_for_this_call() -> None:
    cap, seen = capability()
    recheck, log = Recheck(drifted=True), MemoryLog()
    with pytest.raises(Suspend):
        await ctx(cap, recheck, log).invoke_capability("crm.note", {})
    assert seen == []
    assert recheck.asked == [("space-1", "crm.note")]
    assert (log.records[-1].mode, log.records[-1].mode_source) == ("require_approval", "drift_guard")


async def test_an_unchanged_capability_runs() -> None:
    cap, seen = capability()
    recheck = Recheck(drifted=False)
    assert (await ctx(cap, recheck, MemoryLog()).invoke_capability("crm.note", {"a": 1}))["ok"] is True
    assert seen == [{"a": 1}]


async def test_a_denied_call_is_not_rechecked() -> None:
    cap, _ = capability()
    recheck = Recheck(drifted=True)
    denied = Governance(automation_modes={"crm.note": "deny"})
    with pytest.raises(StepError):
        await ctx(cap, recheck, MemoryLog(), denied).invoke_capability("crm.note", {})
    assert recheck.asked == []


async def test_a_call_meeting_its_decision_and_a_known_drift_are_not_rechecked() -> None:
    cap, _ = capability()
    recheck = Recheck(drifted=True)
    waiting = Governance(decisions={"run-1/step/1/0": CallDecision("inv-1", "pending")})
    with pytest.raises(Suspend):
        await ctx(cap, recheck, MemoryLog(), waiting).invoke_capability("crm.note", {})
    drifted, _ = capability(drifted=True)
    with pytest.raises(Suspend):
        await ctx(drifted, recheck, MemoryLog()).invoke_capability("crm.note", {})
    assert recheck.asked == []


async def test_a_model_turn_is_not_rechecked() -> None:
    recheck = Recheck(drifted=True)
    context = ctx(MODEL_TURN, recheck, MemoryLog(), llm=FakeLlm([text_reply("hi")]))
    await context.llm_complete(model="test/model", messages=[{"role": "user", "content": "x"}], max_tokens=5)
    assert recheck.asked == []
