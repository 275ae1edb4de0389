"""Authoring test data: proposals, scripted provider replies, and what the provider received."""

from __future__ import annotations

import json
from typing import Any

from tests.support.factories import Caller
from tests.support.fake_llm import TEST_MODEL, FakeLlm, json_reply

SUMMARY_SCHEMA = {
    "type": "object",
    "required": ["text"],
    "properties": {"text": {"type": "string"}},
    "additionalProperties": False,
}


def proposal(**changes: Any) -> dict[str, Any]:
    """A valid definition: a weekday schedule, one narrow agent step, one tight HTTP post."""
    definition: dict[str, Any] = {
        "schema_version": "1.0",
        "name": "Weekday issue summary",
        "triggers": [{"type": "schedule", "config": {"cron": "0 9 * * 1-5", "timezone": "Europe/Berlin"}}],
        "plan": [
            {
                "step_id": "think",
                "action": "agent_task",
                "config": {
                    "model": TEST_MODEL,
                    "prompt": "Summarise the new issues for the team.",
                    "tools": [],
                    "max_iterations": 2,
                    "max_tokens": 300,
                    "output_schema": SUMMARY_SCHEMA,
                },
                "output_as": "summary",
            },
            {
                "step_id": "post",
                "action": "http_request",
                "config": {
                    "method": "POST",
                    "url": "https://hooks.example.com/eng",
                    "json": {"text": "{{ summary.text }}"},
                },
            },
        ],
    }
    definition.update(changes)
    return definition


def envelope(definition: Any, clarifications: list[dict[str, Any]] | None = None, **kwargs: Any):  # type: ignore[no-untyped-def]
    return json_reply({"definition": definition, "clarifications": clarifications or []}, **kwargs)


def review_reply(summary: str = "Runs every weekday at 9 and posts a summary.", flags=()):  # type: ignore[no-untyped-def]
    return json_reply({"summary": summary, "flags": list(flags)})


def is_review(request: dict[str, Any]) -> bool:
    return "You review an automation definition" in json.dumps(request["messages"])


def sent(llm: FakeLlm) -> str:
    """Everything the provider received, as one text."""
    return json.dumps(llm.requests)


async def draft_from(
    owner: Caller, request: str = "Every weekday at 9, summarise new issues and post them"
) -> Any:
    return await owner.request("POST", owner.space_path("/drafts"), json={"request": request})
