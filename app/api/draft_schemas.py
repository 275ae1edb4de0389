"""Bodies of the drafting routes: a request in plain words, its refinements and the draft answered."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from app.api.schemas import Body, ListOut, OverlapOut, ProblemOut

MAX_REQUEST_CHARS = 4000


class DraftCreate(Body):
    request: str = Field(
        min_length=1,
        max_length=MAX_REQUEST_CHARS,
        description="What the automation should do, in plain words.",
    )


class DraftEdit(Body):
    definition: dict[str, Any] = Field(
        description=(
            "The whole proposal, replacing the draft's one: any JSON object, kept as it is; every way it "
            "falls short of a definition is reported in the draft's problems, and it saves only once valid."
        )
    )


class DraftWritePolicy(Body):
    write_policy: Literal["always_draft", "auto_confirm_safe"] = Field(
        description="always_draft: each write outside the service waits for approval; auto_confirm_safe: "
        "writes the saved definition names run without asking."
    )


class DraftMessage(Body):
    message: str | None = Field(
        default=None, max_length=MAX_REQUEST_CHARS, description="What to change, in plain words."
    )
    answers: dict[str, Annotated[str, Field(max_length=MAX_REQUEST_CHARS)]] = Field(
        default_factory=dict, description="Answers to the draft's clarifications, by their id (q1, q2, …)."
    )


class FlagOut(BaseModel):
    path: str = Field(description="JSON pointer into the proposed definition.")
    code: str
    message: str
    source: str = Field(description="`rules` (always computed) or `review` (the review model).")


class DraftOut(BaseModel):
    id: str
    status: str = Field(description="ready | needs_clarification | failed")
    request: str
    turns: list[str] = Field(description="The request and every message since, in order.")
    definition: dict[str, Any] | None
    summary: str | None
    flags: list[FlagOut]
    clarifications: list[dict[str, Any]]
    problems: list[ProblemOut]
    notes: list[str]
    estimate: dict[str, Any] | None = Field(description="Worst-case LLM cost per run and per month.")
    attempts: int = Field(description="Generator calls in the last turn.")
    cost_usd: float = Field(description="What authoring this draft has cost so far.")
    model: str
    review_model: str | None
    automation_id: str | None = Field(description="Set on a draft that changes an existing automation.")
    base_version: int | None
    diff: dict[str, Any] | None = Field(description="RFC 6902 `patch` and `unified` text diff.")
    overlaps: list[OverlapOut] = Field(
        default_factory=list,
        description="Automations of the space the proposal fires, writes or means alike.",
    )
    write_policy: dict[str, Any] | None = Field(
        default=None,
        description="`value`, `chosen_by` (proposed | human), `writes` (pointers) and a plain `explanation`;"
        " null when the proposal writes nothing outside the service and nobody chose a policy.",
    )
    created_by: str
    created_at: datetime
    updated_at: datetime
    expires_at: datetime


class DraftListOut(ListOut[DraftOut]):
    """Every draft of the space in one answer: drafts are not paged."""


class DraftExampleOut(BaseModel):
    name: str
    request: str
    definition: dict[str, Any]
