"""Routes reach the application's shared objects through typed dependencies, never `app.state`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.requests import Request

from app.api.deps import app_state, get_limits, get_settings
from app.config import ConfigurationError, Settings
from app.services.dispatch import DispatchLimits

ROUTES = Path(__file__).resolve().parents[2] / "app" / "api" / "routes"


def _request(app: FastAPI) -> Request:
    return Request({"type": "http", "app": app, "method": "GET", "path": "/", "headers": []})


def test_no_route_reads_app_state() -> None:
    readers = [
        f"{path.name}:{node.lineno}"
        for path in sorted(ROUTES.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "state"
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
