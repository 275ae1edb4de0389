"""Prometheus metrics: what the service counts and measures, and how `/metrics` reads them.

Every process records into prometheus-client's metrics below. With several processes (API workers
started by `automations api`, Celery pool children) each one writes its values to files in one folder
(`PROMETHEUS_MULTIPROC_DIR`, set by the CLI before any metric exists) and `/metrics` sums the folder, so
a scrape sees the whole host. A lone process with no folder keeps them in memory.

Label values are bounded: statuses, trigger types, action names, queue names, model names, HTTP answer
codes. Never an automation, run or space id. Each labelled metric also caps how many label sets one process
records (`MAX_SERIES`); past it, new values are counted under `other`, so a value that should have been
bounded and was not (a model name a provider made up) cannot grow the scrape without end.

The helpers sit on the hot paths (a webhook fire, every step of every run), so each call is only the write
itself: children are bound once per label values and kept, instead of `labels()` on every call
(`bench/metrics_overhead.py` measures what recording costs per fire and per run).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Generic, TypeVar

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.metrics import MetricWrapperBase

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_PREFIX = "automations_"
# Seconds: a fire answers in milliseconds, a run takes from milliseconds to hours.
_RUN_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)
_FAST_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1)

RUNS_CREATED = Counter(
    _PREFIX + "runs_created_total",
    "Runs a fire created, by trigger type and first status.",
    ["trigger", "status"],
)
RUNS_STARTED = Counter(_PREFIX + "runs_started_total", "Runs a worker claimed and started.")
RUNS_FINISHED = Counter(_PREFIX + "runs_finished_total", "Runs that reached a terminal status.", ["status"])
RUN_DURATION = Histogram(
    _PREFIX + "run_duration_seconds",
    "Claimed to finished, by terminal status.",
    ["status"],
    buckets=_RUN_BUCKETS,
)
RUN_QUEUE_WAIT = Histogram(
    _PREFIX + "run_queue_wait_seconds", "Enqueued (or created) to first claimed.", buckets=_RUN_BUCKETS
)
STEP_DURATION = Histogram(
    _PREFIX + "step_duration_seconds",
    "One step attempt, by action and outcome.",
    ["action", "outcome"],
    buckets=_RUN_BUCKETS,
)
QUEUE_DEPTH = Gauge(
    _PREFIX + "queue_depth",
    "Messages waiting on each Celery queue (sampled on beat's tick).",
    ["queue"],
    multiprocess_mode="mostrecent",
)
PENDING_RUNS = Gauge(
    _PREFIX + "pending_runs",
    "Pending runs of each run queue that a worker could claim now (counted on beat's tick).",
    ["queue"],
    multiprocess_mode="mostrecent",
)
LLM_COST = Counter(_PREFIX + "llm_cost_usd_total", "Spend recorded in the cost ledger, by model.", ["model"])
LLM_TOKENS = Counter(
    _PREFIX + "llm_tokens_total", "LLM tokens by model and direction.", ["model", "direction"]
)
WEBHOOK_FIRES = Counter(_PREFIX + "webhook_fires_total", "Webhook fires by HTTP answer.", ["code"])
EVENT_MATCH = Histogram(
    _PREFIX + "event_match_seconds",
    "Matching one event against its candidate triggers.",
    buckets=_FAST_BUCKETS,
)
EVENTS_DISPATCHED = Counter(_PREFIX + "events_dispatched_total", "Events matched and dispatched.")
SCHEDULE_LAG = Histogram(
    _PREFIX + "schedule_lag_seconds",
    "A schedule slot's due time to the tick that fired it.",
    buckets=_RUN_BUCKETS,
)
INVOCATIONS = Counter(
    _PREFIX + "invocations_total", "Capability invocations by resolved permission mode.", ["mode"]
)
PENDING_APPROVALS = Gauge(
    _PREFIX + "pending_approvals", "Invocations waiting for a human decision.", multiprocess_mode="mostrecent"
)
APPROVAL_DECISION_WAIT = Histogram(
    _PREFIX + "approval_decision_seconds",
    "An approval's request to its decision, by outcome (approved, denied).",
    ["outcome"],
    buckets=(*_RUN_BUCKETS, 14400, 86400),
)
APPROVAL_EXECUTION_WAIT = Histogram(
    _PREFIX + "approval_execution_seconds",
    "An approved call's decision to the end of its execution on the worker that resumed the run.",
    buckets=_RUN_BUCKETS,
)
MCP_DRIFT = Counter(
    _PREFIX + "mcp_drift_total",
    "MCP tools found changed (schemas or safety annotations) or gone since their last listing, by when it"
    " was found (harvest, call) and the change (changed, removed).",
    ["detected_by", "change"],
)


MAX_SERIES = 200
OVERFLOW = "other"

_M = TypeVar("_M", bound=MetricWrapperBase)


class LabelledSeries(Generic[_M]):
    """A labelled metric's children by label values, bound on first use and kept.

    A call is one dict lookup; `labels()` would take a lock, check the label names and convert the
    values on every call. At most `MAX_SERIES` label sets are kept; any further one is recorded under
    `other` (one more series), so neither the scrape nor this cache grows without end.
    """

    __slots__ = ("_children", "_metric", "_overflow")

    def __init__(self, metric: _M) -> None:
        self._metric = metric
        self._children: dict[tuple[str, ...], _M] = {}
        self._overflow: _M | None = None

    def __call__(self, *values: str) -> _M:
        child = self._children.get(values)
        return child if child is not None else self._bind(values)

    def _bind(self, values: tuple[str, ...]) -> _M:
        if len(self._children) < MAX_SERIES:
            child: _M = self._metric.labels(*values)
            self._children[values] = child
            return child
        if self._overflow is None:
            self._overflow = self._metric.labels(*(OVERFLOW for _ in values))
        return self._overflow


_runs_created = LabelledSeries(RUNS_CREATED)
_runs_finished = LabelledSeries(RUNS_FINISHED)
_run_duration = LabelledSeries(RUN_DURATION)
_step_duration = LabelledSeries(STEP_DURATION)
_queue_depth = LabelledSeries(QUEUE_DEPTH)
_pending_runs = LabelledSeries(PENDING_RUNS)
_llm_cost = LabelledSeries(LLM_COST)
_llm_tokens = LabelledSeries(LLM_TOKENS)
_webhook_fires = LabelledSeries(WEBHOOK_FIRES)
_invocations = LabelledSeries(INVOCATIONS)
_mcp_drift = LabelledSeries(MCP_DRIFT)
_approval_decision = LabelledSeries(APPROVAL_DECISION_WAIT)

_state = {"enabled": True}


def configure(*, enabled: bool) -> None:
    """Record metrics or not (AUTOMATIONS_METRICS_ENABLED); off, every recording helper returns at once."""
    _state["enabled"] = enabled


def enabled() -> bool:
    return _state["enabled"]


def count_invocation(mode: str) -> None:
    """One capability invocation resolved to `mode` (allow, deny, require_approval, ...): a bounded set."""
    if _state["enabled"]:
        _invocations(mode).inc()


def mcp_drift(detected_by: str, change: str, count: int) -> None:
    """`count` MCP tools found drifted: `detected_by` harvest or call, `change` changed or removed."""
    if _state["enabled"] and count > 0:
        _mcp_drift(detected_by, change).inc(count)


def set_pending_approvals(count: int) -> None:
    """How many invocations wait for approval right now (call where that number is known)."""
    if _state["enabled"]:
        PENDING_APPROVALS.set(count)


def approval_decided(outcome: str, seconds: float) -> None:
    """A call was approved or denied `seconds` after it asked (`outcome`: approved or denied)."""
    if _state["enabled"]:
        _approval_decision(outcome).observe(max(0.0, seconds))


def approval_executed(seconds: float) -> None:
    """An approved call finished running `seconds` after its decision."""
    if _state["enabled"]:
        APPROVAL_EXECUTION_WAIT.observe(max(0.0, seconds))


def run_created(trigger: str, status: str) -> None:
    if _state["enabled"]:
        _runs_created(trigger, status).inc()


def run_started(queue_wait_seconds: float | None) -> None:
    if _state["enabled"]:
        RUNS_STARTED.inc()
        if queue_wait_seconds is not None:
            RUN_QUEUE_WAIT.observe(max(0.0, queue_wait_seconds))


def run_finished(status: str, duration_seconds: float | None) -> None:
    if _state["enabled"]:
        _runs_finished(status).inc()
        if duration_seconds is not None:
            _run_duration(status).observe(max(0.0, duration_seconds))


def step_finished(action: str, outcome: str, seconds: float) -> None:
    if _state["enabled"]:
        _step_duration(action, outcome).observe(max(0.0, seconds))


def queue_depth(queue: str, depth: int) -> None:
    if _state["enabled"]:
        _queue_depth(queue).set(depth)


def pending_runs(queue: str, count: int) -> None:
    if _state["enabled"]:
        _pending_runs(queue).set(count)


def llm_usage(model: str, cost: float, tokens_in: int, tokens_out: int) -> None:
    if _state["enabled"]:
        _llm_cost(model).inc(max(0.0, cost))
        _llm_tokens(model, "input").inc(max(0, tokens_in))
        _llm_tokens(model, "output").inc(max(0, tokens_out))


def webhook_answered(code: int) -> None:
    if _state["enabled"]:
        _webhook_fires(str(code)).inc()


def event_matched(seconds: float) -> None:
    if _state["enabled"]:
        EVENTS_DISPATCHED.inc()
        EVENT_MATCH.observe(seconds)


def schedule_fired(lag_seconds: float) -> None:
    if _state["enabled"]:
        SCHEDULE_LAG.observe(max(0.0, lag_seconds))


def metrics_folder() -> Path | None:
    """The multiprocess folder this process writes to, if any."""
    value = os.environ.get(MULTIPROC_ENV)
    return Path(value) if value else None


def exposition() -> tuple[bytes, str]:
    """The text `/metrics` answers with, and its content type: every process of the folder, or this one."""
    folder = metrics_folder()
    if folder is None:
        from prometheus_client import REGISTRY

        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]
    return generate_latest(registry), CONTENT_TYPE_LATEST
