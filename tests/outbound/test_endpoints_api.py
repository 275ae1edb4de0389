"""Webhook endpoints through the API: the secret shown once, CRUD, rotation, and every bad input."""

from __future__ import annotations

from typing import Any

from app.services.outbound.endpoints import MAX_ENDPOINTS_PER_SPACE
from tests.support.factories import Caller, Factory
from tests.support.receivers import Receivers

PATH = "/webhook-endpoints"


async def create(caller: Caller, **body: Any) -> Any:
    return await caller.request("POST", caller.space_path(PATH), json=body)


class TestCreate:
    async def test_create_answers_the_secret_once_and_never_again(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        response = await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"])
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["secret"].startswith("whsec_")
        assert body["enabled"] is True
        assert response.headers["Location"].endswith(body["id"])

        shown = await owner.request("GET", owner.space_path(f"{PATH}/{body['id']}"))
        assert shown.status_code == 200
        assert "secret" not in shown.json()
        listed = await owner.request("GET", owner.space_path(PATH))
        assert [e["id"] for e in listed.json()["items"]] == [body["id"]]
        assert body["secret"] not in listed.text

    async def test_unknown_event_types_are_422_with_pointers(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        response = await create(
            owner, url=receivers.url("ok/a"), events=["automation.run.failed", "run.finished", "automation.*"]
        )
        assert response.status_code == 422, response.text
        paths = [d["path"] for d in response.json()["error"]["details"]]
        assert paths == ["/events/1", "/events/2"]

    async def test_no_events_is_422(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        response = await create(owner, url=receivers.url("ok/a"), events=[])
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["path"] == "/events"

    async def test_metadata_and_private_urls_are_refused_with_the_reason(self, factory: Factory) -> None:
        owner = await factory.owner()
        for url in (
            "https://169.254.169.254/latest/meta-data/",
            "https://10.1.2.3/hook",
            "https://localhost/hook",
            "ftp://example.com/hook",
        ):
            response = await create(owner, url=url, events=["automation.run.failed"])
            assert response.status_code == 422, url
            error = response.json()["error"]
            assert error["code"] == "invalid_webhook_url"
            assert error["details"][0]["path"] == "/url"
            assert "egress guard" in error["details"][0]["message"]

    async def test_plain_http_outside_the_allow_list_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await create(owner, url="http://example.com/hook", events=["automation.run.failed"])
        assert response.status_code == 422
        assert "https" in response.json()["error"]["details"][0]["message"]

    async def test_credentials_in_the_url_are_refused_and_not_echoed(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await create(
            owner, url="https://user:hunter2@example.com/hook", events=["automation.run.failed"]
        )
        assert response.status_code == 422
        assert "hunter2" not in response.text

    async def test_query_values_of_the_url_are_never_shown(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        url = receivers.url("ok/q") + "?token=s3cret-value&team=ops"
        response = await create(owner, url=url, events=["automation.run.*"])
        assert response.status_code == 201
        assert response.json()["url"].endswith("/ok/q?token=%2A%2A%2A&team=%2A%2A%2A")
        listed = await owner.request("GET", owner.space_path(PATH))
        assert "s3cret" not in response.text + listed.text

    async def test_at_most_twenty_endpoints_per_space(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        for index in range(MAX_ENDPOINTS_PER_SPACE):
            response = await create(owner, url=receivers.url(f"ok/n{index}"), events=["automation.run.*"])
            assert response.status_code == 201
        response = await create(owner, url=receivers.url("ok/extra"), events=["automation.run.*"])
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "too_many_webhook_endpoints"

    async def test_unknown_fields_are_refused(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        response = await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"], secret="mine")
        assert response.status_code == 422

    async def test_members_cannot_manage_endpoints(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        response = await create(member, url=receivers.url("ok/a"), events=["automation.run.*"])
        assert response.status_code == 403


class TestChange:
    async def test_patch_changes_only_named_fields_and_checks_them(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        endpoint = (await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"])).json()
        path = owner.space_path(f"{PATH}/{endpoint['id']}")
        response = await owner.request("PATCH", path, json={"events": ["automation.run.failed"]})
        assert response.status_code == 200
        assert response.json()["events"] == ["automation.run.failed"]
        assert response.json()["url"] == endpoint["url"]

        refused = await owner.request("PATCH", path, json={"url": "https://169.254.169.254/"})
        assert refused.status_code == 422
        assert (await owner.request("GET", path)).json()["url"] == endpoint["url"]

        disabled = await owner.request("PATCH", path, json={"enabled": False})
        assert disabled.json()["enabled"] is False

    async def test_another_space_sees_404(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        stranger = await factory.owner("Other")
        endpoint = (await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"])).json()
        for method in ("GET", "DELETE", "PATCH"):
            response = await stranger.request(
                method,
                stranger.space_path(f"{PATH}/{endpoint['id']}"),
                json={} if method == "PATCH" else None,
            )
            assert response.status_code == 404, method

    async def test_delete_removes_the_endpoint(self, factory: Factory, receivers: Receivers) -> None:
        owner = await factory.owner()
        endpoint = (await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"])).json()
        path = owner.space_path(f"{PATH}/{endpoint['id']}")
        assert (await owner.request("DELETE", path)).status_code == 204
        assert (await owner.request("GET", path)).status_code == 404

    async def test_rotation_answers_a_new_secret_and_keeps_the_old_one_for_a_day(
        self, factory: Factory, receivers: Receivers
    ) -> None:
        owner = await factory.owner()
        endpoint = (await create(owner, url=receivers.url("ok/a"), events=["automation.run.*"])).json()
        response = await owner.request("POST", owner.space_path(f"{PATH}/{endpoint['id']}/rotate-secret"))
        assert response.status_code == 200
        rotated = response.json()
        assert rotated["secret"].startswith("whsec_")
        assert rotated["secret"] != endpoint["secret"]
        assert rotated["previous_secret_expires_at"] is not None
