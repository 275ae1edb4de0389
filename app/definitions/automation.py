"""The automation definition: the JSON document a user (or the drafting LLM) writes.

These models are the single source of truth for the definition's shape: the API validates
against them, `definition_json_schema()` publishes them, and the database stores their dump.
Deeper checks (do the named actions exist, are the templates safe) belong to the validator.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

from app.definitions.json_schema import SchemaDocument

IDENTIFIER_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
MCP_TOOL_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,63}$"
ACTION_TYPE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"
MAX_STEPS = 100
# Steps inside `if` and `for_each` blocks, at any depth; the plan's own list keeps MAX_STEPS.
MAX_BLOCK_STEPS = 100
MAX_FOR_EACH_ITEMS = 1000
MAX_FOR_EACH_CONCURRENCY = 10
MAX_ON_FAILURE_STEPS = 20
MAX_TRIGGERS = 20
MAX_RETRIES = 10
MAX_TIMEOUT_SECONDS = 86_400
RetryBackoff = Literal["none", "linear", "exponential"]

Identifier = Annotated[str, Field(pattern=IDENTIFIER_PATTERN, min_length=1, max_length=64)]


class _Strict(BaseModel):
    """Base for definition models: unknown fields are errors, never silently dropped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Inputs(_Strict):
    """The automation's inputs, described by a JSON Schema object."""

    schema_: SchemaDocument = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        alias="schema",
        description="JSON Schema (draft 2020-12) the resolved inputs of every run must satisfy.",
    )


class ScheduleConfig(_Strict):
    cron: str = Field(min_length=1, max_length=120, description="Five-field cron expression.")
    timezone: str = Field(default="UTC", min_length=1, max_length=64, description="IANA time zone name.")
    catch_up: Literal["none", "latest"] = Field(
        default="latest", description="After downtime: fire once for the latest missed slot, or skip."
    )


class WebhookConfig(_Strict):
    input_mapping: dict[str, Annotated[str, Field(min_length=1, max_length=500)]] = Field(
        default_factory=dict,
        description="Input name -> JSONPath expression evaluated against the request body.",
    )
    output_visibility: Literal["none", "caller"] = Field(
        default="none",
        description="caller: this trigger's token may read its runs' output (else status and error only).",
    )


class EventConfig(_Strict):
    event_type: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*(\.\*)?$",
        description="Event type to match, or a prefix ending in `.*` (e.g. `drive.*`).",
    )
    filters: dict[str, Any] | None = Field(
        default=None, description="Filter expression over the event payload (see the filter grammar)."
    )


class _TriggerBase(_Strict):
    enabled: bool = True
    name: str | None = Field(default=None, max_length=200)


class ScheduleTrigger(_TriggerBase):
    type: Literal["schedule"]
    config: ScheduleConfig


class WebhookTrigger(_TriggerBase):
    type: Literal["webhook"]
    config: WebhookConfig = Field(default_factory=WebhookConfig)


class EventTrigger(_TriggerBase):
    type: Literal["event"]
    config: EventConfig


Trigger = Annotated[ScheduleTrigger | WebhookTrigger | EventTrigger, Field(discriminator="type")]


class Step(_Strict):
    """One step of the plan: an action named by type, its config, and how its output is bound."""

    step_id: Identifier
    action: str = Field(min_length=1, max_length=100, pattern=ACTION_TYPE_PATTERN)
    name: str | None = Field(default=None, max_length=200)
    when: str | None = Field(
        default=None, max_length=8192, description="Template expression; a false result skips the step."
    )
    config: dict[str, Any] = Field(default_factory=dict)
    output_as: Identifier | None = None
    max_retries: int | None = Field(default=None, ge=0, le=MAX_RETRIES)
    timeout_seconds: int | None = Field(default=None, ge=1, le=MAX_TIMEOUT_SECONDS)
    retry_backoff: RetryBackoff | None = Field(
        default=None, description="How long to wait between this step's retries; overrides the policy's."
    )


class IfBlock(_Strict):
    """Run one of two step lists, chosen by a filter over the run context."""

    condition: dict[str, Any] = Field(
        description="Filter expression (the event filter grammar) over the run context: `inputs.*`, "
        "`trigger.*`, `run.*`, the outputs bound by `output_as`, and `item` / `index` inside a loop. "
        "Values may be templates of the same context.",
        json_schema_extra={"x-widget": "filter"},
    )
    then: list[PlanStep] = Field(min_length=1, max_length=MAX_BLOCK_STEPS)
    else_: list[PlanStep] = Field(default_factory=list, alias="else", max_length=MAX_BLOCK_STEPS)


class IfStep(_Strict):
    """A branch: its condition picks `then` or `else`; the step's record says which ran."""

    step_id: Identifier
    name: str | None = Field(default=None, max_length=200)
    if_: IfBlock = Field(alias="if")


class ForEachBlock(_Strict):
    """Run a step list once per item of a list, at most `concurrency` iterations at a time."""

    items: str | list[Any] = Field(
        description="A template yielding a list (e.g. `{{ fetched.items }}`), or a literal list.",
    )
    steps: list[PlanStep] = Field(min_length=1, max_length=MAX_BLOCK_STEPS)
    concurrency: int = Field(default=1, ge=1, le=MAX_FOR_EACH_CONCURRENCY)
    max_items: int = Field(
        default=100,
        ge=1,
        le=MAX_FOR_EACH_ITEMS,
        description="A list longer than this fails the step (too_many_items) before any iteration runs.",
    )
    continue_on_error: bool = Field(
        default=False,
        description='A failed iteration yields {"error": …} in the output instead of failing the step.',
    )


class ForEachStep(_Strict):
    """A loop: each iteration sees `item` and `index`; the output lists the iterations' outputs in order
    (an iteration's output is the output of its last step that ran)."""

    step_id: Identifier
    name: str | None = Field(default=None, max_length=200)
    for_each: ForEachBlock
    output_as: Identifier | None = None


def _step_kind(value: Any) -> str:
    """Which kind of plan step a document (or model) is: an action, or an `if` / `for_each` block."""
    if isinstance(value, dict):
        if "if" in value:
            return "if"
        if "for_each" in value:
            return "for_each"
        return "action"
    if isinstance(value, IfStep):
        return "if"
    if isinstance(value, ForEachStep):
        return "for_each"
    return "action"


PlanStep = Annotated[
    Annotated[Step, Tag("action")] | Annotated[IfStep, Tag("if")] | Annotated[ForEachStep, Tag("for_each")],
    Discriminator(_step_kind),
]
"""One entry of a step list: an action step, or a block (`if`, `for_each`) holding step lists."""

IfBlock.model_rebuild()
ForEachBlock.model_rebuild()


class ToolGrant(_Strict):
    """One entry of `execution.tool_grants`: a capability (id or pattern) and what its calls must keep."""

    capability: str = Field(min_length=1, max_length=100, pattern=r"^[a-z0-9_.*?]+$")
    params: dict[str, Any] | None = Field(
        default=None, description="Each key must be in the call's arguments with an equal value."
    )
    hosts: (
        list[Annotated[str, Field(min_length=1, max_length=253, pattern=r"^(\*|(\*\.)?[A-Za-z0-9.-]+)$")]]
        | None
    ) = Field(
        default=None,
        max_length=100,
        description='For http.request: the hosts its URLs may name; ["*"] allows any host.',
    )


class ExecutionPolicy(_Strict):
    """How runs of the automation are executed: limits, retries, concurrency, budget, failure steps."""

    timeout_seconds: int = Field(default=600, ge=1, le=MAX_TIMEOUT_SECONDS)
    max_retries: int = Field(default=0, ge=0, le=MAX_RETRIES)
    retry_backoff: RetryBackoff = "exponential"
    concurrency: Literal["drop_if_running", "queue", "allow_parallel"] = "allow_parallel"
    budget_cap_usd: float | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="Per run: LLM spend above this fails the run (budget_exceeded).",
    )
    max_llm_tokens: int | None = Field(
        default=None,
        ge=1,
        le=100_000_000,
        description="Per run: LLM input + output tokens above this fail the run (unset: the operator's "
        "default, AUTOMATIONS_DEFAULT_RUN_TOKEN_CAP).",
    )
    cost_cap_daily_usd: float | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="Per automation and UTC day: once reached, fires are dropped and a running run stops "
        "at its next model call (unset: the operator's default, AUTOMATIONS_DEFAULT_DAILY_COST_CAP_USD).",
    )
    on_failure: list[Step] = Field(default_factory=list, max_length=MAX_ON_FAILURE_STEPS)
    write_policy: Literal["always_draft", "auto_confirm_safe"] = Field(
        default="auto_confirm_safe",
        description="always_draft: a write that inference would allow needs approval instead.",
    )
    tool_grants: list[ToolGrant] | None = Field(
        default=None,
        max_length=200,
        description="When present, every capability call must fit one of these grants.",
    )


class McpExposure(_Strict):
    """The automation offered as a tool of the space's MCP server, to agents with a token scoped to it."""

    tool_name: str = Field(
        min_length=1,
        max_length=64,
        pattern=MCP_TOOL_NAME_PATTERN,
        description="The tool name, unique among the space's exposed automations (letters, digits, _, -).",
    )
    description: str | None = Field(
        default=None,
        max_length=2000,
        description="What the tool does, for the agent (default: the automation's description or goal).",
    )


class Exposure(_Strict):
    """Where, besides its own triggers, the automation may be called from. Off unless named here."""

    mcp: McpExposure | None = Field(
        default=None,
        description="Offer the automation as a tool of the space's MCP server (trigger type mcp).",
    )


class AutomationDefinition(_Strict):
    """The whole automation: the program the service interprets."""

    schema_version: Literal["1.0"] = "1.0"
    name: str = Field(min_length=1, max_length=200)
    goal: str | None = Field(default=None, max_length=4000)
    description: str | None = Field(default=None, max_length=4000)
    inputs: Inputs = Field(default_factory=Inputs)
    triggers: list[Trigger] = Field(default_factory=list, max_length=MAX_TRIGGERS)
    plan: list[PlanStep] = Field(min_length=1, max_length=MAX_STEPS)
    execution: ExecutionPolicy = Field(default_factory=ExecutionPolicy)
    expose: Exposure | None = Field(
        default=None, description="Offer the automation to outside agents (off when absent)."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name must not be blank")
        return value

    def to_document(self) -> dict[str, Any]:
        """The JSON document as stored: defaults filled in, aliases used, decimals as numbers."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
