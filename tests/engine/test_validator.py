"""The deterministic validator: every problem, located, with errors and warnings told apart."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.inputs import FireContext, resolve_inputs, space_default_names, unresolved_required
from app.engine.validation import Problem, Vocabulary, validate_definition
from app.registry import DYNAMIC_OUTPUT, ActionDefinition, Capability, Registry
from app.registry import actions as builtin_actions
from app.registry import triggers as builtin_triggers

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def _noop(*_: Any) -> None:
    return None


def _vocabulary() -> Vocabulary:
    capabilities: Registry[Capability] = Registry("capability", Capability, lambda c: c.id)
    for capability_id in ("http.request", "slack.post_message", "slack.list_channels"):
        capabilities.register(
            Capability(capability_id, "test capability", {"type": "object"}, {"type": "object"}, _noop)
        )
    actions: Registry[ActionDefinition] = Registry("action", ActionDefinition, lambda a: a.type)
    for action in builtin_actions:
        actions.register(action)
    actions.register(
        ActionDefinition(
            type="think",
            name="Think",
            description="a dynamic-output action with tools",
            config_schema={
                "type": "object",
                "required": ["prompt"],
                "properties": {
                    "prompt": {"type": "string"},
                    "tools": {"type": "array", "items": {"type": "string"}},
                    "max_iterations": {"type": "integer", "minimum": 1},
                    "output_schema": {"type": "object"},
                },
                "additionalProperties": False,
            },
            output_contract=DYNAMIC_OUTPUT,
            handler=_noop,
            duration_class="medium",
        )
    )
    return Vocabulary(actions=actions, capabilities=capabilities, triggers=builtin_triggers)


def _definition(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "schema_version": "1.0",
        "name": "t",
        "plan": [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}],
    }
    base.update(copy.deepcopy(changes))
    return base


def _codes(problems: list[Problem]) -> list[tuple[str, str, str]]:
    return [(p.path, p.code, p.severity) for p in problems]


def check(document: Any) -> list[tuple[str, str, str]]:
    return _codes(validate_definition(document, _vocabulary()))


class TestExamples:
    @pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
    def test_every_example_passes_without_errors(self, name: str) -> None:
        problems = validate_definition(json.loads((EXAMPLES / name).read_text()))
        assert [p for p in problems if p.severity == "error"] == []


class TestShape:
    def test_not_an_object(self) -> None:
        assert check([1, 2]) == [("", "schema", "error")]

    def test_every_schema_error_is_reported(self) -> None:
        found = check({"plan": [{"step_id": "A", "action": "transform_data"}], "bogus": 1})
        paths = {path for path, code, _ in found if code == "schema"}
        assert paths == {"/name", "/plan/0/step_id", "/bogus"}


class TestSteps:
    def test_unknown_action(self) -> None:
        found = check(_definition(plan=[{"step_id": "a", "action": "teleport"}]))
        assert found == [("/plan/0/action", "unknown_action", "error")]

    def test_config_against_action_schema_reports_all_errors(self) -> None:
        step = {"step_id": "a", "action": "think", "config": {"tools": "x", "max_iterations": 0, "extra": 1}}
        found = check(_definition(plan=[step]))
        assert ("/plan/0/config", "invalid_config", "error") in found  # prompt missing / extra field
        assert ("/plan/0/config/tools", "invalid_config", "error") in found
        assert ("/plan/0/config/max_iterations", "invalid_config", "error") in found

    def test_a_template_stands_for_any_type(self) -> None:
        step = {
            "step_id": "a",
            "action": "think",
            "config": {
                "prompt": "p",
                "max_iterations": "{{ inputs.n }}",
                "output_schema": {"type": "object"},
            },
        }
        assert check(_definition(plan=[step])) == []

    def test_duplicate_step_ids_and_output_names(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": 1}, "output_as": "x"},
            {"step_id": "a", "action": "transform_data", "config": {"output": 2}, "output_as": "x"},
        ]
        found = check(_definition(plan=plan))
        assert ("/plan/1/step_id", "duplicate_step_id", "error") in found
        assert ("/plan/1/output_as", "duplicate_output_as", "error") in found

    def test_on_failure_step_ids_collide_with_plan(self) -> None:
        found = check(
            _definition(
                execution={
                    "on_failure": [{"step_id": "a", "action": "transform_data", "config": {"output": 0}}]
                }
            )
        )
        assert found == [("/execution/on_failure/0/step_id", "duplicate_step_id", "error")]

    def test_reserved_output_name(self) -> None:
        plan = [{"step_id": "a", "action": "transform_data", "config": {"output": 1}, "output_as": "inputs"}]
        assert check(_definition(plan=plan)) == [("/plan/0/output_as", "reserved_name", "error")]

    def test_dynamic_output_without_schema_is_a_warning(self) -> None:
        found = check(_definition(plan=[{"step_id": "a", "action": "think", "config": {"prompt": "p"}}]))
        assert found == [("/plan/0/config", "missing_output_schema", "warning")]


class TestTools:
    @pytest.mark.parametrize("tools", [["http.request"], ["slack.*"], ["*.request", "slack.list_channels"]])
    def test_known_tools_and_matching_globs(self, tools: list[str]) -> None:
        step = {
            "step_id": "a",
            "action": "think",
            "config": {"prompt": "p", "tools": tools, "output_schema": {}},
        }
        assert check(_definition(plan=[step])) == []

    def test_unknown_tool_and_empty_glob(self) -> None:
        step = {
            "step_id": "a",
            "action": "think",
            "config": {
                "prompt": "p",
                "tools": ["http.request", "github.*", "mail.send"],
                "output_schema": {},
            },
        }
        assert check(_definition(plan=[step])) == [
            ("/plan/0/config/tools/1", "unknown_capability", "error"),
            ("/plan/0/config/tools/2", "unknown_capability", "error"),
        ]


class TestTemplates:
    def test_template_problems_are_located(self) -> None:
        plan = [
            {
                "step_id": "a",
                "action": "transform_data",
                "config": {
                    "output": {"x": ["ok", "{{ inputs.x | shout }}", "{{ run.__class__ }}", "{% if %}"]}
                },
            }
        ]
        assert check(_definition(plan=plan)) == [
            ("/plan/0/config/output/x/1", "unknown_filter", "error"),
            ("/plan/0/config/output/x/2", "unsafe_access", "error"),
            ("/plan/0/config/output/x/3", "template_syntax", "error"),
        ]

    def test_when_is_checked_as_an_expression(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": 1}, "when": "inputs.flag and"}
        ]
        assert check(_definition(plan=plan)) == [("/plan/0/when", "template_syntax", "error")]

    def test_references_before_binding_and_unknown_names(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": "{{ later.x }}"}},
            {
                "step_id": "b",
                "action": "transform_data",
                "config": {"output": "{{ nowhere }}"},
                "output_as": "later",
            },
            {"step_id": "c", "action": "transform_data", "config": {"output": "{{ later.x }} {{ run.id }}"}},
        ]
        assert check(_definition(plan=plan)) == [
            ("/plan/0/config/output", "reference_before_binding", "error"),
            ("/plan/1/config/output", "unknown_reference", "error"),
        ]

    def test_a_step_cannot_read_its_own_output(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": "{{ me }}"}, "output_as": "me"}
        ]
        assert check(_definition(plan=plan)) == [
            ("/plan/0/config/output", "reference_before_binding", "error")
        ]

    def test_loop_variables_are_not_references(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": [1, 2]}, "output_as": "items"},
            {
                "step_id": "b",
                "action": "transform_data",
                "config": {"output": "{% for i in items %}{{ i }}{% endfor %}"},
            },
        ]
        assert check(_definition(plan=plan)) == []

    def test_on_failure_may_read_plan_outputs(self) -> None:
        plan = [{"step_id": "a", "action": "transform_data", "config": {"output": 1}, "output_as": "first"}]
        on_failure = [
            {"step_id": "z", "action": "transform_data", "config": {"output": "{{ first }} {{ run.error }}"}}
        ]
        assert check(_definition(plan=plan, execution={"on_failure": on_failure})) == []


class TestTriggers:
    def _schedule(self, **config: Any) -> list[tuple[str, str, str]]:
        return check(_definition(triggers=[{"type": "schedule", "config": config}]))

    @pytest.mark.parametrize("cron", ["0 9 * * 1-5", "@daily", "30 */2 * * *", "0 0 1 1 *"])
    def test_valid_cron(self, cron: str) -> None:
        assert self._schedule(cron=cron, timezone="America/New_York") == []

    @pytest.mark.parametrize("cron", ["61 * * * *", "* * *", "every day", "*/0 * * * *", "@sometimes"])
    def test_invalid_cron(self, cron: str) -> None:
        assert self._schedule(cron=cron) == [("/triggers/0/config/cron", "invalid_cron", "error")]

    def test_seconds_field_is_too_frequent(self) -> None:
        assert self._schedule(cron="*/10 * * * * *") == [
            ("/triggers/0/config/cron", "schedule_too_frequent", "error")
        ]

    @pytest.mark.parametrize("cron", ["* * * * *", "*/5 * * * *", "0,10 * * * *"])
    def test_under_fifteen_minutes_is_a_warning(self, cron: str) -> None:
        assert self._schedule(cron=cron) == [("/triggers/0/config/cron", "schedule_frequent", "warning")]

    @pytest.mark.parametrize("zone", ["Mars/Olympus", "../../etc/passwd", "", "utc "])
    def test_invalid_timezone(self, zone: str) -> None:
        found = self._schedule(cron="0 9 * * *", timezone=zone)
        assert ("/triggers/0/config/timezone", "invalid_timezone", "error") in found or found[0][
            1
        ] == "schema"

    def test_event_filters_are_checked_with_pointers(self) -> None:
        trigger = {
            "type": "event",
            "config": {"event_type": "drive.*", "filters": {"$and": [{"a": {"regex": "("}}]}},
        }
        found = check(_definition(triggers=[trigger]))
        assert found == [("/triggers/0/config/filters/$and/0/a/regex", "invalid_filter", "error")]

    def test_event_with_good_filter(self) -> None:
        trigger = {
            "type": "event",
            "config": {"event_type": "drive.file_added", "filters": {"size": {"gt": 10}}},
        }
        assert check(_definition(triggers=[trigger])) == []


class TestInputs:
    def test_unknown_runtime_default(self) -> None:
        inputs = {
            "schema": {"type": "object", "properties": {"since": {"type": "string", "default": "$yesterday"}}}
        }
        assert check(_definition(inputs=inputs)) == [
            ("/inputs/schema/properties/since/default", "unknown_runtime_default", "error")
        ]

    def test_resolve_inputs_fills_literal_and_runtime_defaults(self) -> None:
        schema = {
            "type": "object",
            "properties": {
                "since": {"default": "$last_fired_at"},
                "owner": {"default": "$creator"},
                "channel": {"default": "$space_default"},
                "tags": {"default": ["a"]},
                "given": {"default": "ignored"},
            },
        }
        fire = FireContext(
            last_fired_at="2026-11-21T09:00:00+00:00", creator="u1", space_defaults={"channel": "C1"}
        )
        resolved = resolve_inputs(schema, {"given": "mine"}, fire)
        assert resolved == {
            "since": "2026-11-21T09:00:00+00:00",
            "owner": "u1",
            "channel": "C1",
            "tags": ["a"],
            "given": "mine",
        }
        resolved["tags"].append("b")
        assert schema["properties"]["tags"]["default"] == ["a"], "defaults are copied, never shared"

    def test_runtime_default_with_nothing_to_resolve_leaves_input_missing(self) -> None:
        schema = {"properties": {"since": {"default": "$last_fired_at"}, "c": {"default": "$space_default"}}}
        assert resolve_inputs(schema, {}, FireContext()) == {}


class TestSpaceDefaults:
    SCHEMA = {
        "type": "object",
        "required": ["channel"],
        "properties": {
            "channel": {"type": "string", "default": "$space_default"},
            "team": {"type": "string", "default": "$space_default"},
        },
    }

    def _check(self, names: frozenset[str] | None) -> list[tuple[str, str, str]]:
        vocabulary = dataclasses.replace(_vocabulary(), space_defaults=names)
        return _codes(validate_definition(_definition(inputs={"schema": self.SCHEMA}), vocabulary))

    def test_a_space_default_the_space_lacks_is_a_warning_naming_what_follows(self) -> None:
        problems = validate_definition(
            _definition(inputs={"schema": self.SCHEMA}),
            dataclasses.replace(_vocabulary(), space_defaults=frozenset({"team"})),
        )
        (problem,) = problems
        assert (problem.path, problem.code, problem.severity) == (
            "/inputs/schema/properties/channel/default",
            "space_default_missing",
            "warning",
        )
        assert "refused" in problem.message, "a required input's fires are refused"

    def test_an_optional_input_s_missing_default_is_flagged_too(self) -> None:
        assert self._check(frozenset({"channel"})) == [
            ("/inputs/schema/properties/team/default", "space_default_missing", "warning")
        ]

    def test_nothing_is_flagged_when_the_space_has_both_or_is_unknown(self) -> None:
        assert self._check(frozenset({"channel", "team"})) == []
        assert self._check(None) == [], "without the space's names (drafting) the check is skipped"

    def test_unresolved_required_names_only_required_space_defaults(self) -> None:
        assert unresolved_required(self.SCHEMA, {}) == ["channel"]
        assert unresolved_required(self.SCHEMA, {"channel": "C1"}) == []
        assert space_default_names(self.SCHEMA, {"team": "x"}) == ["channel"]


class TestStepOverrides:
    def test_a_step_s_retry_backoff_is_one_of_the_policy_s_values(self) -> None:
        plan = [
            {"step_id": "a", "action": "transform_data", "config": {"output": 1}, "retry_backoff": "soon"}
        ]
        assert check(_definition(plan=plan)) == [("/plan/0/retry_backoff", "schema", "error")]
        plan[0]["retry_backoff"] = "linear"
        assert check(_definition(plan=plan)) == []


class TestSlackChannel:
    def _step(self, **config: Any) -> list[dict[str, Any]]:
        token = {"$secret": "slack_bot_token"}
        return [{"step_id": "post", "action": "slack_post", "config": {"token": token, **config}}]

    @pytest.mark.parametrize("key", ["channel", "channel_id"])
    def test_either_name_of_the_channel_is_accepted(self, key: str) -> None:
        assert check(_definition(plan=self._step(**{key: "C0123"}, message_template="hi"))) == []

    def test_both_names_at_once_are_refused(self) -> None:
        problems = validate_definition(
            _definition(plan=self._step(channel="C1", channel_id="C2", text="hi")), _vocabulary()
        )
        assert _codes(problems) == [("/plan/0/config", "invalid_config", "error")]
        assert "channel" in problems[0].message

    def test_neither_is_refused_naming_channel(self) -> None:
        problems = validate_definition(_definition(plan=self._step(text="hi")), _vocabulary())
        assert _codes(problems) == [("/plan/0/config", "invalid_config", "error")]
        assert "'channel' is a required property" in problems[0].message

    def test_a_templated_channel_id_passes(self) -> None:
        assert check(_definition(plan=self._step(channel_id="{{ inputs.channel }}", text="hi"))) == []


class TestToolGrants:
    def test_grants_must_name_known_capabilities(self) -> None:
        document = {
            "schema_version": "1.0",
            "name": "Grants",
            "plan": [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}],
            "execution": {
                "tool_grants": [
                    {"capability": "http.request", "hosts": ["api.stripe.com"]},
                    {"capability": "notify.*"},
                    {"capability": "crm.update", "params": {"board_id": "b-1"}},
                    {"capability": "notify.send", "hosts": ["example.com"]},
                ]
            },
        }
        problems = [(p.path, p.code) for p in validate_definition(document)]
        assert problems == [
            ("/execution/tool_grants/2/capability", "unknown_capability"),
            ("/execution/tool_grants/3/hosts", "hosts_without_http"),
        ]

    def test_a_malformed_grant_is_a_schema_problem(self) -> None:
        document = {
            "schema_version": "1.0",
            "name": "Grants",
            "plan": [{"step_id": "a", "action": "transform_data", "config": {"output": 1}}],
            "execution": {"tool_grants": [{"capability": "HTTP REQUEST", "extra": 1}]},
        }
        problems = {(p.path, p.code) for p in validate_definition(document)}
        assert ("/execution/tool_grants/0/capability", "schema") in problems
        assert ("/execution/tool_grants/0/extra", "schema") in problems
