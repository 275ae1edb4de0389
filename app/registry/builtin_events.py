"""The core's own event types: a run's end (`automation.run.<status>`) and approvals (`approval.*`).

The schemas describe what `app.services.runs.finishing` publishes on the bus and what
`app.services.outbound.outbox` delivers to webhook endpoints; the tests check real payloads against them.
"""

from __future__ import annotations

from typing import Any

from app.registry.core_events import CoreEvent

_ID = {"type": "string", "format": "uuid"}
_MOMENT = {"type": ["string", "null"], "format": "date-time"}
_TEXT_OR_NULL = {"type": ["string", "null"]}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": sorted(properties), "properties": properties}


def _run_bus_payload(status: str) -> dict[str, Any]:
    return _object(
        {
            "automation_id": _ID,
            "run_id": _ID,
            "status": {"const": status},
            "output": {"description": "The run's output: the last step's output (any JSON value)."},
            "error": {
                "type": ["object", "null"],
                "description": "code, message and details of the failure; null when it succeeded.",
            },
        }
    )


def _run_webhook_data(status: str) -> dict[str, Any]:
    return _object(
        {
            "run_id": _ID,
            "space_id": _ID,
            "automation_id": _ID,
            "automation_name": _TEXT_OR_NULL,
            "automation_version": {"type": "integer", "minimum": 1},
            "status": {"const": status},
            "reason": _TEXT_OR_NULL,
            "trigger_type": {"type": "string"},
            "started_at": _MOMENT,
            "finished_at": _MOMENT,
            "failed_step_id": _TEXT_OR_NULL,
            "error_code": _TEXT_OR_NULL,
            "cost_usd": {"type": "number", "minimum": 0},
            "url": {"type": "string", "description": "The run in the API: fetch details there."},
        }
    )


# Statuses whose end is published on the bus; a dropped run never started, so it is only delivered.
_ON_THE_BUS = ("succeeded", "failed", "cancelled", "timed_out")
_RUN_EVENTS = (
    *(
        CoreEvent(
            type=f"automation.run.{status}",
            description=f"A live run ended {status.replace('_', ' ')}; chain automations on it.",
            payload_schema=_run_bus_payload(status),
            webhook_schema=_run_webhook_data(status),
        )
        for status in _ON_THE_BUS
    ),
    CoreEvent(
        type="automation.run.dropped",
        description="A fire was refused and kept as a dropped run (paused, policy, caps, bad inputs).",
        webhook_schema=_run_webhook_data("dropped"),
    ),
)

_APPROVAL_DATA = _object(
    {
        "approval_id": _ID,
        "space_id": _ID,
        "automation_id": _ID,
        "run_id": _ID,
        "step_id": {"type": "string"},
        "capability": {"type": "string"},
        "status": {"type": "string", "description": "The call's status: pending, approved, denied, expired…"},
        "decision_scope": _TEXT_OR_NULL,
        "denied_reason": _TEXT_OR_NULL,
        "expires_at": _MOMENT,
        "url": {"type": "string"},
    }
)

_APPROVAL_EVENTS = (
    CoreEvent(
        type="approval.requested",
        description="A capability call waits for a human decision (never its parameters).",
        webhook_schema=_APPROVAL_DATA,
    ),
    CoreEvent(
        type="approval.decided",
        description="A waiting call was approved, denied or expired.",
        webhook_schema=_APPROVAL_DATA,
    ),
)

BUILTIN_EVENTS: tuple[CoreEvent, ...] = (*_RUN_EVENTS, *_APPROVAL_EVENTS)
