"""Admission rules one at a time and in their policy's order, with facts from a fake (no database)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.definitions.automation import AutomationDefinition
from app.definitions.run_states import RunStatus
from app.engine.caps import OperatorCaps
from app.errors import Conflict, ErrorDetail
from app.persistence.models import AutomationStatus
from app.services.runs import admission
from app.services.runs.admission import (
    ADMISSION_POLICY,
    FIRE_GUARDS,
    BudgetCap,
    ConcurrencyPolicy,
    DailyCostCap,
    Fire,
    GlobalConcurrencyCap,
    RefusedByCaller,
    TriggerInputsValid,
    Verdict,
    admit,
    refusal,
)

TRIGGER_KINDS = ("schedule", "webhook", "event")


@dataclass
class Facts:
    """Scripted answers; `asked` records which questions a rule put, in order."""

    in_flight_runs: int = 0
    spent: float = 0.0
    average: float | None = None
    slots: int = 0
    asked: list[str] = field(default_factory=list)

    async def in_flight(self, automation_id: uuid.UUID) -> int:
        self.asked.append("in_flight")
        return self.in_flight_runs

    async def spent_today(self, automation_id: uuid.UUID) -> float:
        self.asked.append("spent_today")
        return self.spent

    async def average_cost(self, automation_id: uuid.UUID) -> float | None:
        self.asked.append("average_cost")
        return self.average

    async def slots_taken(self) -> int:
        self.asked.append("slots_taken")
        return self.slots


def _definition(execution: dict[str, Any] | None = None, plan: list[dict[str, Any]] | None = None) -> Any:
    return AutomationDefinition.model_validate(
        {
            "schema_version": "1.0",
            "name": "admission",
            "plan": plan or [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}],
            "execution": execution or {},
        }
    )


def _fire(facts: Facts, execution: dict[str, Any] | None = None, **changes: Any) -> Fire:
    return Fire(automation_id=uuid.uuid4(), definition=_definition(execution), facts=facts, **changes)


class TestFireGuards:
    @pytest.mark.parametrize("kind", TRIGGER_KINDS)
    def test_a_trigger_fire_on_a_paused_automation_is_refused(self, kind: Any) -> None:
        error = refusal(AutomationStatus.paused, kind)
        assert isinstance(error, Conflict)
        assert error.code == "automation_paused"

    def test_run_now_on_a_paused_automation_is_let_through(self) -> None:
        assert refusal(AutomationStatus.paused, "manual") is None

    @pytest.mark.parametrize("kind", ["manual", *TRIGGER_KINDS])
    def test_an_archived_automation_refuses_every_fire(self, kind: Any) -> None:
        error = refusal(AutomationStatus.archived, kind)
        assert isinstance(error, Conflict)
        assert error.code == "automation_archived"

    @pytest.mark.parametrize("kind", ["manual", *TRIGGER_KINDS])
    def test_an_active_automation_accepts_every_fire(self, kind: Any) -> None:
        assert refusal(AutomationStatus.active, kind) is None

    def test_guards_in_order(self) -> None:
        assert [guard.name for guard in FIRE_GUARDS] == ["not_archived", "triggers_need_active"]


class TestRefusedByCaller:
    async def test_a_reason_drops_with_it(self) -> None:
        verdict = await RefusedByCaller().decide(_fire(Facts(), refuse_reason="chain_depth_exceeded"))
        assert verdict == Verdict(RunStatus.dropped, "chain_depth_exceeded")

    async def test_no_reason_no_verdict(self) -> None:
        assert await RefusedByCaller().decide(_fire(Facts())) is None


class TestTriggerInputsValid:
    async def test_problems_drop_with_each_pointer(self) -> None:
        problems = [ErrorDetail("/inputs/a", "is required"), ErrorDetail("/inputs/b", "is not a string")]
        verdict = await TriggerInputsValid().decide(_fire(Facts(), input_problems=problems))
        assert verdict == Verdict(
            RunStatus.dropped, "invalid_inputs: /inputs/a is required; /inputs/b is not a string"
        )

    async def test_no_problems_no_verdict(self) -> None:
        assert await TriggerInputsValid().decide(_fire(Facts())) is None


class TestConcurrencyPolicy:
    async def test_allow_parallel_asks_nothing(self) -> None:
        facts = Facts(in_flight_runs=5)
        assert await ConcurrencyPolicy().decide(_fire(facts, {"concurrency": "allow_parallel"})) is None
        assert facts.asked == []

    async def test_drop_if_running_drops_while_one_is_in_flight(self) -> None:
        facts = Facts(in_flight_runs=1)
        verdict = await ConcurrencyPolicy().decide(_fire(facts, {"concurrency": "drop_if_running"}))
        assert verdict == Verdict(RunStatus.dropped, "already_running")

    async def test_queue_queues_while_one_is_in_flight(self) -> None:
        facts = Facts(in_flight_runs=2)
        verdict = await ConcurrencyPolicy().decide(_fire(facts, {"concurrency": "queue"}))
        assert verdict == Verdict(RunStatus.queued, "waiting_for_previous_run")

    @pytest.mark.parametrize("policy", ["drop_if_running", "queue"])
    async def test_nothing_in_flight_lets_it_start(self, policy: str) -> None:
        facts = Facts(in_flight_runs=0)
        assert await ConcurrencyPolicy().decide(_fire(facts, {"concurrency": policy})) is None
        assert facts.asked == ["in_flight"]

    @pytest.mark.parametrize("mode", ["dry_run", "verify"])
    @pytest.mark.parametrize("policy", ["drop_if_running", "queue"])
    async def test_a_try_out_is_outside_the_policy(self, policy: str, mode: str) -> None:
        facts = Facts(in_flight_runs=3)
        assert await ConcurrencyPolicy().decide(_fire(facts, {"concurrency": policy}, mode=mode)) is None
        assert facts.asked == []


class TestDailyCostCap:
    async def test_no_cap_asks_nothing(self) -> None:
        facts = Facts(spent=100.0)
        assert await DailyCostCap().decide(_fire(facts)) is None
        assert facts.asked == []

    async def test_spent_up_to_the_cap_drops(self) -> None:
        verdict = await DailyCostCap().decide(_fire(Facts(spent=2.0), {"cost_cap_daily_usd": 2.0}))
        assert verdict is not None
        assert verdict.status is RunStatus.dropped
        assert verdict.reason == "daily_cost_cap_reached: $2.0000 spent today (UTC), cap $2.0000"

    async def test_under_the_cap_passes(self) -> None:
        assert await DailyCostCap().decide(_fire(Facts(spent=1.99), {"cost_cap_daily_usd": 2.0})) is None


class TestBudgetCap:
    async def test_no_cap_asks_nothing(self) -> None:
        facts = Facts(average=100.0)
        assert await BudgetCap().decide(_fire(facts)) is None
        assert facts.asked == []

    async def test_recent_average_over_the_cap_drops(self) -> None:
        verdict = await BudgetCap().decide(_fire(Facts(average=0.5), {"budget_cap_usd": 0.25}))
        assert verdict == Verdict(
            RunStatus.dropped, "budget_exceeded: recent runs average $0.5000, over the cap $0.2500"
        )

    async def test_average_at_the_cap_passes(self) -> None:
        assert await BudgetCap().decide(_fire(Facts(average=0.25), {"budget_cap_usd": 0.25})) is None

    async def test_no_history_prices_the_llm_steps(self) -> None:
        definition = _definition(
            {"budget_cap_usd": 0.01},
            [
                {
                    "step_id": "ask",
                    "action": "llm_complete",
                    "config": {"model": "openai/x", "prompt": "hi", "max_tokens": 100},
                }
            ],
        )
        priced: list[tuple[str, int, int]] = []

        def pricer(model: str, prompt_tokens: int, max_tokens: int) -> float | None:
            priced.append((model, prompt_tokens, max_tokens))
            return 0.02

        fire = Fire(automation_id=uuid.uuid4(), definition=definition, facts=Facts(), pricer=pricer)
        verdict = await BudgetCap().decide(fire)
        assert priced == [("openai/x", 0, 100)], "no system and no messages: an empty prompt"
        assert verdict == Verdict(
            RunStatus.dropped, "budget_exceeded: its LLM steps could cost $0.0200, over the cap $0.0100"
        )

    async def test_no_history_and_no_price_passes(self) -> None:
        assert await BudgetCap().decide(_fire(Facts(), {"budget_cap_usd": 0.01})) is None


class TestGlobalConcurrencyCap:
    async def test_no_cap_asks_nothing(self) -> None:
        facts = Facts(slots=1000)
        assert await GlobalConcurrencyCap().decide(_fire(facts)) is None
        assert facts.asked == []

    async def test_full_queues(self) -> None:
        verdict = await GlobalConcurrencyCap().decide(_fire(Facts(slots=2), max_concurrent_runs=2))
        assert verdict == Verdict(RunStatus.queued, "global_concurrency_cap")

    async def test_a_free_slot_passes(self) -> None:
        assert await GlobalConcurrencyCap().decide(_fire(Facts(slots=1), max_concurrent_runs=2)) is None


class TestPolicy:
    def test_rules_in_order(self) -> None:
        assert [rule.name for rule in ADMISSION_POLICY] == [
            "refused_by_caller",
            "trigger_inputs_valid",
            "concurrency_policy",
            "daily_cost_cap",
            "budget_cap",
            "global_concurrency_cap",
        ]

    async def test_nothing_objects_pending_and_no_query_without_settings(self) -> None:
        facts = Facts()
        assert await admit(_fire(facts)) == Verdict(RunStatus.pending)
        assert facts.asked == []

    async def test_first_verdict_wins_and_later_rules_are_not_asked(self) -> None:
        facts = Facts(in_flight_runs=1, spent=10.0, slots=10)
        execution = {"concurrency": "drop_if_running", "cost_cap_daily_usd": 1.0}
        verdict = await admit(_fire(facts, execution, max_concurrent_runs=1))
        assert verdict == Verdict(RunStatus.dropped, "already_running")
        assert facts.asked == ["in_flight"], "the daily cap and the global cap were not asked"

    async def test_a_dropping_cap_comes_before_the_global_cap_lock(self) -> None:
        facts = Facts(spent=10.0, slots=10)
        verdict = await admit(_fire(facts, {"cost_cap_daily_usd": 1.0}, max_concurrent_runs=1))
        assert verdict is not None
        assert verdict.status is RunStatus.dropped
        assert "slots_taken" not in facts.asked

    async def test_every_rule_passing_reaches_the_global_cap(self) -> None:
        facts = Facts(in_flight_runs=0, spent=0.0, average=0.0, slots=3)
        execution = {"concurrency": "queue", "cost_cap_daily_usd": 1.0, "budget_cap_usd": 1.0}
        verdict = await admit(_fire(facts, execution, max_concurrent_runs=3))
        assert verdict == Verdict(RunStatus.queued, "global_concurrency_cap")
        assert facts.asked == ["in_flight", "spent_today", "average_cost", "slots_taken"]

    async def test_a_custom_policy_is_just_a_list(self) -> None:
        class AlwaysQueue:
            name = "always_queue"

            async def decide(self, fire: Fire) -> Verdict | None:
                return Verdict(RunStatus.queued, "maintenance")

        verdict = await admit(_fire(Facts()), [*admission.ADMISSION_POLICY, AlwaysQueue()])
        assert verdict == Verdict(RunStatus.queued, "maintenance")


def _agent_plan(**config: Any) -> list[dict[str, Any]]:
    return [
        {
            "step_id": "think",
            "action": "agent_task",
            "config": {"prompt": "Do it.", "model": "openai/x", **config},
        }
    ]


def _per_thousand(model: str, prompt_tokens: int, max_tokens: int) -> float:
    return (prompt_tokens + max_tokens) / 1000


class TestOperatorDefaults:
    async def test_a_plan_without_llm_steps_asks_no_ledger_question(self) -> None:
        facts = Facts(spent=5.0)
        assert await DailyCostCap().decide(_fire(facts)) is None
        assert await BudgetCap().decide(_fire(facts, pricer=_per_thousand)) is None
        assert facts.asked == []

    async def test_an_llm_plan_is_held_to_the_operator_default(self) -> None:
        facts = Facts(spent=1.0)
        fire = Fire(uuid.uuid4(), _definition(None, _agent_plan()), facts, caps=OperatorCaps(1.0, 5.0))
        verdict = await DailyCostCap().decide(fire)
        assert verdict is not None
        assert verdict.reason is not None
        assert verdict.reason.startswith("daily_cost_cap_reached")

    async def test_the_automations_own_cap_wins_over_the_default(self) -> None:
        facts = Facts(spent=1.5)
        definition = _definition({"cost_cap_daily_usd": 2.0}, _agent_plan())
        assert await DailyCostCap().decide(Fire(uuid.uuid4(), definition, facts)) is None


class TestEstimateAgainstTheDay:
    async def test_a_costly_agent_is_refused_when_the_day_cannot_afford_it(self) -> None:
        definition = _definition(None, _agent_plan(prompt="x" * 4000, max_iterations=20, max_tokens=500))
        fire = Fire(uuid.uuid4(), definition, Facts(spent=0.5), pricer=_per_thousand)
        verdict = await BudgetCap().decide(fire)
        assert verdict is not None
        assert verdict.status is RunStatus.dropped
        assert verdict.reason is not None
        assert verdict.reason.startswith("budget_exceeded")
        assert "left of today's $1.0000 cap" in verdict.reason

    async def test_a_small_agent_fits(self) -> None:
        definition = _definition(None, _agent_plan(max_iterations=1, max_tokens=50))
        fire = Fire(uuid.uuid4(), definition, Facts(spent=0.5), pricer=_per_thousand)
        assert await BudgetCap().decide(fire) is None

    async def test_history_is_measured_against_what_is_left(self) -> None:
        definition = _definition(None, _agent_plan())
        facts = Facts(spent=0.9, average=0.2)
        verdict = await BudgetCap().decide(Fire(uuid.uuid4(), definition, facts, pricer=_per_thousand))
        assert verdict is not None
        assert verdict.reason is not None
        assert verdict.reason.startswith("budget_exceeded: recent runs average $0.2000")
