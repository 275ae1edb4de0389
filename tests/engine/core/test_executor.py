"""The executor with a fake journal and a fake clock: retries, backoff, resume, stops and suspension."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from typing import Any

import pytest

from app.definitions.automation import AutomationDefinition, Step
from app.definitions.signals import StepError, Suspend
from app.engine.claim_ports import Outcome, Resume
from app.engine.context import ActionContext
from app.engine.executor import Executor
from app.engine.secret_refs import SecretRef
from app.engine.steps import RetryPolicy, on_failure_reserve
from app.registry import ActionDefinition, Registry
from app.registry.ports import HandlerContext
from app.security.redaction import redact
from tests.engine.core.fakes import START, FakeClock, FakeJournal, context, pipeline

ANY_CONFIG = {"type": "object"}
DEADLINE = START + timedelta(hours=1)


class Script:
    """Test actions whose behaviour each test scripts: failures to raise, then results."""

    def __init__(self) -> None:
        self.failures: dict[str, list[BaseException]] = {}
        self.calls: dict[str, list[dict[str, Any]]] = {}
        self.contexts: list[HandlerContext] = []
        self.registry: Registry[ActionDefinition] = Registry("action", ActionDefinition, lambda a: a.type)
        for name in ("echo", "work"):
            self.registry.register(self._action(name, ANY_CONFIG))
        self.registry.register(
            self._action(
                "call_api",
                {
                    "type": "object",
                    "properties": {"token": {"type": "string"}},
                    "additionalProperties": False,
                },
            )
        )

    def _action(self, name: str, schema: dict[str, Any]) -> ActionDefinition:
        async def handler(ctx: HandlerContext, config: dict[str, Any]) -> Any:
            self.calls.setdefault(name, []).append(config)
            self.contexts.append(ctx)
            pending = self.failures.get(name)
            if pending:
                raise pending.pop(0)
            return config

        return ActionDefinition(
            type=name,
            name=name,
            description=f"test action {name}",
            config_schema=schema,
            output_contract={},
            handler=handler,
            duration_class="fast",
        )

    def fail(self, name: str, *errors: BaseException) -> None:
        self.failures[name] = list(errors)


def definition(*steps: dict[str, Any], **execution: Any) -> AutomationDefinition:
    return AutomationDefinition.model_validate(
        {"schema_version": "1.0", "name": "unit", "plan": list(steps), "execution": execution}
    )


def step(step_id: str, action: str = "work", **fields: Any) -> dict[str, Any]:
    return {"step_id": step_id, "action": action, "config": fields.pop("config", {}), **fields}


def executor(script: Script, journal: FakeJournal, clock: FakeClock, **options: Any) -> Executor:
    built = pipeline()

    def make(step: Step, path: str, run: dict[str, Any], timeout: float, attempt: int) -> ActionContext:
        ctx = context(built, step_id=step.step_id, attempt=attempt, timeout=timeout)
        ctx.step_path = path
        return ctx

    return Executor(
        actions=script.registry,
        journal=journal,
        context_factory=make,
        clock=clock,
        rng=random.Random(7),
        **options,
    )


async def run(
    script: Script,
    document: AutomationDefinition,
    *,
    journal: FakeJournal | None = None,
    clock: FakeClock | None = None,
    resume: Resume | None = None,
    variables: dict[str, Any] | None = None,
    reserve: timedelta = timedelta(0),
    **options: Any,
) -> tuple[Outcome, FakeJournal, FakeClock]:
    journal = journal or FakeJournal()
    clock = clock or FakeClock()
    outcome = await executor(script, journal, clock, **options).run(
        document, variables or {"run": {"id": "run-1"}}, resume or Resume(), DEADLINE, reserve=reserve
    )
    return outcome, journal, clock


class TestRetries:
    async def test_exponential_backoff_waits_on_the_clock_until_success(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "try again"), StepError("flaky", "try again"))
        outcome, journal, clock = await run(
            script, definition(step("a"), max_retries=3, retry_backoff="exponential")
        )
        assert outcome.status == "succeeded"
        assert [(r.attempt, r.status) for r in journal.records] == [
            (1, "failed"),
            (2, "failed"),
            (3, "succeeded"),
        ]
        rng = random.Random(7)
        policy = RetryPolicy(3, "exponential")
        expected = policy.delay(1, rng) + policy.delay(2, rng)
        assert (clock.now() - START).total_seconds() == pytest.approx(expected)
        assert 2 * 0.8 + 4 * 0.8 <= expected <= 2 * 1.2 + 4 * 1.2

    async def test_a_wait_longer_than_the_inline_limit_goes_back_to_the_broker(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "try again"))
        outcome, journal, clock = await run(
            script, definition(step("a"), max_retries=3, retry_backoff="linear"), inline_retry_seconds=1.0
        )
        assert outcome.status == "retry_later"
        assert 1.6 <= outcome.retry_in_seconds <= 2.4
        assert clock.sleeps == []
        assert [r.status for r in journal.records] == ["failed"]

    async def test_a_step_s_retry_backoff_overrides_the_policy_s(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "try again"), StepError("flaky", "try again"))
        document = definition(
            step("a", retry_backoff="none"),
            step("b", action="echo"),
            max_retries=3,
            retry_backoff="exponential",
        )
        outcome, journal, clock = await run(script, document)
        assert outcome.status == "succeeded"
        assert [(r.step_id, r.attempt) for r in journal.records] == [("a", 1), ("a", 2), ("a", 3), ("b", 1)]
        assert clock.now() == START, "no backoff: the retries follow at once"

    async def test_a_step_s_backoff_applies_where_the_policy_has_none(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "try again"))
        document = definition(step("a", retry_backoff="linear"), max_retries=1, retry_backoff="none")
        outcome, _, _ = await run(script, document, inline_retry_seconds=1.0)
        assert outcome.status == "retry_later", (
            "the step's linear backoff (about 2 s) beats the policy's none"
        )
        assert 1.6 <= outcome.retry_in_seconds <= 2.4

    async def test_retries_exhausted_fail_the_run_with_the_last_error(self) -> None:
        script = Script()
        script.fail("work", *(StepError("flaky", f"attempt {n}") for n in (1, 2, 3)))
        outcome, journal, _ = await run(script, definition(step("a"), max_retries=2))
        assert (outcome.status, outcome.failed_step_id) == ("failed", "a")
        assert outcome.error is not None
        assert outcome.error["message"] == "attempt 3"
        assert journal.failed_plan is not None
        assert journal.failed_plan[0] == "a"

    async def test_an_error_that_cannot_be_retried_is_not(self) -> None:
        script = Script()
        script.fail("work", StepError("fatal", "no", retryable=False))
        outcome, journal, _ = await run(script, definition(step("a"), max_retries=5))
        assert outcome.status == "failed"
        assert len(journal.records) == 1

    async def test_a_handler_exception_is_a_retryable_action_error_without_traceback(self) -> None:
        script = Script()
        script.fail("work", RuntimeError("socket closed\nTraceback (most recent call last)"))
        outcome, journal, _ = await run(script, definition(step("a"), max_retries=1))
        assert outcome.status == "succeeded"
        error = journal.records[0].error
        assert error is not None
        assert error["code"] == "action_error"
        assert error["retryable"] is True

    async def test_on_failure_steps_see_the_error(self) -> None:
        script = Script()
        script.fail("work", StepError("fatal", "broken", retryable=False))
        document = definition(
            step("a"),
            on_failure=[
                step("tell", "echo", config={"what": "{{ run.failed_step_id }}: {{ run.error.code }}"})
            ],
        )
        outcome, _, _ = await run(script, document)
        assert outcome.status == "failed"
        assert script.calls["echo"] == [{"what": "a: fatal"}]


class TestStops:
    async def test_cancel_stops_at_the_next_step_boundary(self) -> None:
        script = Script()
        outcome, journal, _ = await run(
            script, definition(step("a"), step("b")), journal=FakeJournal(stop_after=1)
        )
        assert outcome.status == "cancelled"
        assert [r.step_id for r in journal.records] == ["a"]

    async def test_a_lost_lease_ends_the_claim_quietly(self) -> None:
        script = Script()
        outcome, _, _ = await run(
            script, definition(step("a"), step("b")), journal=FakeJournal(stop_after=1, stop="lease_lost")
        )
        assert outcome.status == "lease_lost"

    async def test_the_run_deadline_times_the_run_out_during_a_retry_wait(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "again"), StepError("flaky", "again"))
        clock = FakeClock(START + timedelta(hours=1) - timedelta(seconds=1))
        outcome, _, _ = await run(
            script, definition(step("a"), max_retries=3, retry_backoff="linear"), clock=clock
        )
        assert outcome.status == "timed_out"

    async def test_a_false_when_skips_the_step(self) -> None:
        script = Script()
        outcome, journal, _ = await run(script, definition(step("a", when="{{ 1 > 2 }}")))
        assert outcome.status == "succeeded"
        assert [r.status for r in journal.records] == ["skipped"]
        assert "work" not in script.calls


def _slow_action(name: str) -> ActionDefinition:
    async def handler(ctx: HandlerContext, config: dict[str, Any]) -> Any:
        await asyncio.sleep(30)  # cut short by the run's time, never reached in full
        return config

    return ActionDefinition(
        type=name,
        name=name,
        description="an action slower than the run's time",
        config_schema=ANY_CONFIG,
        output_contract={},
        handler=handler,
        duration_class="fast",
    )


RESERVE = timedelta(seconds=60)
ALERT = step("alert", "echo", config={"code": "{{ run.error.code }}", "step": "{{ run.failed_step_id }}"})


class TestTimeoutRunsOnFailure:
    async def test_a_plan_out_of_time_runs_on_failure_in_the_reserve_and_times_out(self) -> None:
        script = Script()
        script.registry.register(_slow_action("slow"))
        # The plan's own time ends a moment from now; the reserve is still ahead.
        clock = FakeClock(DEADLINE - RESERVE - timedelta(milliseconds=50))
        document = definition(step("a", "slow"), step("b"), on_failure=[ALERT])
        outcome, journal, _ = await run(script, document, clock=clock, reserve=RESERVE)
        assert outcome.status == "timed_out"
        assert outcome.error is not None
        assert outcome.error["code"] == "run_timeout"
        assert outcome.failed_step_id == "a"
        assert [(r.phase, r.step_id, r.status) for r in journal.records] == [
            ("plan", "a", "failed"),
            ("on_failure", "alert", "succeeded"),
        ]
        assert journal.records[0].error == {"code": "run_timeout", "message": "the run's time ran out"}
        assert journal.failed_plan is not None
        assert journal.failed_plan[0] == "a"
        assert script.calls["echo"] == [{"code": "run_timeout", "step": "a"}]
        assert "work" not in script.calls

    async def test_a_plan_resumed_after_its_time_goes_straight_to_on_failure(self) -> None:
        script = Script()
        clock = FakeClock(DEADLINE - RESERVE + timedelta(seconds=1))
        outcome, journal, _ = await run(
            script, definition(step("a"), on_failure=[ALERT]), clock=clock, reserve=RESERVE
        )
        assert outcome.status == "timed_out"
        assert "work" not in script.calls
        assert [(r.phase, r.step_id) for r in journal.records] == [("on_failure", "alert")]

    async def test_a_resumed_timeout_stays_a_timeout(self) -> None:
        script = Script()
        resume = Resume(plan_error={"code": "run_timeout", "message": "late"}, failed_step_id="a")
        outcome, _, _ = await run(script, definition(step("a"), on_failure=[ALERT]), resume=resume)
        assert outcome.status == "timed_out"
        assert script.calls["echo"] == [{"code": "run_timeout", "step": "a"}]

    async def test_on_failure_past_the_whole_deadline_is_cut_too(self) -> None:
        script = Script()
        clock = FakeClock(DEADLINE + timedelta(seconds=1))
        outcome, journal, _ = await run(
            script, definition(step("a"), on_failure=[ALERT]), clock=clock, reserve=RESERVE
        )
        assert outcome.status == "timed_out"
        assert journal.records == []

    async def test_without_on_failure_the_plan_keeps_all_its_time(self) -> None:
        script = Script()
        clock = FakeClock(DEADLINE - RESERVE + timedelta(seconds=1))
        outcome, _, _ = await run(script, definition(step("a")), clock=clock, reserve=RESERVE)
        assert outcome.status == "succeeded"

    async def test_a_cancel_still_wins_over_the_plan_timeout(self) -> None:
        script = Script()
        clock = FakeClock(DEADLINE - RESERVE + timedelta(seconds=1))
        outcome, journal, _ = await run(
            script,
            definition(step("a"), on_failure=[ALERT]),
            clock=clock,
            reserve=RESERVE,
            journal=FakeJournal(stop_after=0),
        )
        assert outcome.status == "cancelled"
        assert journal.records == []


class TestOnFailureReserve:
    @pytest.mark.parametrize(
        ("timeout", "fraction", "floor", "expected"),
        [
            (600, 0.1, 5, 60.0),  # the share
            (20, 0.1, 5, 5.0),  # the floor
            (4, 0.1, 5, 2.0),  # never more than half the run
            (600, 0.0, 0, 0.0),  # switched off
        ],
    )
    def test_share_floor_and_cap(self, timeout: int, fraction: float, floor: float, expected: float) -> None:
        assert on_failure_reserve(timeout, fraction, floor) == expected


class TestResume:
    async def test_done_steps_are_not_run_again_and_their_outputs_are_restored(self) -> None:
        script = Script()
        resume = Resume(outputs={("plan", "a"): {"n": 41}}, done={("plan", "a")})
        document = definition(
            step("a", output_as="first"),
            step("b", "echo", config={"n": "{{ first.n + 1 }}"}, output_as="second"),
        )
        outcome, journal, _ = await run(script, document, resume=resume)
        assert outcome.status == "succeeded"
        assert "work" not in script.calls
        assert [r.step_id for r in journal.records] == ["b"]
        assert outcome.output == {"first": {"n": 41}, "second": {"n": 42}}

    async def test_attempt_numbers_continue_from_earlier_claims(self) -> None:
        script = Script()
        outcome, journal, _ = await run(
            script, definition(step("a"), max_retries=5), resume=Resume(failed_attempts={("plan", "a"): 2})
        )
        assert outcome.status == "succeeded"
        assert [r.attempt for r in journal.records] == [3]

    async def test_a_failed_plan_resumes_in_its_on_failure_steps(self) -> None:
        script = Script()
        resume = Resume(plan_error={"code": "fatal", "message": "x"}, failed_step_id="a")
        document = definition(
            step("a"), on_failure=[step("tell", "echo", config={"c": "{{ run.error.code }}"})]
        )
        outcome, _, _ = await run(script, document, resume=resume)
        assert (outcome.status, outcome.failed_step_id) == ("failed", "a")
        assert "work" not in script.calls
        assert script.calls["echo"] == [{"c": "fatal"}]


class TestSuspend:
    async def test_a_suspension_ends_the_claim_with_its_own_outcome(self) -> None:
        script = Script()
        identity = context(pipeline(), step_id="a").next_call_id()
        script.fail("work", Suspend("approval_required", call=identity, capability_id="crm.note"))
        document = definition(step("a"), step("b", "echo"), max_retries=3, on_failure=[step("tell", "echo")])
        outcome, journal, _ = await run(script, document)
        assert outcome.status == "suspended"
        assert outcome.suspension == {
            "reason": "approval_required",
            "capability": "crm.note",
            "call": {"run_id": "run-1", "step_id": "a", "attempt": 1, "index": 0},
        }
        assert [(r.step_id, r.status) for r in journal.records] == [("a", "suspended")]
        assert journal.failed_plan is None
        assert "echo" not in script.calls

    async def test_a_handler_catching_exception_cannot_swallow_a_suspension(self) -> None:
        script = Script()
        identity = context(pipeline(), step_id="a").next_call_id()

        async def careless(ctx: HandlerContext, config: dict[str, Any]) -> Any:
            try:
                raise Suspend("approval_required", call=identity, capability_id="crm.note")
            except Exception:
                return "swallowed"

        script.registry.register(
            ActionDefinition(
                type="careless",
                name="careless",
                description="catches everything",
                config_schema=ANY_CONFIG,
                output_contract={},
                handler=careless,
                duration_class="fast",
            )
        )
        outcome, _, _ = await run(script, definition(step("a", "careless")))
        assert outcome.status == "suspended"


class TestValues:
    async def test_outputs_are_scrubbed_before_they_are_recorded_and_bound(self) -> None:
        script = Script()
        document = definition(
            step("login", "echo", config={"access_token": "tok-123456789", "user": "ada"}, output_as="login"),
            step("use", "echo", config={"seen": "{{ login.access_token }}"}),
        )
        outcome, journal, _ = await run(script, document, scrub=redact)
        assert outcome.status == "succeeded"
        assert journal.records[0].output == {"access_token": "[REDACTED]", "user": "ada"}
        assert script.calls["echo"][1] == {"seen": "[REDACTED]"}

    async def test_only_references_the_definition_wrote_are_bound(self) -> None:
        script = Script()
        document = definition(step("a", "call_api", config={"token": {"$secret": "api_key"}}))
        outcome, _, _ = await run(script, document)
        assert outcome.status == "succeeded"
        assert isinstance(script.calls["call_api"][0]["token"], SecretRef)

        # The same shape arriving as data through a template is plain data, and not a string.
        script = Script()
        document = definition(step("a", "call_api", config={"token": "{{ trigger.ref }}"}))
        outcome, journal, _ = await run(
            script, document, variables={"run": {"id": "r"}, "trigger": {"ref": {"$secret": "api_key"}}}
        )
        assert outcome.status == "failed"
        error = journal.records[0].error
        assert error is not None
        assert error["code"] == "invalid_config"
        assert "call_api" not in script.calls

    async def test_each_attempt_gets_a_context_with_its_attempt_number(self) -> None:
        script = Script()
        script.fail("work", StepError("flaky", "again"))
        await run(script, definition(step("a"), max_retries=1))
        assert [ctx.next_call_id().attempt for ctx in script.contexts] == [1, 2]  # type: ignore[attr-defined]
