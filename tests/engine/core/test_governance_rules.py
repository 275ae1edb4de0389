"""The governed path's rules on the engine alone: modes, decisions, grants, drift, rate limit and the audit.

The audit port is an in-memory log here; the database-backed one is covered by the tests in
`tests/governed`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from app.definitions.signals import StepError, Suspend
from app.engine.call_modes import CallPolicy, call_mode
from app.engine.capabilities.binding import arguments_hash
from app.engine.capabilities.governance import CallDecision, Governance
from app.engine.context import ActionContext
from app.engine.standing_grants import StandingGrant
from app.registry import Capability, SecretFields
from app.registry.builtin_agent import AGENT_TASK
from app.registry.ports import HandlerContext, InvocationRecord
from tests.engine.core.fakes import FakeLlm, FakePorts, pipeline, text_reply, tool_reply

ANY: dict[str, Any] = {"type": "object"}


class MemoryLog:
    """The invocation port in memory: every record, pending requests, and the approved-call lifecycle."""

    def __init__(self, *, pending_cap: int | None = None) -> None:
        self.records: list[InvocationRecord] = []
        self.started: list[str] = []
        self.finished: list[tuple[str, InvocationRecord]] = []
        self.pending_cap = pending_cap

    async def record(self, record: InvocationRecord) -> None:
        self.records.append(record)

    async def request_approval(self, record: InvocationRecord) -> str:
        if (
            self.pending_cap is not None
            and sum(r.status == "pending" for r in self.records) >= self.pending_cap
        ):
            record.status, record.denied_reason = "denied", "pending_cap"
            self.records.append(record)
            raise StepError("pending_cap_reached", "too many", retryable=False)
        self.records.append(record)
        return f"inv-{len(self.records)}"

    async def start_approved(self, invocation_id: str) -> bool:
        if invocation_id in self.started:
            return False
        self.started.append(invocation_id)
        return True

    async def finish_approved(self, invocation_id: str, record: InvocationRecord) -> None:
        self.finished.append((invocation_id, record))


class Limiter:
    def __init__(self, allowed: int) -> None:
        self.left = allowed

    async def allow(self) -> bool:
        self.left -= 1
        return self.left >= 0


# Every argument may hold a secret (as an MCP tool's do).
ANYWHERE = SecretFields(paths=("/**",))


def capability(capability_id: str = "crm.note", **changes: Any) -> tuple[Capability, list[Any]]:
    seen: list[Any] = []

    async def handler(ctx: HandlerContext, args: dict[str, Any]) -> Any:
        seen.append(args)
        return {"ok": True, "echo": args}

    fields: dict[str, Any] = {
        "id": capability_id,
        "description": "Records its calls.",
        "input_schema": ANY,
        "output_schema": ANY,
        "handler": handler,
        "secret_fields": ANYWHERE,
        **changes,
    }
    return Capability(**fields), seen


def ctx_for(
    *capabilities: Capability,
    log: MemoryLog,
    governance: Governance | None = None,
    limiter: Limiter | None = None,
    llm: FakeLlm | None = None,
    resumed: dict[str, Any] | None = None,
    attempt: int = 1,
) -> ActionContext:
    ports = dataclasses.replace(
        FakePorts(llm=llm or FakeLlm()).ports(), invocations=log, call_limiter=limiter
    )
    return ActionContext(
        space_id="space-1",
        run={"id": "run-1"},
        step_id="step",
        ports=ports,
        pipeline=pipeline(*capabilities),
        timeout_seconds=30.0,
        attempt=attempt,
        governance=governance or Governance(),
        resumed=resumed,
    )


class TestModes:
    async def test_an_allowed_call_runs_and_is_one_record(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        assert await ctx_for(cap, log=log).invoke_capability("crm.note", {"text": "hi"}) == {
            "ok": True,
            "echo": {"text": "hi"},
        }
        assert seen == [{"text": "hi"}]
        [record] = log.records
        assert (record.status, record.mode, record.mode_source, record.chosen_by) == (
            "executed",
            "allow",
            "inferred_default",
            "definition",
        )
        assert record.call_key == "run-1/step/1/0"
        assert record.result == {"ok": True, "echo": {"text": "hi"}}

    async def test_deny_refuses_without_calling_and_records_the_reason(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        ctx = ctx_for(cap, log=log, governance=Governance(space_modes={"crm.*": "deny"}))
        with pytest.raises(StepError) as refused:
            await ctx.invoke_capability("crm.note", {})
        assert (refused.value.code, refused.value.retryable) == ("action_denied", False)
        assert seen == []
        [record] = log.records
        assert (record.status, record.denied_reason, record.mode_source) == (
            "denied",
            "policy",
            "space_default",
        )

    async def test_require_approval_pauses_and_stores_a_pending_call(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        ctx = ctx_for(cap, log=log, governance=Governance(automation_modes={"crm.note": "require_approval"}))
        with pytest.raises(Suspend) as paused:
            await ctx.invoke_capability("crm.note", {"password": "hunter2", "key": {"$secret": "crm"}})
        assert paused.value.call.key == "run-1/step/1/0"
        assert seen == []
        [record] = log.records
        assert (record.status, record.mode_source) == ("pending", "automation_override")
        # Params are stored redacted; a secret stays a reference.
        assert record.params["password"] != "hunter2"
        assert record.params["key"] == {"$secret": "crm"}

    async def test_the_result_is_truncated_structurally_for_storage(self) -> None:
        async def big(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            return {"rows": [{"n": i, "text": "x" * 100} for i in range(500)]}

        cap, _ = capability(handler=big)
        log = MemoryLog()
        result = await ctx_for(cap, log=log).invoke_capability("crm.note", {})
        assert len(result["rows"]) == 500, "the caller gets the whole result"
        stored = log.records[0].result
        assert stored["_truncated"] is True
        assert len(json.dumps(stored, separators=(",", ":"), ensure_ascii=False).encode()) <= 10 * 1024

    async def test_a_failing_call_is_recorded_failed(self) -> None:
        async def broken(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            raise RuntimeError("down")

        cap, _ = capability(handler=broken)
        log = MemoryLog()
        with pytest.raises(RuntimeError):
            await ctx_for(cap, log=log).invoke_capability("crm.note", {})
        assert (log.records[0].status, log.records[0].error["code"]) == ("failed", "action_error")


class TestDecisions:
    async def test_an_approved_call_runs_once_under_its_existing_record(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        governance = Governance(
            automation_modes={"crm.note": "require_approval"},
            decisions={
                "run-1/step/1/0": CallDecision("inv-1", "approved", params_hash=arguments_hash({"a": 1}))
            },
        )
        assert await ctx_for(cap, log=log, governance=governance).invoke_capability("crm.note", {"a": 1})
        assert seen == [{"a": 1}]
        assert log.started == ["inv-1"]
        assert [(i, r.status) for i, r in log.finished] == [("inv-1", "executed")]
        assert log.records == [], "no second row for the same call"
        # Another claim meeting the same decision cannot take the call again.
        with pytest.raises(StepError) as again:
            await ctx_for(cap, log=log, governance=governance).invoke_capability("crm.note", {"a": 1})
        assert again.value.code == "invocation_interrupted"
        assert seen == [{"a": 1}]

    @pytest.mark.parametrize(
        ("status", "code"),
        [
            ("denied", "approval_denied"),
            ("expired", "approval_expired"),
            ("executing", "invocation_interrupted"),
        ],
    )
    async def test_other_decisions_refuse_the_call(self, status: str, code: str) -> None:
        cap, seen = capability()
        log = MemoryLog()
        governance = Governance(decisions={"run-1/step/1/0": CallDecision("inv-1", status, "not today")})
        with pytest.raises(StepError) as refused:
            await ctx_for(cap, log=log, governance=governance).invoke_capability("crm.note", {})
        assert (refused.value.code, refused.value.retryable) == (code, False)
        assert seen == []
        assert log.records == []

    async def test_a_still_pending_call_pauses_again_without_a_second_request(self) -> None:
        cap, _ = capability()
        log = MemoryLog()
        governance = Governance(decisions={"run-1/step/1/0": CallDecision("inv-1", "pending")})
        with pytest.raises(Suspend):
            await ctx_for(cap, log=log, governance=governance).invoke_capability("crm.note", {})
        assert log.records == []

    async def test_the_pending_cap_refuses_the_call(self) -> None:
        cap, _ = capability()
        log = MemoryLog(pending_cap=0)
        ctx = ctx_for(cap, log=log, governance=Governance(space_modes={"*": "require_approval"}))
        with pytest.raises(StepError) as refused:
            await ctx.invoke_capability("crm.note", {})
        assert refused.value.code == "pending_cap_reached"
        assert (log.records[0].status, log.records[0].denied_reason) == ("denied", "pending_cap")


class TestGuards:
    async def test_a_drifted_capability_needs_approval_on_allow(self) -> None:
        cap, seen = capability(drifted=True, risk="read")
        log = MemoryLog()
        with pytest.raises(Suspend):
            await ctx_for(cap, log=log).invoke_capability("crm.note", {})
        assert seen == []
        assert (log.records[0].mode, log.records[0].mode_source) == ("require_approval", "drift_guard")

    async def test_a_drifted_denied_capability_stays_denied(self) -> None:
        cap, _ = capability(drifted=True)
        log = MemoryLog()
        ctx = ctx_for(cap, log=log, governance=Governance(automation_modes={"crm.note": "deny"}))
        with pytest.raises(StepError) as refused:
            await ctx.invoke_capability("crm.note", {})
        assert refused.value.code == "action_denied"
        assert log.records[0].mode_source == "automation_override"

    async def test_a_call_outside_the_grants_is_refused(self) -> None:
        cap, seen = capability("crm.update")
        log = MemoryLog()
        governance = Governance(grants=[{"capability": "crm.update", "params": {"board_id": "b-1"}}])
        ctx = ctx_for(cap, log=log, governance=governance)
        await ctx.invoke_capability("crm.update", {"board_id": "b-1", "text": "x"})
        with pytest.raises(StepError) as refused:
            await ctx.invoke_capability("crm.update", {"board_id": "b-2"})
        assert refused.value.code == "action_denied"
        assert seen == [{"board_id": "b-1", "text": "x"}]
        assert [(r.status, r.denied_reason) for r in log.records] == [("executed", None), ("denied", "grant")]

    async def test_the_rate_limit_refuses_past_the_limit_and_may_be_retried(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        ctx = ctx_for(cap, log=log, limiter=Limiter(allowed=2))
        await ctx.invoke_capability("crm.note", {})
        await ctx.invoke_capability("crm.note", {})
        with pytest.raises(StepError) as refused:
            await ctx.invoke_capability("crm.note", {})
        assert (refused.value.code, refused.value.retryable) == ("rate_limited", True)
        assert len(seen) == 2
        assert log.records[-1].denied_reason == "rate_limit"


class TestAgent:
    async def test_the_agent_is_told_of_a_denial_and_goes_on(self) -> None:
        cap, seen = capability("crm.note", risk="read")
        log = MemoryLog()
        llm = FakeLlm([tool_reply("crm__note", "{}"), text_reply("noted that I may not")])
        ctx = ctx_for(cap, log=log, llm=llm, governance=Governance(space_modes={"crm.note": "deny"}))
        answer = await AGENT_TASK.handler(ctx, {"prompt": "note", "model": "test/model", "tools": ["crm.*"]})
        assert answer == "noted that I may not"
        assert seen == []
        assert '"action_denied"' in llm.calls[1]["messages"][-1]["content"]
        assert log.records[0].chosen_by == "agent"

    async def test_a_paused_agent_saves_its_transcript_and_resumes_without_asking_the_model_again(
        self,
    ) -> None:
        cap, seen = capability("crm.note")  # a write: an agent's call needs approval
        log = MemoryLog()
        llm = FakeLlm([tool_reply("crm__note", '{"text": "a"}'), text_reply("done")])
        config = {"prompt": "note", "model": "test/model", "tools": ["crm.*"]}
        with pytest.raises(Suspend) as paused:
            await AGENT_TASK.handler(ctx_for(cap, log=log, llm=llm), config)
        assert len(llm.calls) == 1
        suspension = paused.value.as_dict()
        assert suspension["checkpoint"]["pending_tool_calls"][0]["name"] == "crm__note"
        assert suspension["call"]["index"] == 1, "the model turn was call 0"

        approved = CallDecision("inv-2", "approved", params_hash=arguments_hash({"text": "a"}))
        governance = Governance(decisions={"run-1/step/1/1": approved})
        resumed = ctx_for(cap, log=log, llm=llm, governance=governance, resumed=suspension)
        assert await AGENT_TASK.handler(resumed, config) == "done"
        assert len(llm.calls) == 2, "one model call after the decision, none repeated"
        assert seen == [{"text": "a"}]
        tool_message = llm.calls[1]["messages"][-1]
        assert tool_message["role"] == "tool"
        assert '"ok": true' in tool_message["content"]


class TestApprovedParams:
    async def test_an_approval_covers_only_the_arguments_it_was_shown(self) -> None:
        cap, seen = capability()
        log = MemoryLog()
        shown = {"url": "https://crm.example.com/a"}
        decided = CallDecision("inv-1", "approved", params_hash=arguments_hash(shown))
        governance = Governance(decisions={"run-1/step/1/0": decided})
        with pytest.raises(StepError) as refused:
            await ctx_for(cap, log=log, governance=governance).invoke_capability(
                "crm.note", {"url": "https://crm.example.com/b"}
            )
        assert (refused.value.code, refused.value.retryable) == ("approval_params_changed", False)
        assert seen == []
        assert log.started == []
        await ctx_for(cap, log=log, governance=governance).invoke_capability("crm.note", dict(shown))
        assert seen == [shown]

    @pytest.mark.parametrize(
        ("approved", "resumed"),
        [
            ({"api_key": "a"}, {"api_key": "b"}),
            ({"body": "x" * 11_000 + "a"}, {"body": "x" * 11_000 + "b"}),
            ({"token": {"$secret": "one"}}, {"token": {"$secret": "two"}}),
        ],
        ids=["sensitive_key", "past_10_kb", "another_secret"],
    )
    async def test_what_the_audit_hides_is_still_bound(
        self, approved: dict[str, Any], resumed: dict[str, Any]
    ) -> None:
        cap, seen = capability()
        decided = CallDecision("inv-1", "approved", params_hash=arguments_hash(approved))
        governance = Governance(decisions={"run-1/step/1/0": decided})
        with pytest.raises(StepError) as refused:
            await ctx_for(cap, log=MemoryLog(), governance=governance).invoke_capability("crm.note", resumed)
        assert refused.value.code == "approval_params_changed"
        assert seen == []

    async def test_a_paused_call_stores_the_hash_of_its_arguments_as_written(self) -> None:
        cap, _ = capability()
        log = MemoryLog()
        args = {"b": 1, "a": {"token": {"$secret": "crm"}}}
        with pytest.raises(Suspend):
            await ctx_for(
                cap, log=log, governance=Governance(space_modes={"*": "require_approval"})
            ).invoke_capability("crm.note", args)
        [pending] = log.records
        assert pending.params_hash == arguments_hash({"a": {"token": {"$secret": "crm"}}, "b": 1})
        assert pending.params["a"]["token"] == {"$secret": "crm"}

    async def test_a_decision_without_a_hash_covers_nothing(self) -> None:
        cap, seen = capability()
        governance = Governance(decisions={"run-1/step/1/0": CallDecision("inv-1", "approved")})
        with pytest.raises(StepError) as refused:
            await ctx_for(cap, log=MemoryLog(), governance=governance).invoke_capability("crm.note", {})
        assert refused.value.code == "approval_params_changed"
        assert seen == []


class TestArgumentsHash:
    def test_key_order_does_not_matter_and_types_do(self) -> None:
        assert arguments_hash({"a": 1, "b": [1, 2]}) == arguments_hash({"b": [1, 2], "a": 1})
        assert arguments_hash({"a": 1}) != arguments_hash({"a": True})
        assert arguments_hash({"a": 1}) != arguments_hash({"a": "1"})
        assert arguments_hash({"a": 1}) != arguments_hash({"a": 1.0})
        assert arguments_hash({"a": [1, 2]}) != arguments_hash({"a": [2, 1]})


def _targeted(**changes: Any) -> tuple[Capability, list[Any]]:
    """A capability whose target is the `to` argument of a call."""
    return capability(call_target=lambda args: f"to {args.get('to')}", **changes)


class TestStandingGrants:
    ASKS = {"crm.note": "require_approval"}

    def governance(self, *grants: StandingGrant, **changes: Any) -> Governance:
        return Governance(automation_modes=self.ASKS, approval_grants=grants, **changes)

    async def test_a_grant_covers_the_same_step_and_target(self) -> None:
        cap, seen = _targeted()
        log = MemoryLog()
        grant = StandingGrant("g-1", "crm.note", "step", "to a")
        await ctx_for(cap, log=log, governance=self.governance(grant)).invoke_capability(
            "crm.note", {"to": "a", "body": "anything"}
        )
        assert seen == [{"to": "a", "body": "anything"}]
        assert (log.records[0].mode, log.records[0].mode_source) == ("allow", "approval_grant")

    async def test_another_target_asks_and_names_the_grant_that_lapses(self) -> None:
        cap, seen = _targeted()
        log = MemoryLog()
        grants = (
            StandingGrant("g-1", "crm.note", "step", "to a"),
            StandingGrant("g-2", "crm.x", "step", "t"),
        )
        with pytest.raises(Suspend):
            await ctx_for(cap, log=log, governance=self.governance(*grants)).invoke_capability(
                "crm.note", {"to": "b"}
            )
        assert seen == []
        [pending] = log.records
        assert (pending.target, pending.lapsed_grants) == ("to b", ("g-1",))

    async def test_another_step_is_not_covered_and_lapses_nothing(self) -> None:
        cap, _ = _targeted()
        log = MemoryLog()
        grant = StandingGrant("g-1", "crm.note", "other-step", "to a")
        with pytest.raises(Suspend):
            await ctx_for(cap, log=log, governance=self.governance(grant)).invoke_capability(
                "crm.note", {"to": "a"}
            )
        assert log.records[0].lapsed_grants == ()

    async def test_a_grant_never_relaxes_deny_a_destructive_call_or_drift(self) -> None:
        grant = StandingGrant("g-1", "crm.note", "step", "crm.note")
        cap, seen = capability()
        log = MemoryLog()
        denied = Governance(automation_modes={"crm.note": "deny"}, approval_grants=(grant,))
        with pytest.raises(StepError):
            await ctx_for(cap, log=log, governance=denied).invoke_capability("crm.note", {})
        for changes in ({"destructive": True}, {"drifted": True}):
            cap, seen = capability(**changes)
            with pytest.raises(Suspend):
                await ctx_for(cap, log=log, governance=self.governance(grant)).invoke_capability(
                    "crm.note", {}
                )
            assert seen == []
        assert log.records[-1].mode_source == "drift_guard"

    def test_a_capability_without_a_target_function_is_its_own_target(self) -> None:
        cap, _ = capability()
        assert cap.target_of({"anything": 1}) == "crm.note"

    def test_a_preview_gives_the_same_answer_as_the_pipeline(self) -> None:
        cap, _ = _targeted()
        grant = StandingGrant("g-1", "crm.note", "step", "to a")
        policy = CallPolicy(automation_modes=self.ASKS, approval_grants=(grant,))
        assert (
            call_mode(cap, "definition", {"to": "a"}, policy, step_id="step")["mode_source"]
            == "approval_grant"
        )
        assert call_mode(cap, "definition", {"to": "b"}, policy, step_id="step")["mode"] == "require_approval"
        assert call_mode(cap, "agent", None, policy, step_id="step")["mode"] == "require_approval"
        drifted, _ = _targeted(drifted=True)
        assert (
            call_mode(drifted, "definition", {"to": "a"}, policy, step_id="step")["mode"]
            == "require_approval"
        )
