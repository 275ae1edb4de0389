"""Routes reach the application's shared objects through typed dependencies, never `app.state`."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request

from app.api.deps import app_state, get_limits, get_settings
from app.config import ConfigurationError, Settings
from app.main import create_app
from app.services.runs.limits import DispatchLimits

ROUTES = Path(__file__).resolve().parents[2] / "app" / "api" / "routes"


def _request(app: FastAPI) -> Request:
    return Request({"type": "http", "app": app, "method": "GET", "path": "/", "headers": []})


def _is_app(node: ast.expr) -> bool:
    """`app` or `something.app`: the owner of the state routes must not read (an OAuth body's `state`
    field is no such read)."""
    return (isinstance(node, ast.Name) and node.id == "app") or (
        isinstance(node, ast.Attribute) and node.attr == "app"
    )


def test_no_route_reads_app_state() -> None:
    readers = [
        f"{path.name}:{node.lineno}"
        for path in sorted(ROUTES.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "state" and _is_app(node.value)
    ]
    assert readers == [], "routes take SettingsDep, LimitsDep, ... instead of app.state"


def test_typed_state_answers_what_the_composition_root_stored(settings: Settings) -> None:
    app = FastAPI()
    app.state.settings = settings
    app.state.limits = DispatchLimits(max_concurrent_runs=3)
    assert get_settings(_request(app)) is settings
    assert get_limits(_request(app)).max_concurrent_runs == 3


def test_missing_or_mistyped_state_is_a_configuration_error() -> None:
    app = FastAPI()
    app.state.limits = {"max_concurrent_runs": 3}
    with pytest.raises(ConfigurationError, match="DispatchLimits named 'limits'"):
        get_limits(_request(app))
    with pytest.raises(ConfigurationError, match="Settings named 'settings'"):
        app_state(_request(app), "settings", Settings)


def _dependency_calls(dependant: Dependant) -> list[Any]:
    calls = []
    for sub in dependant.dependencies:
        calls.append(sub.call)
        calls.extend(_dependency_calls(sub))
    return calls


def _api_routes(routes: Sequence[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        else:
            # Included routers nest their routes (under `original_router` in recent FastAPI releases).
            inner = getattr(route, "original_router", route)
            yield from _api_routes(getattr(inner, "routes", []))


def _on_the_loop(call: Any) -> bool:
    target = call if inspect.isfunction(call) or inspect.ismethod(call) else type(call).__call__
    return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)


def test_every_dependency_runs_on_the_event_loop(settings: Settings) -> None:
    # FastAPI runs a plain `def` dependency on a worker thread: a thread hop per request for each one.
    app = create_app(settings)
    on_a_thread = {
        getattr(call, "__qualname__", repr(call))
        for route in _api_routes(app.routes)
        for call in _dependency_calls(route.dependant)
        if not _on_the_loop(call)
    }
    assert len(list(_api_routes(app.routes))) > 50
    assert on_a_thread == set()
