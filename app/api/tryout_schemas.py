"""Request and response bodies of key/value state and replays."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.api.schemas import Body, Out
from app.definitions.run_modes import LlmMode, RunMode


class KvEntryOut(Out):
    key: str
    value: Any
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime


class KvPut(Body):
    value: Any = Field(description="Any JSON value, at most 64 KB written compactly.")
    ttl_seconds: int | None = Field(
        default=None, description="Expire the key this many seconds from now (1 to 366 days); null: never."
    )


class KvCleared(Out):
    deleted: int


class ReplayCreate(Body):
    version: Literal["current", "snapshot"] = Field(
        default="snapshot",
        description="snapshot: the definition the original run executed; current: the automation's now.",
    )
    mode: RunMode | None = Field(default=None, description="Default: the original run's mode.")
    llm: LlmMode | None = Field(default=None, description="Default: the original run's choice.")


class PreviewCreate(Body):
    inputs: dict[str, Any] = Field(
        default_factory=dict, description="Inputs; the schema's defaults fill the rest."
    )
    trigger_payload: dict[str, Any] = Field(
        default_factory=dict, description="The fire's payload, as `trigger` in templates."
    )


class DefinitionPreviewCreate(PreviewCreate):
    definition: dict[str, Any] = Field(
        description="An unsaved definition (see GET /api/v1/schemas/definition)."
    )


class PreviewOut(BaseModel):
    inputs: dict[str, Any] = Field(description="The resolved inputs, runtime defaults filled.")
    steps: list[dict[str, Any]] = Field(
        description="Per step: `when` (decided, value, or waits_for), rendered `config` or `waits_for`, and "
        "the capability `calls` it would make with the `mode` each would get now."
    )
    external_hosts: list[str]
    cost: dict[str, Any] = Field(description="per_run_usd, basis, runs_per_month, per_month_usd.")
    caps: dict[str, Any] = Field(
        description="The spending caps in effect: daily_cost_usd and run_tokens, each with its value, its "
        "source (automation or operator_default) and the operator's maximum."
    )
    warnings: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Warnings of the definition as stored (path, code, message, severity), e.g. "
        "grant_any_host.",
    )
    schedules: list[dict[str, Any]] = Field(description="The next 5 fire times of each schedule trigger.")
