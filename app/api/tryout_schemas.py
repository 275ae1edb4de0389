"""Request and response bodies of key/value state and replays."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

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
