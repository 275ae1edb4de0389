"""A tool call is a fire like any other: limits, caps and approvals apply, and every call is a listed run."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from httpx import ASGITransport, AsyncClient

from app.config import Settings
from tests.mcp_server.conftest import active_tool, mcp_client, runs_of, scoped_token
from tests.support.approvals import set_modes, the_approval
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.processes import ServiceProcess
from tests.support.runs import http_step, wait_for


@pytest.fixture
async def tuned_app(
    settings: Settings, clean_db: None, request: pytest.FixtureRequest
) -> AsyncIterator[FastAPI]:
    """The API with the settings a test passes in `parametrize("tuned_app", [{...}], indirect=True)`."""
    from app.main import create_app

    application = create_app(settings.model_copy(update=request.param))
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def tuned_factory(tuned_app: FastAPI) -> AsyncIterator[Factory]:
    async with AsyncClient(transport=ASGITransport(app=tuned_app), base_url="http://testserver") as http:
        yield Factory(tuned_app, http)


@pytest.mark.parametrize("tuned_app", [{"mcp_rate_limit": 1, "mcp_rate_window_seconds": 3600}], indirect=True)
async def test_calls_over_the_rate_limit_are_refused_without_a_run(
    tuned_app: FastAPI, tuned_factory: Factory
) -> None:
    owner = await tuned_factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])

    async with mcp_client(tuned_app, owner.space_id, token) as client:
        first = await client.call_tool("greet", {"name": "Ada"})
        second = await client.call_tool("greet", {"name": "Bea"})

    assert not first.is_error, first
    assert second.is_error
    assert second.structured_content is not None
    assert second.structured_content["error"]["code"] == "rate_limited"
    assert "try again in" in second.content[0].text  # type: ignore[union-attr]
    assert len(await runs_of(owner, greeter["id"])) == 1


@pytest.mark.parametrize("tuned_app", [{"mcp_call_wait_seconds": 0}], indirect=True)
async def test_a_run_that_does_not_finish_in_time_is_answered_with_its_id_and_status(
    tuned_app: FastAPI, tuned_factory: Factory, stack: tuple[ServiceProcess, ServiceProcess]
) -> None:
    owner = await tuned_factory.owner()
    greeter = await active_tool(owner, "greet")
    token = await scoped_token(owner, greeter["id"])

    async with mcp_client(tuned_app, owner.space_id, token) as client:
        result = await client.call_tool("greet", {"name": "Ada"})

    assert not result.is_error, result
    assert result.structured_content is not None
    assert result.structured_content["status"] in {"queued", "pending", "running"}
    assert "output" not in result.structured_content
    run_id = result.structured_content["run_id"]
    assert result.structured_content["url"] == owner.space_path(f"/runs/{run_id}")
    finished = await wait_for(owner, run_id, timeout=60)
    assert finished["status"] == "succeeded", "the run goes on after the answer"


async def test_a_daily_cap_reached_drops_the_call_with_a_tool_error_and_a_listed_run(
    app: FastAPI, factory: Factory
) -> None:
    owner = await factory.owner()
    capped = await active_tool(owner, "capped", execution={"cost_cap_daily_usd": 0})
    token = await scoped_token(owner, capped["id"])

    async with mcp_client(app, owner.space_id, token) as client:
        result = await client.call_tool("capped", {"name": "Ada"})

    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["status"] == "dropped"
    assert result.structured_content["reason"].startswith("daily_cost_cap_reached")
    [run] = await runs_of(owner, capped["id"])
    assert (run["status"], run["trigger_type"]) == ("dropped", "mcp")


async def test_a_call_that_needs_approval_answers_at_once_with_the_approval(
    app: FastAPI, factory: Factory, loopback: Loopback, stack: tuple[ServiceProcess, ServiceProcess]
) -> None:
    owner = await factory.owner()
    automation = await active_tool(
        owner, "guarded", plan=[http_step("call", f"{loopback.url}/count/mcp-guarded")]
    )
    await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
    token = await scoped_token(owner, automation["id"])

    async with mcp_client(app, owner.space_id, token) as client:
        result = await client.call_tool("guarded", {"name": "Ada"})

    assert not result.is_error, result
    assert result.structured_content is not None
    assert result.structured_content["status"] == "awaiting_approval"
    approval = await the_approval(owner, result.structured_content["run_id"])
    assert result.structured_content["approval_id"] == approval["id"]
    assert approval["id"] in result.content[0].text  # type: ignore[union-attr]
    assert loopback.hits["mcp-guarded"] == 0, "nothing was sent before a person approved"


async def test_a_client_that_asks_for_progress_hears_it_while_the_run_works(
    app: FastAPI, factory: Factory, loopback: Loopback, stack: tuple[ServiceProcess, ServiceProcess]
) -> None:
    owner = await factory.owner()
    slow = http_step("wait", f"{loopback.url}/slow/mcp-progress?seconds=7")
    automation = await active_tool(owner, "slow", plan=[slow])
    token = await scoped_token(owner, automation["id"])
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async with mcp_client(app, owner.space_id, token) as client:
        result = await client.call_tool("slow", {"name": "Ada"}, progress_callback=on_progress)

    assert result.structured_content is not None
    assert result.structured_content["status"] == "succeeded", result
    assert heard, "a progress notification came while the run worked"
    assert heard[0][1] == 30
    assert result.structured_content["run_id"] in str(heard[0][2])
