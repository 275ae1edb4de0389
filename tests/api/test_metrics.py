"""`/metrics`: Prometheus text with bounded labels, summed over every API process of the host."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from httpx import ASGITransport, AsyncClient
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.parser import text_string_to_metric_families

from app import metrics
from app.config import Settings
from app.devstack import free_port
from app.main import create_app
from tests.governed.helpers import name, waiting_run
from tests.support.approvals import the_approval
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.processes import ServiceProcess
from tests.support.runs import definition, start, wait_for

HOOKED = {
    "schema_version": "1.0",
    "name": "Counted webhook",
    "triggers": [{"type": "webhook", "config": {}}],
    "plan": [{"step_id": "a", "action": "transform_data", "config": {"output": "{{ trigger.n }}"}}],
}


def _samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Every sample of metric `name` by its sorted labels."""
    found: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def _label_values(text: str) -> set[str]:
    """Every label value of every `automations_` sample."""
    return {
        value
        for family in text_string_to_metric_families(text)
        if family.name.startswith("automations_")
        for sample in family.samples
        for value in sample.labels.values()
    }


# An id in any form the service writes one: a UUID, with or without dashes, or a long run of hex.
_ID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|[0-9a-f]{16,}", re.I)


def _fires(text: str, code: str) -> float:
    return sum(
        value
        for labels, value in _samples(text, "automations_webhook_fires_total").items()
        if ("code", code) in labels
    )


async def _hook(owner: Caller) -> tuple[str, str]:
    automation = await owner.create_automation(HOOKED)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    return str(automation["id"]), str(automation["triggers"][0]["token"])


class TestInProcess:
    async def test_fires_and_refusals_are_counted_without_ids(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, token = await _hook(owner)
        before = (await owner.client.get("/metrics")).text
        path = f"/api/v1/automations/{automation_id}/fire"
        for _ in range(3):
            response = await owner.client.post(
                path, json={"n": 1}, headers={"Authorization": f"Bearer {token}"}
            )
            assert response.status_code == 202, response.text
        refused = await owner.client.post(path, json={}, headers={"Authorization": "Bearer awh_wrong"})
        assert refused.status_code == 401
        answer = await owner.client.get("/metrics")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain")
        after = answer.text
        assert _fires(after, "202") - _fires(before, "202") == 3
        assert _fires(after, "401") - _fires(before, "401") == 1
        created = _samples(after, "automations_runs_created_total")
        assert created[(("status", "pending"), ("trigger", "webhook"))] >= 3
        # Bounded labels: no automation, run or space id ever becomes a label value.
        assert automation_id not in after
        assert owner.space_id not in after
        assert not [value for value in _label_values(after) if _ID.search(value)]

    async def test_metrics_can_be_turned_off(self, settings: Settings) -> None:
        application = create_app(settings.model_copy(update={"metrics_enabled": False}))
        try:
            async with AsyncClient(transport=ASGITransport(app=application), base_url="http://t") as client:
                assert (await client.get("/metrics")).status_code == 404
            assert not metrics.enabled()
            metrics.webhook_answered(202)  # recording while off is a no-op, not an error
        finally:
            metrics.configure(enabled=True)

    def test_the_helpers_for_invocations_and_approvals(self) -> None:
        before = metrics.INVOCATIONS.labels(mode="require_approval")._value.get()
        metrics.count_invocation("require_approval")
        metrics.set_pending_approvals(4)
        assert metrics.INVOCATIONS.labels(mode="require_approval")._value.get() == before + 1
        assert metrics.PENDING_APPROVALS._value.get() == 4


class TestBoundedLabels:
    def test_label_sets_past_the_cap_are_counted_under_other(self) -> None:
        counter = Counter("bounded_total", "Label cap.", ["model"], registry=CollectorRegistry())
        series = metrics.LabelledSeries(counter)
        extra = 25
        for n in range(metrics.MAX_SERIES + extra):
            series(f"model-{n}").inc()
        series("model-0").inc()  # a value bound before the cap keeps its own series
        series(f"model-{metrics.MAX_SERIES + 1}").inc()  # one past it stays folded
        values = {
            sample.labels["model"]: sample.value
            for family in counter.collect()
            for sample in family.samples
            if sample.name == "bounded_total"
        }
        assert len(values) == metrics.MAX_SERIES + 1
        assert values[metrics.OVERFLOW] == extra + 1
        assert values["model-0"] == 2
        assert f"model-{metrics.MAX_SERIES}" not in values
        assert sum(values.values()) == metrics.MAX_SERIES + extra + 2, "nothing recorded is lost"

    def test_a_series_is_bound_once_and_reused(self) -> None:
        counter = Counter("reused_total", "Reuse.", ["status"], registry=CollectorRegistry())
        series = metrics.LabelledSeries(counter)
        assert series("succeeded") is series("succeeded")
        assert series("succeeded") is counter.labels(status="succeeded")
        assert series("failed") is not series("succeeded")

    def test_a_wrong_number_of_label_values_is_refused(self) -> None:
        series = metrics.LabelledSeries(
            Counter("arity_total", "Arity.", ["a", "b"], registry=CollectorRegistry())
        )
        with pytest.raises(ValueError):
            series("only-one")


def _wait_ready(url: str, process: ServiceProcess, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.alive(), process.log_tail()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"the api did not start:\n{process.log_tail()}")


class TestApiWorkers:
    async def test_every_api_process_counts_into_one_scrape(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await factory.owner()
        automation_id, token = await _hook(owner)
        port = free_port()
        env: dict[str, Any] = {
            **service_env,
            "AUTOMATIONS_HOME": str(tmp_path),
            "AUTOMATIONS_API_WORKERS": "2",
        }
        process = ServiceProcess.cli("api-workers", ["api", "--port", str(port)], env, tmp_path)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, process)
            assert len(psutil.Process(process.pid).children()) >= 2, "two API processes"
            fires = 12
            async with httpx.AsyncClient(
                base_url=url, timeout=30, limits=httpx.Limits(max_keepalive_connections=0)
            ) as client:
                for n in range(fires):  # a fresh connection each: the kernel spreads them over both processes
                    response = await client.post(
                        f"/api/v1/automations/{automation_id}/fire",
                        json={"n": n},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    assert response.status_code == 202, response.text
                for _ in range(6):  # whichever process answers, it reports the sum over all of them
                    scrape = await client.get("/metrics")
                    assert scrape.status_code == 200
                    assert _fires(scrape.text, "202") == fires
            assert list((tmp_path / "metrics").glob("counter_*.db")), "each process writes its own file"
        finally:
            process.stop(graceful=False)

    @pytest.mark.parametrize("value", ["0", "-1", "many"])
    def test_a_bad_worker_count_is_refused(self, service_env: dict[str, str], value: str) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "app.cli", "api", "--workers", value],
            env=service_env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2
        assert "--workers" in result.stderr
        assert "Traceback" not in result.stderr


RUN_PLAN = definition(
    {"step_id": "a", "action": "transform_data", "config": {"output": "first"}},
    {"step_id": "b", "action": "transform_data", "config": {"output": "second"}},
)


def _delta(after: str, before: str, name: str, labels: tuple[tuple[str, str], ...] = ()) -> float:
    return _samples(after, name).get(labels, 0.0) - _samples(before, name).get(labels, 0.0)


class TestWorkerMetrics:
    async def test_a_real_run_is_counted_on_the_api_scrape_by_status_and_action(
        self,
        factory: Factory,
        stack: tuple[ServiceProcess, ServiceProcess],
        service_env: dict[str, str],
        settings: Settings,
        tmp_path: Path,
    ) -> None:
        owner = await factory.owner()
        port = free_port()
        # Same home as the session's worker: the api's /metrics sums the worker's files too.
        env = {**service_env, "AUTOMATIONS_API_WORKERS": "1"}
        process = ServiceProcess.cli("api-scrape", ["api", "--port", str(port)], env, tmp_path)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, process)
            async with httpx.AsyncClient(base_url=url, timeout=30) as client:
                before = (await client.get("/metrics")).text
                automation_id, run = await start(owner, RUN_PLAN)
                finished = await wait_for(owner, run["id"])
                assert finished["status"] == "succeeded", finished
                after = (await client.get("/metrics")).text
        finally:
            process.stop(graceful=False)
        assert _delta(after, before, "automations_runs_started_total") == 1
        assert _delta(after, before, "automations_runs_finished_total", (("status", "succeeded"),)) == 1
        assert (
            _delta(after, before, "automations_run_duration_seconds_count", (("status", "succeeded"),)) == 1
        )
        assert _delta(after, before, "automations_run_queue_wait_seconds_count") == 1
        step = (("action", "transform_data"), ("outcome", "succeeded"))
        assert _delta(after, before, "automations_step_duration_seconds_count", step) == 2
        # Bounded labels: no id of this run, its automation or its space, nor any other id-like value.
        values = _label_values(after)
        assert _ID.search(run["id"]), "the pattern catches the ids the service writes"
        assert not {run["id"], automation_id, owner.space_id} & values
        assert not [value for value in values if _ID.search(value)], values

    async def test_an_approval_is_measured_from_request_to_decision_and_to_execution(
        self,
        factory: Factory,
        stack: tuple[ServiceProcess, ServiceProcess],
        service_env: dict[str, str],
        loopback: Loopback,
        tmp_path: Path,
    ) -> None:
        owner = await factory.owner()
        port = free_port()
        env = {**service_env, "AUTOMATIONS_API_WORKERS": "1"}
        process = ServiceProcess.cli("api-approvals", ["api", "--port", str(port)], env, tmp_path)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, process)
            _, run = await waiting_run(owner, loopback, name("metrics"))
            approval = await the_approval(owner, run["id"])
            async with httpx.AsyncClient(base_url=url, timeout=30, headers=owner.headers) as client:
                before = (await client.get("/metrics")).text
                decided = await client.post(
                    f"/api/v1/spaces/{owner.space_id}/approvals/{approval['id']}/approve", json={}
                )
                assert decided.status_code == 200, decided.text
                assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
                after = (await client.get("/metrics")).text
        finally:
            process.stop(graceful=False)
        approved = (("outcome", "approved"),)
        assert _delta(after, before, "automations_approval_decision_seconds_count", approved) == 1
        assert _delta(after, before, "automations_approval_execution_seconds_count") == 1
