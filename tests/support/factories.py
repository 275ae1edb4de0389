"""Rows and API callers for tests: each test makes its own spaces, so nothing leaks between tests."""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from httpx import AsyncClient, Response

from app.persistence.transaction import transaction
from app.security.passwords import HashCost
from app.services.identity.spaces import space_service

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MEMBER_PASSWORD = "a member's long passphrase"
# The least cost the settings accept (OWASP's minimum): the suite signs people in hundreds of times, at
# an eighth of the default's CPU. tests/identity/test_password_cost.py also hashes at the default.
TEST_PASSWORD_COST = HashCost(memory_kib=19_456, time_cost=2, parallelism=1)

MINIMAL_DEFINITION: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Minimal",
    "plan": [{"step_id": "shape", "action": "transform_data", "config": {"output": {"ok": True}}}],
}


def minimal_definition(**changes: Any) -> dict[str, Any]:
    definition = copy.deepcopy(MINIMAL_DEFINITION)
    definition.update(changes)
    return definition


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return data


@dataclass
class Caller:
    """An API caller: a user with a token and a space they own."""

    client: AsyncClient
    token: str
    space_id: str
    user_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def request(self, method: str, path: str, **kwargs: Any) -> Response:
        headers = {**self.headers, **kwargs.pop("headers", {})}
        return await self.client.request(method, path, headers=headers, **kwargs)

    def space_path(self, suffix: str = "", space_id: str | None = None) -> str:
        return f"/api/v1/spaces/{space_id or self.space_id}{suffix}"

    async def create_automation(self, definition: dict[str, Any] | None = None) -> dict[str, Any]:
        response = await self.request(
            "POST", self.space_path("/automations"), json={"definition": definition or minimal_definition()}
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        assert isinstance(body.pop("warnings"), list), "saving answers the validator's warnings"
        assert isinstance(body.pop("overlaps"), list), "saving answers the automations it overlaps"
        return body


class Factory:
    def __init__(self, app: FastAPI, client: AsyncClient) -> None:
        self.app = app
        self.client = client

    async def owner(self, space: str = "Acme", email: str | None = None) -> Caller:
        """A new space and its owner, made the way `automations create-admin` makes them."""
        email = email or f"owner-{uuid.uuid4().hex[:8]}@example.test"
        async with transaction(self.app.state.sessionmaker, self.app.state.send_job) as session:
            made = await space_service.bootstrap(session, space_name=space, email=email)
        return Caller(self.client, made.token, str(made.space.id), str(made.user.id))

    async def member(self, owner: Caller, role: str = "member") -> Caller:
        """A new user added to the owner's space through the API, signed in by accepting the
        invitation the owner was given (as the invited person does from the link)."""
        email = f"{role}-{uuid.uuid4().hex[:8]}@example.test"
        response = await owner.request(
            "POST", owner.space_path("/members"), json={"email": email, "role": role}
        )
        assert response.status_code == 201, response.text
        body = response.json()
        accepted = await self.client.post(
            "/api/v1/invitations/accept",
            json={"token": body["invitation"]["token"], "password": MEMBER_PASSWORD},
        )
        assert accepted.status_code == 201, accepted.text
        return Caller(self.client, accepted.json()["token"], owner.space_id, body["user_id"])
