"""The draft document kept in Redis: a proposal with its problems, review and cost, as the API shows it."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

MAX_REQUEST_CHARS = 4000


class DraftStatus(enum.StrEnum):
    ready = "ready"
    needs_clarification = "needs_clarification"
    failed = "failed"


class DraftProblem(BaseModel):
    """A blocking problem (or a validator warning) of the proposal, located by JSON pointer."""

    path: str
    code: str
    message: str
    severity: Literal["error", "warning"] = "error"


class Flag(BaseModel):
    """Something worth checking before saving. `source` says whether rules or the review model found it."""

    path: str
    code: str
    message: str
    source: Literal["rules", "review"] = "rules"


class Clarification(BaseModel):
    """A question the generator needs answered; answered through `POST …/messages` with `answers`."""

    id: str
    question: str
    path: str | None = None


class CostEstimate(BaseModel):
    """Worst-case LLM spend of the proposal: per run, and per month when the schedule says how often."""

    per_run_usd: float
    runs_per_month: int | None = None
    per_month_usd: float | None = None


class DraftDiff(BaseModel):
    """An RFC 6902 JSON Patch from the base definition, and the same change as a unified diff."""

    patch: list[dict[str, Any]]
    unified: str


class WritePolicyNote(BaseModel):
    """The draft's `execution.write_policy`, why it is what it is, and who chose it.

    `proposed`: the service chose `always_draft` because the model chose writes (`writes` points at
    them); `human`: a person switched it (a new proposal keeps their choice).
    """

    value: Literal["always_draft", "auto_confirm_safe"]
    chosen_by: Literal["proposed", "human"]
    writes: list[str] = Field(default_factory=list)
    explanation: str


class Draft(BaseModel):
    """One draft; `turns` are the user's instructions so far (the request first)."""

    id: str
    space_id: str
    created_by: str
    status: DraftStatus
    request: str
    turns: list[str] = Field(default_factory=list)
    definition: dict[str, Any] | None = None
    summary: str | None = None
    flags: list[Flag] = Field(default_factory=list)
    clarifications: list[Clarification] = Field(default_factory=list)
    problems: list[DraftProblem] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    estimate: CostEstimate | None = None
    attempts: int = 0
    cost_usd: float = 0.0
    model: str
    review_model: str | None = None
    automation_id: str | None = None
    base_version: int | None = None
    base_definition: dict[str, Any] | None = None
    diff: DraftDiff | None = None
    write_policy: WritePolicyNote | None = None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime

    @property
    def blocking(self) -> list[DraftProblem]:
        return [problem for problem in self.problems if problem.severity == "error"]
