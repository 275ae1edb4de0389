"""The deterministic validator: every problem of a definition, located by JSON pointer.

Errors block saving; warnings do not. Shape comes first (the pydantic models that also publish the
JSON Schema); the deeper checks run on whatever parts of the document have a usable shape, so one
pass reports as much as it can.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.definitions.automation import AutomationDefinition, ForEachBlock
from app.definitions.json_schema import SchemaRefused, Violation, check_schema_document, compiled_schema
from app.definitions.pointers import join, locate
from app.engine.caps import OperatorCaps
from app.engine.filters import check_filter
from app.engine.mapping import check_mapping
from app.engine.secret_refs import is_literal_reference, stands_for_string
from app.engine.validation.credentials import literal_credentials
from app.engine.validation.inputs import input_problems
from app.engine.validation.plan_scope import PlanScope, RawStep, kind_of, walk_document
from app.engine.validation.problems import Problem
from app.engine.validation.schedule import check_schedule
from app.engine.validation.secrets import CALL_TOOL, secret_reference_problems, secret_target
from app.engine.validation.spending import cap_problems, http_grant_problems
from app.engine.validation.templates import check_one, is_template, template_leaves
from app.registry import DYNAMIC_OUTPUT, Actions, Capabilities, Registry, TriggerDefinition
from app.registry import actions as default_actions
from app.registry import capabilities as default_capabilities
from app.registry import triggers as default_triggers
from app.registry.builtin_waits import DEFAULT_MAX_WAIT_SECONDS, wait_config_problems

MAX_SCHEMA_PROBLEMS_PER_CONFIG = 50
DEFAULT_MAX_ITEMS = ForEachBlock.model_fields["max_items"].default
# Violations looked at per config: template strings among them are skipped, not counted.
MAX_SCHEMA_VIOLATIONS = 200


@dataclass(frozen=True)
class Vocabulary:
    """What a definition is checked against: actions, triggers, and the capabilities of its space.

    `capabilities` is data handed in, the space's set as the capability resolver answered it (the
    validator does no I/O); the default, the native registry alone, is what every space shares.
    """

    actions: Actions = field(default_factory=lambda: default_actions)
    capabilities: Capabilities = field(default_factory=lambda: default_capabilities)
    triggers: Registry[TriggerDefinition] = field(default_factory=lambda: default_triggers)
    # The LLM models steps may name (a deployment setting); None skips the check.
    allowed_models: frozenset[str] | None = None
    # The names of the space's secrets, which `{"$secret": name}` references must name; None skips it.
    secret_names: frozenset[str] | None = None
    # The hosts each secret is bound to (empty: any public host); None skips the host checks.
    secret_hosts: Mapping[str, tuple[str, ...]] | None = None
    # Namespaces of the installation's plugins, and the event types the space's enabled plugins emit:
    # an event trigger inside a plugin namespace must name one of them.
    plugin_namespaces: frozenset[str] = frozenset()
    plugin_events: frozenset[str] = frozenset()
    # The names the space has an input default for (`$space_default`); None skips the check.
    space_defaults: frozenset[str] | None = None
    # The operator's spending defaults and maximums (settings); None skips the maximum check.
    caps: OperatorCaps | None = None
    # The longest a waiting step may wait (AUTOMATIONS_MAX_WAIT_SECONDS).
    max_wait_seconds: float = DEFAULT_MAX_WAIT_SECONDS


def validate_definition(document: Any, vocabulary: Vocabulary | None = None) -> list[Problem]:
    """Every problem of the definition, errors and warnings, in document order."""
    vocabulary = vocabulary or Vocabulary()
    problems = _shape(document)
    if not isinstance(document, dict):
        return problems
    problems += input_problems(document.get("inputs"), vocabulary.space_defaults)
    problems += _triggers(document.get("triggers"), vocabulary)
    problems += _steps(document, vocabulary)
    problems += _grants(document.get("execution"), vocabulary)
    problems += http_grant_problems(document)
    if vocabulary.caps is not None:
        problems += cap_problems(document.get("execution"), vocabulary.caps)
    problems += literal_credentials(document)
    return problems


def _shape(document: Any) -> list[Problem]:
    try:
        AutomationDefinition.model_validate(document)
    except ValidationError as exc:
        return [
            Problem(
                locate(error["loc"], document) + _inner_pointer(error),
                "schema",
                error["msg"].removeprefix("Value error, "),
            )
            for error in exc.errors(include_url=False)
        ]
    return []


def _inner_pointer(error: Any) -> str:
    """Where inside an embedded JSON Schema a refusal points, to extend the document's pointer."""
    cause = error.get("ctx", {}).get("error")
    return cause.pointer if isinstance(cause, SchemaRefused) else ""


def _triggers(triggers: Any, vocabulary: Vocabulary) -> list[Problem]:
    problems: list[Problem] = []
    for index, trigger in enumerate(triggers if isinstance(triggers, list) else []):
        if not isinstance(trigger, dict) or not isinstance(trigger.get("type"), str):
            continue
        base: tuple[str | int, ...] = ("triggers", index, "config")
        definition = vocabulary.triggers.get(trigger["type"])
        if definition is None:
            problems.append(
                Problem(
                    join("triggers", index, "type"), "unknown_trigger", f"no trigger type {trigger['type']!r}"
                )
            )
            continue
        config = trigger.get("config", {})
        schema_problems = _against_schema(config, definition.config_schema, base, templates_allowed=False)
        problems += schema_problems
        if not isinstance(config, dict) or schema_problems:
            continue
        if trigger["type"] == "schedule":
            problems += check_schedule(config, base)
        elif trigger["type"] == "webhook":
            problems += [
                Problem(join(*base) + pointer, "invalid_jsonpath", message)
                for pointer, message in check_mapping(config.get("input_mapping", {}))
            ]
        elif trigger["type"] == "event":
            problems += _plugin_event(config.get("event_type"), base, vocabulary)
            if config.get("filters") is not None:
                problems += [
                    Problem(join(*base, "filters") + pointer, "invalid_filter", message)
                    for pointer, message in check_filter(config["filters"])
                ]
    return problems


def _plugin_event(event_type: Any, base: tuple[str | int, ...], vocabulary: Vocabulary) -> list[Problem]:
    """An event type in a plugin's namespace must be one the space's enabled plugins emit."""
    if not isinstance(event_type, str) or event_type.split(".", 1)[0] not in vocabulary.plugin_namespaces:
        return []
    if event_type.endswith(".*"):
        prefix = event_type[:-1]
        known = any(event.startswith(prefix) for event in vocabulary.plugin_events)
    else:
        known = event_type in vocabulary.plugin_events
    if known:
        return []
    return [
        Problem(
            join(*base, "event_type"),
            "unknown_event_type",
            f"no plugin enabled in this space emits {event_type!r}",
        )
    ]


def _steps(document: dict[str, Any], vocabulary: Vocabulary) -> list[Problem]:
    scope = PlanScope(walk_document(document))
    problems = list(scope.problems)
    for located in scope.steps:
        kind = kind_of(located.step)
        if kind == "if":
            problems += _condition(located, scope)
        elif kind == "for_each":
            problems += _items(located, scope)
        else:
            problems += _step(located, vocabulary, scope)
    return problems


def _templates_read(
    sources: list[tuple[tuple[str | int, ...], str, bool]], located: RawStep, scope: PlanScope
) -> list[Problem]:
    """Each template's own problems, and those of the names it reads from where it stands."""
    problems: list[Problem] = []
    for where, text, predicate in sources:
        found, names = check_one(text, where, predicate=predicate)
        problems += found
        problems += scope.references(names, where, located)
    return problems


def _condition(located: RawStep, scope: PlanScope) -> list[Problem]:
    """An `if` condition: the filter grammar, with templates of the run context as values."""
    block = located.step.get("if")
    condition = block.get("condition") if isinstance(block, dict) else None
    if not isinstance(condition, dict):
        return []
    base = (*located.where, "if", "condition")
    problems = [
        Problem(join(*base) + pointer, "invalid_filter", message)
        for pointer, message in check_filter(condition)
    ]
    sources = [(where, text, False) for where, text in template_leaves(condition, base)]
    return problems + _templates_read(sources, located, scope)


def _items(located: RawStep, scope: PlanScope) -> list[Problem]:
    """A loop's items: a template yielding a list, or a literal list within max_items."""
    block = located.step.get("for_each")
    if not isinstance(block, dict):
        return []
    items, where = block.get("items"), (*located.where, "for_each", "items")
    limit = block.get("max_items", DEFAULT_MAX_ITEMS)
    if isinstance(items, list) and isinstance(limit, int) and len(items) > limit:
        return [Problem(join(*where), "too_many_items", f"{len(items)} items, over max_items ({limit})")]
    if isinstance(items, str):
        if not is_template(items):
            return [
                Problem(join(*where), "items_not_a_list", "items must be a list or a template yielding one")
            ]
        return _templates_read([(where, items, False)], located, scope)
    return []


# Actions whose config names the one capability they call (`capability`) with its arguments (`args`).
CAPABILITY_NAMING_ACTIONS = CALL_TOOL


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _step(located: RawStep, vocabulary: Vocabulary, scope: PlanScope) -> list[Problem]:
    step, base = located.step, located.where
    problems: list[Problem] = []
    config = step.get("config", {})
    action_type = step.get("action")
    action = vocabulary.actions.get(action_type) if isinstance(action_type, str) else None
    if isinstance(action_type, str) and action is None:
        problems.append(Problem(join(*base, "action"), "unknown_action", f"no action type {action_type!r}"))
    target = secret_target(action, config, vocabulary.capabilities, CAPABILITY_NAMING_ACTIONS)
    problems += secret_reference_problems(
        config, (*base, "config"), target, vocabulary.secret_names, vocabulary.secret_hosts
    )
    if action is not None and isinstance(config, dict):
        problems += _against_schema(config, action.config_schema, (*base, "config"), templates_allowed=True)
        if action.output_contract is DYNAMIC_OUTPUT and "output_schema" not in config:
            problems.append(
                Problem(
                    join(*base, "config"),
                    "missing_output_schema",
                    f"{action.type} returns what output_schema declares; without one its output is unchecked",
                    "warning",
                )
            )
    if isinstance(config, dict):
        problems += _output_schema(config.get("output_schema"), (*base, "config", "output_schema"))
        problems += _tools(config.get("tools"), (*base, "config", "tools"), vocabulary)
        if action is not None and action.type in CAPABILITY_NAMING_ACTIONS:
            problems += _named_capability(config, (*base, "config"), vocabulary)
        problems += _model(config.get("model"), (*base, "config", "model"), vocabulary)
        if isinstance(action_type, str):
            problems += [
                Problem(join(*base, "config") + pointer, code, message)
                for pointer, code, message in wait_config_problems(
                    action_type, config, max_seconds=vocabulary.max_wait_seconds
                )
            ]

    sources: list[tuple[tuple[str | int, ...], str, bool]] = [
        (where, text, False) for where, text in template_leaves(config, (*base, "config"))
    ]
    when = step.get("when")
    if isinstance(when, str) and when.strip():
        sources.append(((*base, "when"), when, True))
    return problems + _templates_read(sources, located, scope)


def _output_schema(schema: Any, base: tuple[str | int, ...]) -> list[Problem]:
    """A step's own output schema (agent_task, llm_complete) is checked like an inputs schema."""
    if not isinstance(schema, dict):
        return []
    try:
        check_schema_document(schema)
    except SchemaRefused as exc:
        return [Problem(join(*base) + exc.pointer, "invalid_schema", str(exc))]
    return []


def _model(model: Any, where: tuple[str | int, ...], vocabulary: Vocabulary) -> list[Problem]:
    allowed = vocabulary.allowed_models
    if allowed is None or not isinstance(model, str) or is_template(model) or model in allowed:
        return []
    listed = ", ".join(sorted(allowed)) or "none (set AUTOMATIONS_LLM_ALLOWED_MODELS)"
    return [
        Problem(join(*where), "model_not_allowed", f"model {model!r} is not allowed here; allowed: {listed}")
    ]


def _named_capability(
    config: dict[str, Any], base: tuple[str | int, ...], vocabulary: Vocabulary
) -> list[Problem]:
    """A step that names one capability (`call_tool`): it must be the space's, its args must fit it."""
    capability_id = config.get("capability")
    if not isinstance(capability_id, str) or is_template(capability_id):
        return []
    capability = vocabulary.capabilities.get(capability_id)
    if capability is None:
        return [Problem(join(*base, "capability"), "unknown_capability", f"no capability {capability_id!r}")]
    args = config.get("args", {})
    if not isinstance(args, dict):
        return []
    return _against_schema(args, capability.input_schema, (*base, "args"), templates_allowed=True)


def _tools(tools: Any, base: tuple[str | int, ...], vocabulary: Vocabulary) -> list[Problem]:
    if not isinstance(tools, list):
        return []
    known = [capability.id for capability in vocabulary.capabilities]
    problems = []
    for index, pattern in enumerate(tools):
        if not isinstance(pattern, str) or is_template(pattern):
            continue
        if not any(fnmatch.fnmatchcase(capability_id, pattern) for capability_id in known):
            problems.append(
                Problem(
                    join(*base, index),
                    "unknown_capability",
                    f"{pattern!r} matches no capability" if "*" in pattern else f"no capability {pattern!r}",
                )
            )
    return problems


def _grants(execution: Any, vocabulary: Vocabulary) -> list[Problem]:
    """Each tool grant must name a capability of the space (or a pattern matching one); `hosts` only
    restricts http.request, so a grant with hosts must be able to name it."""
    grants = execution.get("tool_grants") if isinstance(execution, dict) else None
    if not isinstance(grants, list):
        return []
    known = [capability.id for capability in vocabulary.capabilities]
    problems = []
    for index, grant in enumerate(grants):
        if not isinstance(grant, dict) or not isinstance(grant.get("capability"), str):
            continue
        pattern = grant["capability"]
        where = ("execution", "tool_grants", index, "capability")
        if not any(fnmatch.fnmatchcase(capability_id, pattern) for capability_id in known):
            problems.append(
                Problem(
                    join(*where),
                    "unknown_capability",
                    f"{pattern!r} matches no capability" if "*" in pattern else f"no capability {pattern!r}",
                )
            )
        elif grant.get("hosts") is not None and not fnmatch.fnmatchcase("http.request", pattern):
            problems.append(
                Problem(
                    join("execution", "tool_grants", index, "hosts"),
                    "hosts_without_http",
                    "hosts only restrict http.request; this grant cannot name it",
                )
            )
    return problems


def _stands_for_any(violation: Violation) -> bool:
    """A template string stands for any value; a secret reference for a string."""
    return is_template(violation.instance) or stands_for_string(violation, is_literal_reference)


def _against_schema(
    value: Any, schema: dict[str, Any], base: tuple[str | int, ...], *, templates_allowed: bool
) -> list[Problem]:
    """Every JSON Schema error; in step configs a template stands for any value, a reference for a string."""
    try:
        found = compiled_schema(schema).violations(value, limit=MAX_SCHEMA_VIOLATIONS)
    except ValueError as exc:  # a schema refused or too costly: reported, never raised
        return [Problem(join(*base), "invalid_config", str(exc))]
    problems = []
    for violation in found:
        if templates_allowed and _stands_for_any(violation):
            continue
        problems.append(Problem(join(*base, *violation.path), "invalid_config", violation.message))
        if len(problems) >= MAX_SCHEMA_PROBLEMS_PER_CONFIG:
            break
    return problems
