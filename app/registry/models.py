"""What can be registered: capabilities, actions, triggers, and the artifacts actions produce.

Each definition checks itself when it is built, so an invalid one never reaches a registry: ids follow
the naming rules, literal fields hold one of their values, and every JSON Schema is a valid,
self-contained draft 2020-12 schema. Definitions run at import, which makes a bad one a start-up error.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, get_args

from app.definitions.automation import ACTION_TYPE_PATTERN
from app.definitions.json_schema import (
    CompiledSchema,
    check_schema_document,
    compiled_schema,
    schema_problems,
)
from app.definitions.run_modes import Effect
from app.registry.base import InvalidEntry
from app.registry.ports import HandlerContext

Handler = Callable[[HandlerContext, dict[str, Any]], Awaitable[Any]]
RecordedConfig = Callable[[dict[str, Any], Any], dict[str, Any]]
CallRisk = Callable[[dict[str, Any]], "Risk"]
"""The risk of one call from its arguments, for a capability that reads or writes depending on them."""
CallTarget = Callable[[dict[str, Any]], str]
"""What one call acts on, from its arguments (an HTTP request's method and URL): what `always` grants."""
"""An async handler: the step's context and the (rendered) config or arguments in, the result out."""

Tier = Literal["native", "mcp", "plugin", "database"]
Risk = Literal["read", "write"]
DurationClass = Literal["fast", "medium", "long"]
ArtifactKind = Literal["audio", "document", "image", "data"]
Retention = Literal["transient", "default", "permanent"]
Visibility = Literal["private", "space", "shared"]

MAX_ID_LENGTH = 100
_DOTTED = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")
_ACTION_TYPE = re.compile(ACTION_TYPE_PATTERN)
# Where a capability comes from is its `tier`; the id a definition names must not depend on it.
RESERVED_FIRST_SEGMENTS = frozenset(get_args(Tier))


@dataclass(frozen=True)
class SecretFields:
    """Where a capability's arguments may hold a `{"$secret": name}` reference, and where the values go.

    `paths` are JSON pointers into the arguments; a segment `*` stands for any one key or index, and a
    final `**` for anything below (the point itself included). A reference anywhere else is refused at
    save and at call time (`secret_not_allowed_here`): a capability that keeps or shows its arguments
    (state, notifications, a model prompt) declares none.
    """

    paths: tuple[str, ...] = ()
    host: Callable[[dict[str, Any]], str | None] | None = None
    """The host a call sends the values to, from its arguments (e.g. the request URL's host), when it
    is known before the call; None when only the egress transport sees it."""
    guarded: bool = True
    """Values leave the worker only through the egress guard, which enforces each secret's hosts on
    every request. False for a local process (an MCP server over stdio): a host-bound secret is never
    handed to one."""

    def __post_init__(self) -> None:
        for path in self.paths:
            if not isinstance(path, str) or not (path == "" or path.startswith("/")):
                raise InvalidEntry(f'secret field {path!r}: must be a JSON pointer ("/headers/*")')
            if "**" in path.split("/")[:-1]:
                raise InvalidEntry(f"secret field {path!r}: ** may only end a pointer")

    @functools.cached_property
    def _patterns(self) -> tuple[tuple[str, ...], ...]:
        return tuple(
            tuple(token.replace("~1", "/").replace("~0", "~") for token in path.split("/")[1:])
            for path in self.paths
        )

    def allows(self, where: tuple[str | int, ...]) -> bool:
        """Whether a reference at `where` (the segments of its pointer) is a declared secret field."""
        return any(_matches(pattern, where) for pattern in self._patterns)

    def destination(self, args: dict[str, Any]) -> str | None:
        """The host these arguments send secrets to, when the capability can tell before the call."""
        return self.host(args) if self.host is not None else None


def _matches(pattern: tuple[str, ...], where: tuple[str | int, ...]) -> bool:
    if pattern and pattern[-1] == "**":
        head = pattern[:-1]
        return len(where) >= len(head) and _matches(head, where[: len(head)])
    return len(pattern) == len(where) and all(
        part in ("*", str(segment)) for part, segment in zip(pattern, where, strict=True)
    )


NO_SECRET_FIELDS = SecretFields()
"""A capability no secret may reach: the default."""


class DynamicOutput(Enum):
    """Marker type of `DYNAMIC_OUTPUT`."""

    DYNAMIC_OUTPUT = "dynamic"


DYNAMIC_OUTPUT = DynamicOutput.DYNAMIC_OUTPUT
"""An action whose step declares its own `output_schema` in its config (e.g. an agent task)."""


def _check_id(owner: str, value: Any, pattern: re.Pattern[str], shape: str) -> None:
    if not isinstance(value, str) or len(value) > MAX_ID_LENGTH or not pattern.fullmatch(value):
        raise InvalidEntry(f"{owner} {value!r}: must be {shape}, at most {MAX_ID_LENGTH} characters")
    if value.split(".", 1)[0] in RESERVED_FIRST_SEGMENTS:
        raise InvalidEntry(
            f"{owner} {value!r}: the first segment must not name where the code comes from "
            f"({', '.join(sorted(RESERVED_FIRST_SEGMENTS))})"
        )


def check_capability_id(value: Any, owner: str = "capability") -> None:
    """Refuse an id that is not lowercase dotted with two or more segments, or that starts with a tier."""
    _check_id(owner, value, _DOTTED, "lowercase dotted words with at least two segments (e.g. http.request)")


def _check_type(owner: str, value: Any) -> None:
    _check_id(owner, value, _ACTION_TYPE, "lowercase words, optionally dotted (e.g. http_request)")


def _check_choice(owner: str, name: str, value: Any, choices: Any) -> None:
    allowed = get_args(choices)
    if value not in allowed:
        raise InvalidEntry(f"{owner}: {name} must be one of {', '.join(allowed)}, not {value!r}")


def _check_text(owner: str, name: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidEntry(f"{owner}: {name} must be a non-empty string")


def _check_schema(owner: str, name: str, schema: Any) -> None:
    if not isinstance(schema, dict):
        raise InvalidEntry(f"{owner}: {name} must be a JSON Schema object")
    try:
        check_schema_document(schema)
        json.dumps(schema, allow_nan=False)  # the catalog serves it as JSON
    except (ValueError, TypeError) as exc:
        raise InvalidEntry(f"{owner}: {name}: {exc}") from None


def check_json_schema(owner: str, name: str, schema: Any) -> None:
    """Refuse a schema that is not a valid, self-contained draft 2020-12 JSON Schema object."""
    _check_schema(owner, name, schema)


def _check_handler(owner: str, handler: Any) -> None:
    if not callable(handler):
        raise InvalidEntry(f"{owner}: handler must be callable")


def _check_tuple(owner: str, name: str, value: Any, item_type: type) -> None:
    if not isinstance(value, tuple) or not all(isinstance(item, item_type) for item in value):
        raise InvalidEntry(f"{owner}: {name} must be a tuple of {item_type.__name__}")


@dataclass(frozen=True)
class Capability:
    """One thing this instance can do, callable from a tight action or an agent's tool call."""

    id: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Handler
    risk: Risk = "write"
    """A hint for the default permission mode inferred for the capability."""
    tier: Tier = "native"
    metered: bool = False
    """A call that spends LLM tokens: checked against the run's caps before, recorded in the ledger after.
    Its arguments carry `model`, `messages`, an optional `system` and `max_tokens`."""
    destructive: bool = False
    """The call may destroy data (an MCP tool's `destructiveHint`, a native delete): approvals of it are
    granted one call at a time, never as a standing `always`."""
    drifted: bool = False
    """An MCP tool whose schemas or safety annotations changed since an admin last confirmed them: the
    permission cascade never lets a drifted tool run on a plain `allow`."""
    internal: bool = False
    """Its writes touch only the calling automation's own state (its key/value store): a verify run
    makes them for real."""
    call_risk: CallRisk | None = None
    """When set, the risk of each call from its arguments (an HTTP GET reads, a POST writes); `risk`
    stays the capability's default."""
    call_target: CallTarget | None = None
    """When set, the target of each call from its arguments; None: the capability itself is the
    target (an MCP tool, a notification to the space)."""
    plugin: str | None = None
    """The id of the plugin that registered it (tier `plugin`), shown in the catalog."""
    secret_fields: SecretFields = NO_SECRET_FIELDS
    """Which arguments may carry a secret reference, and where their values go; none by default."""

    @functools.cached_property
    def input_check(self) -> CompiledSchema:
        """`input_schema` compiled once for this capability: checked on every call, fixed once registered."""
        return compiled_schema(self.input_schema)

    @functools.cached_property
    def output_check(self) -> CompiledSchema:
        """`output_schema` compiled once for this capability."""
        return compiled_schema(self.output_schema)

    def __post_init__(self) -> None:
        check_capability_id(self.id)
        owner = f"capability {self.id!r}"
        _check_text(owner, "description", self.description)
        _check_schema(owner, "input_schema", self.input_schema)
        _check_schema(owner, "output_schema", self.output_schema)
        _check_handler(owner, self.handler)
        _check_choice(owner, "risk", self.risk, Risk)
        _check_choice(owner, "tier", self.tier, Tier)
        if self.call_risk is not None:
            _check_handler(owner, self.call_risk)
        if self.call_target is not None:
            _check_handler(owner, self.call_target)

    def risk_of(self, args: dict[str, Any]) -> Risk:
        """The risk of one call with these arguments."""
        return self.call_risk(args) if self.call_risk is not None else self.risk

    def target_of(self, args: dict[str, Any]) -> str:
        """The target of one call with these arguments: what a standing `always` approval grants."""
        return self.call_target(args) if self.call_target is not None else self.id

    def effect_of(self, args: dict[str, Any]) -> Effect:
        """What one call does: reads, writes the automation's own state, or writes outside."""
        if self.risk_of(args) == "read":
            return "read"
        return "internal_write" if self.internal else "external_write"


@dataclass(frozen=True)
class ArtifactSpec:
    """A kind of artifact an action produces, and how long and to whom it stays available."""

    kind: ArtifactKind
    retention: Retention = "default"
    visibility: Visibility = "private"

    def __post_init__(self) -> None:
        _check_choice("artifact", "kind", self.kind, ArtifactKind)
        _check_choice("artifact", "retention", self.retention, Retention)
        _check_choice("artifact", "visibility", self.visibility, Visibility)


@dataclass(frozen=True)
class ActionDefinition:
    """What a plan step names in `action`: its config, its output, and what it needs to run."""

    type: str
    name: str
    description: str
    config_schema: dict[str, Any]
    output_contract: dict[str, Any] | DynamicOutput
    handler: Handler
    duration_class: DurationClass
    """Routes the run to the queue of its slowest step: fast < 10 s, medium < 5 min, long beyond."""
    uses_capabilities: tuple[str, ...] = ()
    produces_artifacts: tuple[ArtifactSpec, ...] = ()
    tier: Tier = "native"
    example_output: Any = None
    """What a step of this action answers, beside what it would have sent, when a dry or verify run holds
    its call back: later steps that read its fields still render. Must match the output contract."""
    plugin: str | None = None
    """The id of the plugin that registered it (tier `plugin`), shown in the catalog."""
    secret_fields: SecretFields = NO_SECRET_FIELDS
    """Which config fields may carry a secret reference (those of the capability it forwards its config
    to); `call_tool` is checked against the capability it names instead."""
    recorded_config: RecordedConfig | None = None
    """What the step record keeps of a rendered config, given the step's output (None when it failed):
    for an action whose config carries content kept elsewhere (an artifact, readable by fewer people
    than the run), so the record does not copy it. None keeps the rendered config as it is."""

    @functools.cached_property
    def config_check(self) -> CompiledSchema:
        """`config_schema` compiled once for this action: checked on every attempt, fixed once registered."""
        return compiled_schema(self.config_schema)

    @functools.cached_property
    def output_check(self) -> CompiledSchema | None:
        """The static `output_contract` compiled once (None for a dynamic one, which each step declares)."""
        return compiled_schema(self.output_contract) if isinstance(self.output_contract, dict) else None

    def __post_init__(self) -> None:
        _check_type("action", self.type)
        owner = f"action {self.type!r}"
        _check_text(owner, "name", self.name)
        _check_text(owner, "description", self.description)
        _check_schema(owner, "config_schema", self.config_schema)
        if self.output_contract is DYNAMIC_OUTPUT:
            # The step's own output_schema is the contract, so the config must be able to carry one.
            if "output_schema" not in self.config_schema.get("properties", {}):
                raise InvalidEntry(f"{owner}: a dynamic output needs an output_schema property in its config")
        else:
            _check_schema(owner, "output_contract", self.output_contract)
            if self.example_output is not None and schema_problems(self.output_contract, self.example_output):
                raise InvalidEntry(f"{owner}: example_output does not match the output contract")
        _check_handler(owner, self.handler)
        _check_tuple(owner, "uses_capabilities", self.uses_capabilities, str)
        for capability_id in self.uses_capabilities:
            check_capability_id(capability_id, f"{owner}: uses capability")
        _check_tuple(owner, "produces_artifacts", self.produces_artifacts, ArtifactSpec)
        _check_choice(owner, "duration_class", self.duration_class, DurationClass)
        _check_choice(owner, "tier", self.tier, Tier)

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The fixed output schema, or None when each step declares its own."""
        return None if self.output_contract is DYNAMIC_OUTPUT else self.output_contract


@dataclass(frozen=True)
class TriggerDefinition:
    """A way to fire an automation: the trigger's config and the payload a fire carries."""

    type: str
    description: str
    config_schema: dict[str, Any]
    payload_schema: dict[str, Any]
    tier: Tier = "native"

    def __post_init__(self) -> None:
        _check_type("trigger", self.type)
        owner = f"trigger {self.type!r}"
        _check_text(owner, "description", self.description)
        _check_schema(owner, "config_schema", self.config_schema)
        _check_schema(owner, "payload_schema", self.payload_schema)
        _check_choice(owner, "tier", self.tier, Tier)
