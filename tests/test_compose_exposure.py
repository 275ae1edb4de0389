"""The production compose file publishes nothing that answers without authentication to other hosts:
the API (which authenticates every request) is the only service on all interfaces; Flower, which can
inspect, revoke and rate-limit tasks and needs no login of its own, listens on the host's loopback only
and takes a login when one is configured. On a host they share, the API has less CPU weight than the
workers, so accepted runs finish before it takes more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"


def _services() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    return services


def _published(service: dict[str, Any]) -> list[str]:
    return [str(port) for port in service.get("ports", [])]


def test_flower_is_published_on_loopback_only() -> None:
    ports = _published(_services()["flower"])
    assert ports, "Flower is reachable from the host"
    assert all(port.startswith("127.0.0.1:") for port in ports), ports


def test_flower_takes_a_login_from_the_environment_when_one_is_set() -> None:
    flower = _services()["flower"]
    command = " ".join(flower["command"])
    assert "--basic-auth=" in command
    assert "AUTOMATIONS_FLOWER_BASIC_AUTH" in command
    assert "AUTOMATIONS_FLOWER_BASIC_AUTH" in flower["environment"]


def test_only_the_api_listens_on_every_interface() -> None:
    open_to_all = {
        name
        for name, service in _services().items()
        for port in _published(service)
        if not port.startswith("127.0.0.1:")
    }
    assert open_to_all == {"api"}


def test_the_metrics_token_reaches_the_api() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    environment = compose["x-app"]["environment"]
    assert environment["AUTOMATIONS_METRICS_TOKEN"] == "${AUTOMATIONS_METRICS_TOKEN:-}"


def test_the_api_yields_cpu_to_the_workers_on_a_shared_host() -> None:
    services = _services()
    # Docker's weight for a service that names none is 1024.
    api = services["api"].get("cpu_shares", 1024)
    workers = {
        name: service.get("cpu_shares", 1024)
        for name, service in services.items()
        if name.startswith("worker")
    }
    assert workers
    assert all(api < weight for weight in workers.values()), (api, workers)
