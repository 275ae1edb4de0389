"""The plain webhook fire (`app.api.routes.fire_path`) answers exactly as the documented FastAPI route does.

A fire with a query string takes the FastAPI route (`?wait=0` asks nothing new), the same fire without one
takes the plain route: every pair below must get the same status, body and headers.
"""

from __future__ import annotations

import uuid
from typing import Any

from httpx import AsyncClient, Response
from starlette.routing import Match

from app.api.routes.fire_path import FireRoute
from tests.support.factories import Factory
from tests.triggers.test_webhooks import BODY, _run_count, _webhook_automation

DOCUMENTED = {"wait": "0"}


async def _both(
    client: AsyncClient, automation_id: str, *, headers: dict[str, str], **kwargs: Any
) -> tuple[Response, Response]:
    url = f"/api/v1/automations/{automation_id}/fire"
    plain = await client.post(url, headers=headers, **kwargs)
    documented = await client.post(url, headers=headers, params=DOCUMENTED, **kwargs)
    return plain, documented


def _same(plain: Response, documented: Response) -> None:
    assert plain.status_code == documented.status_code, (plain.text, documented.text)
    assert plain.json() == documented.json()
    assert dict(plain.headers) == dict(documented.headers)


class TestSameAnswers:
    async def test_every_refusal_is_answered_alike(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        auth = {"Authorization": f"Bearer {token}"}
        json_type = {"Content-Type": "application/json"}
        cases: list[tuple[int, dict[str, str], dict[str, Any]]] = [
            (401, {}, {"json": BODY}),
            (401, {"Authorization": "Bearer awh_wrong"}, {"json": BODY}),
            (401, {"Authorization": f"Basic {token}"}, {"json": BODY}),
            (401, {"Authorization": "Bearer"}, {"json": BODY}),
            (401, {"Authorization": f"Bearer {owner.token}"}, {"json": BODY}),
            (400, {**auth, **json_type}, {"content": b"{nope"}),
            (400, {**auth, **json_type}, {"content": b'{"a": NaN}'}),
            (415, {**auth, "Content-Type": "text/plain"}, {"content": b"a=b"}),
            (413, auth, {"json": {"x": "y" * (1024 * 1024)}}),
            (422, auth, {"json": {"repository": {"full_name": "a"}}}),
            (422, auth, {"json": [1, 2, 3]}),
            (422, {**auth, "Idempotency-Key": ""}, {"json": BODY}),
            (422, {**auth, "Idempotency-Key": "k" * 256}, {"json": BODY}),
        ]
        for expected, headers, kwargs in cases:
            plain, documented = await _both(owner.client, automation_id, headers=headers, **kwargs)
            assert plain.status_code == expected, (headers, plain.text)
            _same(plain, documented)
        assert await _run_count(owner, automation_id) == 0

    async def test_a_paused_automation_and_an_unknown_one_are_answered_alike(self, factory: Factory) -> None:
        owner = await factory.owner()
        paused_id, _, token = await _webhook_automation(owner, activate=False)
        auth = {"Authorization": f"Bearer {token}"}
        plain, documented = await _both(owner.client, paused_id, headers=auth, json=BODY)
        assert plain.status_code == 409
        _same(plain, documented)
        plain, documented = await _both(owner.client, str(uuid.uuid4()), headers=auth, json=BODY)
        assert plain.status_code == 401
        _same(plain, documented)

    async def test_fires_answer_alike_and_share_their_idempotency_keys(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        auth = {"Authorization": f"Bearer {token}"}
        plain, documented = await _both(owner.client, automation_id, headers=auth, json=BODY)
        assert plain.status_code == documented.status_code == 202
        assert plain.json().keys() == documented.json().keys()
        assert plain.json()["run_id"] != documented.json()["run_id"]
        assert plain.headers.keys() == documented.headers.keys()
        assert plain.headers["location"] == plain.json()["url"]
        keyed = {**auth, "Idempotency-Key": "build-7"}
        plain, documented = await _both(owner.client, automation_id, headers=keyed, json=BODY)
        assert (plain.status_code, documented.status_code) == (202, 200)
        # The repeat answers the run as it is now: the session's worker may have taken it meanwhile.
        first, repeat = plain.json(), documented.json()
        assert first["status"] == "pending"
        assert {**repeat, "status": "pending"} == first
        assert repeat["status"] in {"pending", "running", "succeeded"}
        reused, reused_documented = await _both(
            owner.client, automation_id, headers=keyed, json={**BODY, "other": 1}
        )
        assert reused.status_code == 422
        _same(reused, reused_documented)
        assert await _run_count(owner, automation_id) == 3

    async def test_an_id_written_without_hyphens_takes_the_documented_route(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation_id, _, token = await _webhook_automation(owner)
        response = await owner.client.post(
            f"/api/v1/automations/{uuid.UUID(automation_id).hex}/fire",
            headers={"Authorization": f"Bearer {token}"},
            json=BODY,
        )
        assert response.status_code == 202, response.text
        bad = await owner.client.post(
            "/api/v1/automations/not-an-id/fire", headers={"Authorization": f"Bearer {token}"}, json=BODY
        )
        assert bad.status_code == 422
        assert bad.json()["error"]["details"][0]["path"] == "/path/automation_id"


def _scope(method: str, path: str, query: bytes = b"") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "query_string": query}


class TestMatching:
    def test_only_a_plain_post_with_a_canonical_id_matches(self) -> None:
        route = FireRoute()
        automation_id = uuid.uuid4()
        path = f"/api/v1/automations/{automation_id}/fire"
        match, child = route.matches(_scope("POST", path))
        assert match is Match.FULL
        assert child["path_params"] == {"automation_id": str(automation_id)}
        upper = f"/api/v1/automations/{str(automation_id).upper()}/fire"
        assert route.matches(_scope("POST", upper))[0] is Match.FULL
        for scope in (
            _scope("GET", path),
            _scope("PUT", path),
            _scope("POST", path, b"wait=1"),
            _scope("POST", path + "/"),
            _scope("POST", f"/api/v1/automations/{automation_id.hex}/fire"),
            _scope("POST", f"/api/v1/automations/{automation_id}/runs"),
            _scope("POST", f"/api/v1/automations/{automation_id}/fire/x"),
            {"type": "websocket", "path": path, "root_path": "", "query_string": b""},
        ):
            assert route.matches(scope)[0] is Match.NONE, scope
