"""Rule flags on their own: the permission seam, write detection and the cost estimate."""

from __future__ import annotations

from app.engine.validation import Vocabulary
from app.integrations.llm import LiteLlm
from app.nl.flags import FlagContext, rule_flags
from app.nl.permissions import ChosenBy, Mode, inferred_mode
from app.registry import Capability
from app.registry import capabilities as native_capabilities
from tests.support.drafts import proposal
from tests.support.fake_llm import INPUT_PRICE, OUTPUT_PRICE, TEST_MODEL

LLM = LiteLlm(
    [TEST_MODEL],
    {TEST_MODEL: {"input_cost_per_token": INPUT_PRICE, "output_cost_per_token": OUTPUT_PRICE}},
)


def _context(**changes: object) -> FlagContext:
    base: dict[str, object] = {
        "vocabulary": Vocabulary(),
        "used_capabilities": frozenset(),
        "llm": LLM,
        "default_max_tokens": 1024,
    }
    base.update(changes)
    return FlagContext(**base)  # type: ignore[arg-type]


def _by_code(flags: list) -> dict[str, list[str]]:  # type: ignore[type-arg]
    found: dict[str, list[str]] = {}
    for flag in flags:
        found.setdefault(flag.code, []).append(flag.path)
    return found


class TestModes:
    def test_the_inferred_default_allows_tight_calls_and_holds_agent_writes(self) -> None:
        http = native_capabilities.get("http.request")
        llm = native_capabilities.get("llm.complete")
        assert http is not None
        assert llm is not None
        assert inferred_mode(http, "definition") == "allow"
        assert inferred_mode(http, "agent") == "require_approval"
        assert inferred_mode(llm, "agent") == "allow"

    def test_a_replacement_resolver_decides_the_flags(self) -> None:
        def deny_http(capability: Capability, chosen_by: ChosenBy) -> Mode:
            return "deny" if capability.id == "http.request" else "allow"

        flags, _ = rule_flags(proposal(), [], _context(mode_of=deny_http))
        assert _by_code(flags)["denied"] == ["/plan/1"]
        assert "requires_approval" not in _by_code(flags)


class TestEstimate:
    def test_per_run_cost_is_prices_times_caps_and_turns_and_per_month_follows_the_schedule(self) -> None:
        flags, estimate = rule_flags(proposal(), [], _context())
        assert estimate is not None
        # Two agent turns of at most 300 output tokens each, plus the prompt.
        output_part = 2 * 300 * OUTPUT_PRICE
        assert output_part < estimate.per_run_usd < output_part + 2 * 1000 * INPUT_PRICE
        assert estimate.runs_per_month is not None
        assert estimate.per_month_usd == round(estimate.per_run_usd * estimate.runs_per_month, 4)
        assert "cost_estimate" in _by_code(flags)

    def test_a_definition_without_model_steps_has_no_estimate(self) -> None:
        definition = proposal()
        del definition["plan"][0]
        definition["plan"][0]["config"]["json"] = {"text": "hello"}
        flags, estimate = rule_flags(definition, [], _context(used_capabilities=frozenset({"http.request"})))
        assert estimate is None
        assert _by_code(flags) == {"external_write": ["/plan/0"]}
