"""The MCP server keeps no session between requests: one client's calls, spread over the processes of a
real multi-process `automations api`, all succeed."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import httpx2
import psutil
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.multiprocess import MultiProcessCollector

from app.devstack import free_port
from tests.mcp_server.conftest import active_tool, runs_of, scoped_token
from tests.support.factories import Factory
from tests.support.processes import ServiceProcess

CALLS = 100


def _wait_ready(url: str, process: ServiceProcess, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.alive(), process.log_tail()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"the api did not start:\n{process.log_tail()}")


def _mcp_fires_per_process(metrics_folder: Path) -> list[float]:
    """Runs each API process created for an MCP call, read from its own metrics file."""
    counts = []
    for path in sorted(metrics_folder.glob("counter_*.db")):
        fires = 0.0
        for family in MultiProcessCollector.merge([str(path)], accumulate=False):
            for sample in family.samples:
                if sample.name.endswith("runs_created_total") and sample.labels.get("trigger") == "mcp":
                    fires += sample.value
        counts.append(fires)
    return counts


async def test_a_hundred_calls_spread_over_api_processes_all_succeed(
    factory: Factory,
    service_env: dict[str, str],
    tmp_path: Path,
    stack: tuple[ServiceProcess, ServiceProcess],
) -> None:
    owner = await factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])
    port = free_port()
    env: dict[str, Any] = {**service_env, "AUTOMATIONS_HOME": str(tmp_path), "AUTOMATIONS_API_WORKERS": "2"}
    process = ServiceProcess.cli("api-mcp", ["api", "--port", str(port)], env, tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process)
        assert len(psutil.Process(process.pid).children()) >= 2, "two API processes"
        # No kept-alive connections: each request opens its own, and the kernel hands it to either process.
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
            limits=httpx2.Limits(max_keepalive_connections=0),
        )
        async with http:
            transport = streamable_http_client(f"{url}/api/v1/spaces/{owner.space_id}/mcp", http_client=http)
            async with Client(transport, cache=None) as client:
                assert [tool.name for tool in (await client.list_tools()).tools] == ["greet"]
                results = [await client.call_tool("greet", {"name": f"caller {n}"}) for n in range(CALLS)]
    finally:
        process.stop(graceful=False)

    for n, result in enumerate(results):
        assert not result.is_error, (n, result)
        assert result.structured_content is not None
        assert result.structured_content["status"] == "succeeded", (n, result.structured_content)
        assert result.structured_content["output"] == {"greet": {"greeting": f"Hello, caller {n}!"}}
    runs = await runs_of(owner, greeter["id"])
    assert (
        len({result.structured_content["run_id"] for result in results if result.structured_content}) == CALLS
    )
    assert {run["trigger_type"] for run in runs} == {"mcp"}
    per_process = _mcp_fires_per_process(tmp_path / "metrics")
    assert sum(per_process) == CALLS
    assert sum(1 for fires in per_process if fires > 0) >= 2, (
        f"calls landed on one process only: {per_process}"
    )
