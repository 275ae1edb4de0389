"""`wait`, `wait_for_event`, `call_automation`: steps that pause their run durably.

Each registers what it waits for through `ctx.ports.waits` (a row keyed by the run and the step's path)
and raises `Wait`: the run then holds no worker until the time comes, a matching event arrives or the
child run ends. The next claim runs the same attempt again, which finds its wait satisfied (or raises
`Wait` again). Registering is idempotent, so a re-run after a crash neither waits twice nor starts a
second child run.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from app.definitions.signals import StepError, Wait
from app.registry.models import ActionDefinition
from app.registry.ports import HandlerContext
from app.registry.wait_ports import WaitPort, WaitState

DEFAULT_MAX_WAIT_SECONDS = 30 * 24 * 3600
DEFAULT_EVENT_TIMEOUT = "P7D"
MAX_CHILD_DEPTH = 5
# ISO 8601 durations of fixed length: weeks, days, hours, minutes, seconds (years and months vary).
_DURATION = re.compile(
    r"^P(?!$)(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)
_DURATION_TEXT = {
    "type": "string",
    "minLength": 2,
    "maxLength": 64,
    "description": "An ISO 8601 duration of weeks, days, hours, minutes, seconds: PT10M, P2D, P1DT12H.",
}


def parse_duration(text: str) -> timedelta:
    """An ISO 8601 duration (`PT10M`, `P1DT2H`, `P2W`) as a timedelta; ValueError for anything else."""
    match = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not an ISO 8601 duration like PT10M or P1DT2H (no years or months)")
    parts = {name: float(value) for name, value in match.groupdict().items() if value is not None}
    return timedelta(**parts)


def parse_moment(text: str) -> datetime:
    """An ISO 8601 date-time with its offset; ValueError for anything else (a naive time is ambiguous)."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone offset (add Z or +hh:mm)")
    return moment


def _is_template(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def wait_config_problems(
    action: str, config: Any, *, max_seconds: float = DEFAULT_MAX_WAIT_SECONDS, now: datetime | None = None
) -> list[tuple[str, str, str]]:
    """Save-time check of a waiting step's config where it holds no template: (JSON pointer under the
    config, code, message) for each duration or time that cannot be read or waits past `max_seconds`
    (`wait_too_long`). A templated value is checked when the step runs."""
    if not isinstance(config, dict):
        return []
    problems: list[tuple[str, str, str]] = []
    fields = {"wait": ("for",), "wait_for_event": ("timeout",)}.get(action, ())
    for name in fields:
        value = config.get(name)
        if value is None or _is_template(value):
            continue
        try:
            length = parse_duration(value)
        except ValueError as exc:
            problems.append((f"/{name}", "invalid_duration", str(exc)))
            continue
        if length.total_seconds() > max_seconds:
            problems.append((f"/{name}", "wait_too_long", _too_long(length.total_seconds(), max_seconds)))
    if action == "wait" and isinstance(config.get("until"), str) and not _is_template(config["until"]):
        try:
            moment = parse_moment(config["until"])
        except ValueError as exc:
            problems.append(("/until", "invalid_datetime", str(exc)))
        else:
            if now is not None and (moment - now).total_seconds() > max_seconds:
                problems.append(
                    ("/until", "wait_too_long", _too_long((moment - now).total_seconds(), max_seconds))
                )
    return problems


def _too_long(seconds: float, max_seconds: float) -> str:
    return f"a wait of {seconds:.0f} s is longer than the {max_seconds:.0f} s a step may wait"


def _port(ctx: HandlerContext) -> WaitPort:
    if ctx.ports.waits is None:
        raise StepError("waits_unavailable", "waiting needs a run of a saved automation", retryable=False)
    return ctx.ports.waits


def _length(text: str, field: str, port: WaitPort) -> timedelta:
    try:
        length = parse_duration(text)
    except ValueError as exc:
        raise StepError("invalid_duration", f"{field}: {exc}", retryable=False) from None
    if length.total_seconds() > port.max_wait_seconds:
        raise StepError(
            "wait_too_long", _too_long(length.total_seconds(), port.max_wait_seconds), retryable=False
        )
    return length


async def _wait(ctx: HandlerContext, config: dict[str, Any]) -> dict[str, Any]:
    port = _port(ctx)
    now = port.now()
    if "for" in config:
        due_at = now + _length(config["for"], "for", port)
    else:
        try:
            due_at = parse_moment(str(config["until"]))
        except ValueError as exc:
            raise StepError("invalid_datetime", f"until: {exc}", retryable=False) from None
        if (due_at - now).total_seconds() > port.max_wait_seconds:
            raise StepError(
                "wait_too_long",
                _too_long((due_at - now).total_seconds(), port.max_wait_seconds),
                retryable=False,
            )
    # A re-entry meets the row its first attempt wrote: the due time stays the first one.
    state = await port.until(ctx.step_path, due_at)
    due = state.due_at or due_at
    if state.satisfied or port.now() >= due:
        return {"waited_until": due.isoformat()}
    raise Wait("time", until=due.isoformat())


async def _wait_for_event(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    port = _port(ctx)
    timeout = _length(config.get("timeout", DEFAULT_EVENT_TIMEOUT), "timeout", port)
    state = await port.event(
        ctx.step_path,
        event_type=config["event_type"],
        filter=config.get("filter"),
        due_at=port.now() + timeout,
    )
    if not state.satisfied:
        until = state.due_at.isoformat() if state.due_at is not None else None
        raise Wait("event", until=until, details={"event_type": config["event_type"]})
    outcome = state.outcome if isinstance(state.outcome, dict) else {}
    if "payload" in outcome:
        return outcome["payload"]
    if config.get("on_timeout", "fail") == "continue":
        return {"timed_out": True}
    raise StepError(
        "wait_timeout",
        f"no {config['event_type']} event arrived within {config.get('timeout', DEFAULT_EVENT_TIMEOUT)}",
        retryable=False,
    )


async def _call_automation(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    port = _port(ctx)
    wait = bool(config.get("wait", True))
    state = await port.child(
        ctx.step_path,
        automation_id=str(config["automation"]),
        inputs=dict(config.get("inputs") or {}),
        wait=wait,
    )
    if not wait:
        return {"run_id": state.child_run_id}
    if not state.satisfied:
        raise Wait("child", details={"run_id": state.child_run_id})
    result = state.outcome if isinstance(state.outcome, dict) else {}
    if result.get("status") == "succeeded":
        return result.get("output")
    error = result.get("error") or {}
    raise StepError(
        "child_failed",
        f"the child run {state.child_run_id} ended {result.get('status')}"
        + (f": {error.get('message')}" if isinstance(error, dict) and error.get("message") else ""),
        retryable=False,
        details={"run_id": state.child_run_id, "status": result.get("status"), "error": error},
    )


_ANY_OUTPUT: dict[str, Any] = {"description": "Any JSON value."}

WAIT = ActionDefinition(
    type="wait",
    name="Wait",
    description=(
        "Pause the run for a duration (`for`: ISO 8601, e.g. PT10M) or until a time (`until`), holding no "
        "worker; the time spent waiting does not count against the run's timeout."
    ),
    config_schema={
        "type": "object",
        "properties": {
            "for": _DURATION_TEXT,
            "until": {"type": "string", "minLength": 1, "description": "An ISO 8601 date-time with offset."},
        },
        "oneOf": [{"required": ["for"]}, {"required": ["until"]}],
        "additionalProperties": False,
    },
    output_contract={
        "type": "object",
        "required": ["waited_until"],
        "properties": {"waited_until": {"type": "string"}},
    },
    handler=_wait,
    duration_class="fast",
    example_output={"waited_until": "2026-01-01T00:00:00+00:00"},
)

WAIT_FOR_EVENT = ActionDefinition(
    type="wait_for_event",
    name="Wait for an event",
    description=(
        "Pause the run until an event of the space matches `event_type` (or `prefix.*`) and `filter` "
        "(values may be templates); answers the event's payload. Only events published after the step "
        "began count. After `timeout` (default P7D): fail (`wait_timeout`) or continue with "
        '{"timed_out": true}.'
    ),
    config_schema={
        "type": "object",
        "required": ["event_type"],
        "properties": {
            "event_type": {"type": "string", "minLength": 1, "maxLength": 200},
            "filter": {"type": "object", "description": "The event filter grammar, over the payload."},
            "timeout": _DURATION_TEXT,
            "on_timeout": {"enum": ["fail", "continue"]},
        },
        "additionalProperties": False,
    },
    output_contract=_ANY_OUTPUT,
    handler=_wait_for_event,
    duration_class="fast",
)

CALL_AUTOMATION = ActionDefinition(
    type="call_automation",
    name="Call an automation",
    description=(
        "Start a run of another automation of the space with `inputs` (a child run, at most "
        f"{MAX_CHILD_DEPTH} deep) and, with `wait` (default), pause until it ends: its output becomes "
        'this step\'s, its failure fails the step (`child_failed`). Without `wait`: {"run_id"} at once.'
    ),
    config_schema={
        "type": "object",
        "required": ["automation"],
        "properties": {
            "automation": {"type": "string", "minLength": 1, "description": "The automation's id."},
            "inputs": {"type": "object"},
            "wait": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    output_contract=_ANY_OUTPUT,
    handler=_call_automation,
    duration_class="fast",
)

WAIT_ACTIONS: tuple[ActionDefinition, ...] = (WAIT, WAIT_FOR_EVENT, CALL_AUTOMATION)

__all__ = [
    "CALL_AUTOMATION",
    "DEFAULT_MAX_WAIT_SECONDS",
    "MAX_CHILD_DEPTH",
    "WAIT",
    "WAIT_ACTIONS",
    "WAIT_FOR_EVENT",
    "WaitState",
    "parse_duration",
    "parse_moment",
    "wait_config_problems",
]
