"""The capability pipeline: each rule alone, the default order, and the suspend signal through it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.definitions.signals import StepError, Suspend
from app.engine.capabilities import CapabilityCall, NamedRule, Proceed
from app.engine.context import RunLimits
from app.engine.secret_refs import SecretRef
from app.registry import Capability, SecretFields
from app.registry.builtin_agent import AGENT_TASK
from app.registry.builtin_llm import LLM_COMPLETE
from app.registry.ports import HandlerContext
from tests.engine.core.fakes import (
    DictSecrets,
    FakeLedger,
    FakeLlm,
    FakePorts,
    context,
    pipeline,
    text_reply,
    tool_reply,
)


class SlowLedger(FakeLedger):
    """A ledger that yields at each read and record, as one over the database does."""

    async def spent(self) -> tuple[float, int]:
        await asyncio.sleep(0)
        return await super().spent()

    async def record(self, *, step_id: str, reply: Any) -> None:
        await asyncio.sleep(0)
        await super().record(step_id=step_id, reply=reply)


STRING_ARGS = {
    "type": "object",
    "required": ["token"],
    "properties": {"token": {"type": "string"}},
    "additionalProperties": False,
}
ANY = {"type": "object"}


# Every argument may hold a secret (as an MCP tool's do).
ANYWHERE = SecretFields(paths=("/**",))


def capability(capability_id: str = "demo.echo", **changes: Any) -> tuple[Capability, list[Any]]:
    """A capability that records the arguments it was called with and answers them back."""
    seen: list[Any] = []

    async def handler(ctx: HandlerContext, args: dict[str, Any]) -> Any:
        seen.append(args)
        return {"echo": args}

    fields: dict[str, Any] = {
        "id": capability_id,
        "description": "Echoes its arguments.",
        "input_schema": ANY,
        "output_schema": ANY,
        "handler": handler,
        "secret_fields": ANYWHERE,
        **changes,
    }
    return Capability(**fields), seen


def suspend_rule(capability_id: str) -> NamedRule:
    async def require_decision(call: CapabilityCall, proceed: Proceed) -> Any:
        if call.capability_id == capability_id:
            raise Suspend("approval_required", call=call.id, capability_id=call.capability_id)
        return await proceed()

    return NamedRule("test_suspend", require_decision)


def llm_args(**changes: Any) -> dict[str, Any]:
    return {"model": "test/model", "messages": [{"role": "user", "content": "one two three"}], **changes}


class TestOrder:
    def test_default_rules_in_order(self) -> None:
        assert pipeline().names == [
            "resolve",
            "validate_arguments",
            "invocation_record",
            "grants",
            "permission_mode",
            "approval_grant",
            "drift_check",
            "drift_guard",
            "enforce_mode",
            "rate_limit",
            "model_allowed",
            "llm_daily_cap",
            "llm_budget",
            "llm_token_cap",
            "validate_output",
            "llm_ledger",
            "run_mode",
            "secrets",
            "execute",
        ]

    def test_with_rule_inserts_before_a_named_rule_and_leaves_the_original_alone(self) -> None:
        base = pipeline()
        extended = base.with_rule(suspend_rule("x.y"), before="model_allowed")
        assert extended.names.index("test_suspend") == extended.names.index("model_allowed") - 1
        assert "test_suspend" not in base.names

    def test_unknown_anchor_and_duplicate_names_are_refused(self) -> None:
        with pytest.raises(ValueError, match="is not in list"):
            pipeline().with_rule(suspend_rule("x.y"), before="no_such_rule")
        with pytest.raises(ValueError, match="unique"):
            pipeline().with_rule(NamedRule("execute", suspend_rule("x.y").rule), before="resolve")


class TestResolve:
    async def test_unknown_capability_fails_without_retry(self) -> None:
        ctx = context(pipeline())
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability("demo.missing", {})
        assert (failure.value.code, failure.value.retryable) == ("unknown_capability", False)

    async def test_a_capability_only_one_space_sees_resolves_only_there(self) -> None:
        private, seen = capability("crm.note")

        class OneSpace:
            async def capabilities(self, space_id: str | None) -> list[Capability]:
                return [private] if space_id == "space-1" else []

            async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
                return private if space_id == "space-1" and capability_id == private.id else None

        ctx = context(pipeline(sources=[OneSpace()]))
        assert await ctx.invoke_capability("crm.note", {"a": 1}) == {"echo": {"a": 1}}
        assert [c.id for c in await ctx.capabilities_matching(["crm.*"])] == ["crm.note"]
        ctx.space_id = "space-2"
        with pytest.raises(StepError, match="no capability"):
            await ctx.invoke_capability("crm.note", {})
        assert await ctx.capabilities_matching(["crm.*"]) == []
        assert len(seen) == 1


class TestArguments:
    async def test_invalid_arguments_never_reach_the_handler(self) -> None:
        cap, seen = capability(input_schema=STRING_ARGS)
        with pytest.raises(StepError) as failure:
            await context(pipeline(cap)).invoke_capability(cap.id, {"token": 5})
        assert (failure.value.code, failure.value.retryable) == ("invalid_arguments", False)
        assert seen == []

    async def test_a_bound_reference_stands_for_a_string_but_a_lookalike_does_not(self) -> None:
        cap, seen = capability(input_schema=STRING_ARGS)
        ctx = context(pipeline(cap, secrets=DictSecrets({"api": "s3cr3t-value"})))
        await ctx.invoke_capability(cap.id, {"token": SecretRef("api")})
        assert seen == [{"token": "s3cr3t-value"}]
        with pytest.raises(StepError, match="invalid arguments"):
            await ctx.invoke_capability(cap.id, {"token": {"$secret": "api"}})

    async def test_invalid_output_fails_the_call(self) -> None:
        cap, _ = capability(output_schema={"type": "string"})
        with pytest.raises(StepError) as failure:
            await context(pipeline(cap)).invoke_capability(cap.id, {})
        assert failure.value.code == "invalid_capability_output"


class TestLlmRules:
    async def test_a_model_not_allowed_is_refused_before_any_spending_is_read(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")], allowed=["other/model"]))
        with pytest.raises(StepError) as failure:
            await context(pipeline(LLM_COMPLETE), ports).invoke_capability("llm.complete", llm_args())
        assert (failure.value.code, failure.value.retryable) == ("model_not_allowed", False)
        assert ports.ledger.reads == 0
        assert ports.llm.calls == []

    async def test_budget_counts_the_worst_case_against_what_was_spent(self) -> None:
        # Worst case: 3 prompt tokens + 100 output tokens at $1 per thousand = $0.103.
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]), ledger=FakeLedger(cost=0.9))
        ctx = context(pipeline(LLM_COMPLETE), ports, limits=RunLimits(budget_cap_usd=1.0))
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability("llm.complete", llm_args(max_tokens=100))
        assert (failure.value.code, failure.value.retryable) == ("budget_exceeded", False)
        assert ports.llm.calls == []
        ports.ledger.cost = 0.8
        answer = await ctx.invoke_capability("llm.complete", llm_args(max_tokens=100))
        assert answer["text"] == "hi"

    async def test_concurrent_calls_reserve_their_worst_case_so_the_cap_holds(self) -> None:
        # Two iterations of a loop call at once; each alone fits ($0.8 + $0.103 <= $1), both would not.
        ports = FakePorts(llm=FakeLlm([text_reply("a"), text_reply("b")]), ledger=SlowLedger(cost=0.8))
        limits = RunLimits(budget_cap_usd=1.0)
        calls = [
            context(pipeline(LLM_COMPLETE), ports, limits=limits).invoke_capability(
                "llm.complete", llm_args(max_tokens=100)
            )
            for _ in range(2)
        ]
        answers = await asyncio.gather(*calls, return_exceptions=True)
        refused = [a for a in answers if isinstance(a, StepError)]
        assert [r.code for r in refused] == ["budget_exceeded"], answers
        assert len(ports.llm.calls) == 1, "the second call met the first one's reservation"
        # The reservation ends with its call: the next call is checked against what was spent only.
        ports.ledger.cost = 0.85
        answer = await context(pipeline(LLM_COMPLETE), ports, limits=limits).invoke_capability(
            "llm.complete", llm_args(max_tokens=100)
        )
        assert answer["text"] == "b"

    async def test_a_spent_day_refuses_the_next_model_call(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]), ledger=FakeLedger(today=0.5))
        ctx = context(pipeline(LLM_COMPLETE), ports, limits=RunLimits(daily_cost_cap_usd=0.5))
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability("llm.complete", llm_args())
        assert (failure.value.code, failure.value.retryable) == ("daily_budget_exceeded", False)
        assert ports.llm.calls == []
        ports.ledger.today = 0.49
        assert (await ctx.invoke_capability("llm.complete", llm_args()))["text"] == "hi"

    async def test_an_agent_turn_meets_the_daily_cap_at_the_same_rule(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]), ledger=FakeLedger(today=2.0))
        ctx = context(pipeline(), ports, limits=RunLimits(daily_cost_cap_usd=1.0))
        with pytest.raises(StepError) as failure:
            await ctx.llm_complete(
                model="test/model", messages=[{"role": "user", "content": "x"}], max_tokens=50
            )
        assert failure.value.code == "daily_budget_exceeded"
        assert ports.llm.calls == []

    async def test_token_cap_counts_prompt_and_output_cap(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]), ledger=FakeLedger(tokens=90))
        ctx = context(pipeline(LLM_COMPLETE), ports, limits=RunLimits(max_llm_tokens=100))
        with pytest.raises(StepError, match="token cap"):
            await ctx.invoke_capability("llm.complete", llm_args(max_tokens=8))
        assert (await ctx.invoke_capability("llm.complete", llm_args(max_tokens=7)))["text"] == "hi"

    async def test_the_ledger_records_what_a_metered_call_used(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi", tokens=12)]))
        await context(pipeline(LLM_COMPLETE), ports, step_id="ask").invoke_capability(
            "llm.complete", llm_args()
        )
        [(step_id, reply)] = ports.ledger.recorded
        assert (step_id, reply.input_tokens, reply.output_tokens, reply.model) == (
            "ask",
            12,
            12,
            "test/model",
        )

    async def test_calls_that_are_not_metered_read_no_ledger_and_record_nothing(self) -> None:
        cap, _ = capability()
        ports = FakePorts()
        ctx = context(pipeline(cap), ports, limits=RunLimits(budget_cap_usd=0.0, max_llm_tokens=0))
        await ctx.invoke_capability(cap.id, {})
        assert (ports.ledger.reads, ports.ledger.recorded) == (0, [])

    async def test_an_agent_model_turn_takes_the_same_caps(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]), ledger=FakeLedger(cost=0.99))
        ctx = context(pipeline(), ports, limits=RunLimits(budget_cap_usd=1.0))
        with pytest.raises(StepError, match=r"its \$1.0000 cap"):
            await ctx.llm_complete(
                model="test/model", messages=[{"role": "user", "content": "x"}], max_tokens=50
            )
        ports.ledger.cost = 0.0
        reply = await ctx.llm_complete(
            model="test/model", messages=[{"role": "user", "content": "x"}], max_tokens=50
        )
        assert reply.content == "hi"
        assert len(ports.ledger.recorded) == 1


class TestSecrets:
    async def test_a_missing_secret_fails_without_retry_and_without_calling(self) -> None:
        cap, seen = capability(input_schema=STRING_ARGS)
        ctx = context(pipeline(cap))
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability(cap.id, {"token": SecretRef("nope")})
        assert (failure.value.code, failure.value.retryable) == ("secret_missing", False)
        assert "nope" in failure.value.message
        assert seen == []

    async def test_the_value_reaches_the_handler_only_and_is_scrubbed_from_the_result(self) -> None:
        cap, seen = capability()
        vault = DictSecrets({"api": "s3cr3t-value"})
        args = {"token": SecretRef("api"), "again": [SecretRef("api")]}
        answer = await context(pipeline(cap, secrets=vault)).invoke_capability(cap.id, args)
        assert seen == [{"token": "s3cr3t-value", "again": ["s3cr3t-value"]}]
        assert answer == {"echo": {"token": "[REDACTED]", "again": ["[REDACTED]"]}}
        assert args == {"token": {"$secret": "api"}, "again": [{"$secret": "api"}]}
        assert vault.lookups == [("space-1", ["api"])]  # one lookup per call

    async def test_an_error_carrying_the_value_is_scrubbed(self) -> None:
        async def leaky(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            raise ValueError(f"server refused token {args['token']}")

        cap, _ = capability(input_schema=STRING_ARGS, handler=leaky)
        ctx = context(pipeline(cap, secrets=DictSecrets({"api": "s3cr3t-value"})))
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability(cap.id, {"token": SecretRef("api")})
        assert "s3cr3t-value" not in str(failure.value)
        assert failure.value.code == "action_error"

    async def test_references_are_never_sent_to_a_model(self) -> None:
        ports = FakePorts(llm=FakeLlm([text_reply("hi")]))
        vault = DictSecrets({"api": "s3cr3t-value"})
        ctx = context(pipeline(LLM_COMPLETE, secrets=vault), ports)
        messages = [{"role": "user", "content": SecretRef("api")}]
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability("llm.complete", llm_args(messages=messages))
        assert failure.value.code == "secret_not_allowed_here"
        assert failure.value.details == {"pointer": "/messages/0/content", "secret": "api"}
        assert ports.llm.calls == []
        assert vault.lookups == []  # refused before any value is read

    async def test_a_reference_outside_the_declared_fields_is_refused(self) -> None:
        cap, seen = capability(secret_fields=SecretFields(paths=("/headers/*", "/json/**")))
        ctx = context(pipeline(cap, secrets=DictSecrets({"api": "s3cr3t-value"})))
        await ctx.invoke_capability(cap.id, {"headers": {"X-Key": SecretRef("api")}})
        await ctx.invoke_capability(cap.id, {"json": SecretRef("api")})
        await ctx.invoke_capability(cap.id, {"json": {"a": [SecretRef("api")]}})
        for args, pointer in (
            ({"body": SecretRef("api")}, "/body"),
            ({"headers": {"a": {"b": SecretRef("api")}}}, "/headers/a/b"),
            ({"headers/x": SecretRef("api")}, "/headers~1x"),
        ):
            with pytest.raises(StepError) as failure:
                await ctx.invoke_capability(cap.id, args)
            assert failure.value.code == "secret_not_allowed_here"
            assert failure.value.details["pointer"] == pointer
        assert len(seen) == 3

    async def test_a_capability_without_fields_takes_no_secret(self) -> None:
        cap, seen = capability(secret_fields=SecretFields())
        ctx = context(pipeline(cap, secrets=DictSecrets({"api": "s3cr3t-value"})))
        with pytest.raises(StepError, match="does not send a secret at /value"):
            await ctx.invoke_capability(cap.id, {"value": SecretRef("api")})
        assert seen == []

    async def test_a_host_bound_secret_goes_only_to_its_hosts(self) -> None:
        def to(args: dict[str, Any]) -> str | None:
            return str(args["host"])

        cap, seen = capability(secret_fields=SecretFields(paths=("/key",), host=to))
        vault = DictSecrets({"api": "s3cr3t-value"}, hosts={"api": ("api.example.com", "*.example.org")})
        ctx = context(pipeline(cap, secrets=vault))
        await ctx.invoke_capability(cap.id, {"host": "API.example.com", "key": SecretRef("api")})
        await ctx.invoke_capability(cap.id, {"host": "eu.example.org", "key": SecretRef("api")})
        for host in ("evil.test", "example.org", "api.example.com.evil.test"):
            with pytest.raises(StepError) as failure:
                await ctx.invoke_capability(cap.id, {"host": host, "key": SecretRef("api")})
            assert failure.value.code == "secret_host_refused"
            assert "s3cr3t-value" not in str(failure.value)
        assert len(seen) == 2

    async def test_a_host_bound_secret_never_goes_to_a_local_process(self) -> None:
        cap, seen = capability(secret_fields=SecretFields(paths=("/**",), guarded=False))
        vault = DictSecrets({"api": "v1", "free": "v2"}, hosts={"api": ("api.example.com",)})
        ctx = context(pipeline(cap, secrets=vault))
        await ctx.invoke_capability(cap.id, {"key": SecretRef("free")})
        with pytest.raises(StepError) as failure:
            await ctx.invoke_capability(cap.id, {"key": SecretRef("api")})
        assert failure.value.code == "secret_host_refused"
        assert len(seen) == 1


class TestSuspend:
    async def test_a_rule_suspends_a_call_with_its_identity_and_nothing_executes(self) -> None:
        cap, seen = capability()
        ctx = context(pipeline(cap, extra=[(suspend_rule(cap.id), "model_allowed")]), step_id="s", attempt=2)
        with pytest.raises(Suspend) as signal:
            await ctx.invoke_capability(cap.id, {})
        assert signal.value.call.key == "run-1/s/2/0"
        assert seen == []

    async def test_calls_are_numbered_in_order_within_an_attempt(self) -> None:
        cap, _ = capability()
        ids: list[str] = []

        async def remember(call: CapabilityCall, proceed: Proceed) -> Any:
            ids.append(call.id.key)
            return await proceed()

        ctx = context(pipeline(cap, extra=[(NamedRule("remember", remember), "execute")]), attempt=3)
        await ctx.invoke_capability(cap.id, {})
        await ctx.invoke_capability(cap.id, {})
        assert ids == ["run-1/step/3/0", "run-1/step/3/1"]

    async def test_the_agent_loop_does_not_report_a_suspension_to_the_model(self) -> None:
        cap, seen = capability("crm.note")
        llm = FakeLlm([tool_reply("crm__note", "{}"), text_reply("done")])
        ctx = context(pipeline(cap, extra=[(suspend_rule("crm.note"), "model_allowed")]), FakePorts(llm=llm))
        with pytest.raises(Suspend):
            await AGENT_TASK.handler(ctx, {"prompt": "note it", "model": "test/model", "tools": ["crm.*"]})
        assert len(llm.calls) == 1  # the model was not told about a "failed" tool and asked again
        assert seen == []

    async def test_the_agent_loop_still_reports_tool_failures_to_the_model(self) -> None:
        async def broken(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            raise RuntimeError("down")

        # A read: the inferred mode lets an agent call it without approval.
        cap, _ = capability("crm.note", handler=broken, risk="read")
        llm = FakeLlm([tool_reply("crm__note", "{}"), text_reply("gave up")])
        ctx = context(pipeline(cap), FakePorts(llm=llm))
        answer = await AGENT_TASK.handler(
            ctx, {"prompt": "note it", "model": "test/model", "tools": ["crm.*"]}
        )
        assert answer == "gave up"
        assert '"tool_failed"' in llm.calls[1]["messages"][-1]["content"]
