"""Run modes: which calls a dry or verify run holds back, the `run_mode` rule, the executor's output."""

from __future__ import annotations

from typing import Any

import pytest

from app.definitions.automation import AutomationDefinition
from app.definitions.run_modes import suppresses
from app.definitions.signals import Suppressed
from app.engine.claim_ports import Resume
from app.engine.executor import Executor
from app.registry import actions
from app.registry.builtin_capabilities import HTTP_REQUEST, NOTIFY_SEND
from app.registry.builtin_kv import KV_GET, KV_SET
from app.registry.builtin_llm import LLM_COMPLETE
from tests.engine.core.fakes import START, FakeClock, FakeJournal, FakePorts, context, pipeline, text_reply

ALL = (HTTP_REQUEST, NOTIFY_SEND, KV_GET, KV_SET, LLM_COMPLETE)


class TestWhatEachModeHoldsBack:
    @pytest.mark.parametrize(
        ("mode", "effect", "held"),
        [
            ("live", "external_write", False),
            ("live", "internal_write", False),
            ("dry_run", "read", False),
            ("dry_run", "internal_write", True),
            ("dry_run", "external_write", True),
            ("verify", "read", False),
            ("verify", "internal_write", False),
            ("verify", "external_write", True),
        ],
    )
    def test_effects(self, mode: str, effect: Any, held: bool) -> None:
        assert suppresses(mode, effect) is held

    def test_model_calls_run_unless_skipped_and_always_in_a_live_run(self) -> None:
        assert not suppresses("dry_run", "external_write", metered=True)
        assert suppresses("dry_run", "external_write", metered=True, llm="skip")
        assert suppresses("verify", "external_write", metered=True, llm="skip")
        assert not suppresses("live", "external_write", metered=True, llm="skip")

    @pytest.mark.parametrize(
        ("method", "effect"),
        [
            ("GET", "read"),
            ("HEAD", "read"),
            ("get", "read"),
            ("POST", "external_write"),
            ("DELETE", "external_write"),
        ],
    )
    def test_an_http_call_reads_only_with_get_or_head(self, method: str, effect: str) -> None:
        assert HTTP_REQUEST.effect_of({"url": "https://x.test", "method": method}) == effect

    def test_http_without_a_method_is_a_get_and_kv_writes_are_internal(self) -> None:
        assert HTTP_REQUEST.effect_of({"url": "https://x.test"}) == "read"
        assert KV_SET.effect_of({"key": "k", "value": 1}) == "internal_write"
        assert KV_GET.effect_of({"key": "k"}) == "read"
        assert NOTIFY_SEND.effect_of({"title": "t"}) == "external_write"


class TestTheRule:
    async def test_a_dry_run_sends_the_get_and_holds_the_post_back(self) -> None:
        ports = FakePorts()
        ctx = context(pipeline(*ALL), ports, mode="dry_run")
        await ctx.invoke_capability("http.request", {"url": "https://x.test/a"})
        with pytest.raises(Suppressed) as held:
            await ctx.invoke_capability(
                "http.request", {"method": "POST", "url": "https://x.test/b", "json": [1]}
            )
        assert [r["url"] for r in ports.http.requests] == ["https://x.test/a"]
        assert held.value.as_output() == {
            "dry_run": True,
            "would_call": "http.request",
            "params": {"method": "POST", "url": "https://x.test/b", "json": [1]},
        }
        (record,) = ctx.suppressed
        assert record["capability"] == "http.request"
        assert record["mode"] == "dry_run"
        assert record["call"]["index"] == 1

    async def test_verify_writes_state_for_real_and_holds_notifications_back(self) -> None:
        ports = FakePorts()
        ctx = context(pipeline(*ALL), ports, mode="verify")
        await ctx.invoke_capability("kv.set", {"key": "seen", "value": [1]})
        with pytest.raises(Suppressed):
            await ctx.invoke_capability("notify.send", {"title": "hello"})
        assert ports.kv.values == {"seen": [1]}
        assert ports.notifications.sent == []

    async def test_a_dry_run_holds_state_writes_back_but_reads_state(self) -> None:
        ports = FakePorts()
        ports.kv.values["seen"] = [7]
        ctx = context(pipeline(*ALL), ports, mode="dry_run")
        assert (await ctx.invoke_capability("kv.get", {"key": "seen"}))["value"] == [7]
        with pytest.raises(Suppressed):
            await ctx.invoke_capability("kv.set", {"key": "seen", "value": []})
        assert ports.kv.values == {"seen": [7]}

    async def test_bad_arguments_fail_in_a_dry_run_as_they_would_live(self) -> None:
        ctx = context(pipeline(*ALL), mode="dry_run")
        with pytest.raises(Exception, match="invalid arguments"):
            await ctx.invoke_capability("http.request", {"method": "POST"})
        assert ctx.suppressed == []

    async def test_llm_skip_holds_the_model_call_back(self) -> None:
        ports = FakePorts()
        ctx = context(pipeline(*ALL), ports, mode="dry_run", llm="skip")
        with pytest.raises(Suppressed):
            await ctx.invoke_capability(
                "llm.complete", {"model": "test/model", "messages": [{"role": "user", "content": "hi"}]}
            )
        assert ports.llm.calls == []

    async def test_a_dry_run_calls_its_model_unless_told_to_skip(self) -> None:
        ports = FakePorts()
        ports.llm.replies.append(text_reply("hello"))
        ctx = context(pipeline(*ALL), ports, mode="dry_run")
        answer = await ctx.invoke_capability(
            "llm.complete", {"model": "test/model", "messages": [{"role": "user", "content": "hi"}]}
        )
        assert answer["text"] == "hello"
        assert len(ports.llm.calls) == 1

    async def test_a_live_run_holds_nothing_back(self) -> None:
        ports = FakePorts()
        ctx = context(pipeline(*ALL), ports)
        await ctx.invoke_capability("http.request", {"method": "POST", "url": "https://x.test/b"})
        assert len(ports.http.requests) == 1
        assert ctx.suppressed == []


class TestTheExecutor:
    async def test_a_held_back_step_succeeds_with_what_it_would_have_sent_and_later_steps_render(
        self,
    ) -> None:
        built = pipeline(*ALL)
        ports = FakePorts()
        journal = FakeJournal()
        executor = Executor(
            actions=actions,
            journal=journal,
            context_factory=lambda step, path, run, timeout, attempt: context(
                built, ports, step_id=step.step_id, attempt=attempt, mode="dry_run"
            ),
            clock=FakeClock(),
        )
        definition = AutomationDefinition.model_validate(
            {
                "name": "t",
                "plan": [
                    {
                        "step_id": "post",
                        "action": "http_request",
                        "config": {"method": "POST", "url": "https://x.test/{{ inputs.n }}"},
                        "output_as": "posted",
                    },
                    {
                        "step_id": "after",
                        "action": "transform_data",
                        "config": {"output": "{{ posted.would_call }} {{ posted.params.url }}"},
                        "output_as": "after",
                    },
                ],
            }
        )
        outcome = await executor.run(
            definition, {"inputs": {"n": 3}, "run": {}}, Resume(), START.replace(year=2030)
        )
        assert outcome.status == "succeeded", outcome
        assert outcome.output["after"] == "http.request https://x.test/3"
        (post,) = journal.attempts("post")
        assert post.status == "succeeded"
        assert post.output["dry_run"] is True
        assert post.suppressed is not None
        assert post.suppressed[0]["params"]["url"] == "https://x.test/3"
        assert journal.attempts("after")[0].suppressed is None
        assert ports.http.requests == []
