"""Bad input: a clear 4xx with located details, never a 500, and nothing changes."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from sqlalchemy import event

from tests.support.factories import Caller, Factory, minimal_definition


async def _count(owner: Caller) -> int:
    body = (
        await owner.request(
            "GET", owner.space_path("/automations"), params={"status": ["active", "paused", "archived"]}
        )
    ).json()
    return len(body["items"])


def _error(response) -> dict:  # type: ignore[no-untyped-def]
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert "Traceback" not in response.text
    return body["error"]


@pytest.fixture
async def owner(factory: Factory) -> AsyncIterator[Caller]:
    owner = await factory.owner()
    yield owner
    assert await _count(owner) == 0, "bad input must not create anything"


class TestBody:
    async def test_malformed_json_is_400_with_position(self, owner: Caller) -> None:
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            content=b'{"definition": {"name": "x",}',
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 400
        error = _error(response)
        assert error["code"] == "malformed_json"
        assert "character" in error["message"]

    async def test_wrong_content_type_is_415(self, owner: Caller) -> None:
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            content=json.dumps({"definition": minimal_definition()}).encode(),
            headers={"Content-Type": "text/plain"},
        )
        assert response.status_code == 415
        assert _error(response)["code"] == "unsupported_media_type"

    async def test_form_body_is_415(self, owner: Caller) -> None:
        response = await owner.request("POST", owner.space_path("/automations"), data={"definition": "x"})
        assert response.status_code == 415

    async def test_body_over_one_megabyte_is_413(self, owner: Caller) -> None:
        big = minimal_definition(metadata={"blob": "x" * (1024 * 1024)})
        response = await owner.request("POST", owner.space_path("/automations"), json={"definition": big})
        assert response.status_code == 413
        assert _error(response)["code"] == "payload_too_large"

    async def test_streamed_body_over_limit_without_length_is_413(self, owner: Caller) -> None:
        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"definition": {"name": "'
            for _ in range(300):
                yield b"y" * 4096
            yield b'"}}'

        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            content=chunks(),
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 413

    async def test_nesting_deeper_than_64_is_400_with_pointer(self, owner: Caller) -> None:
        deep: dict = {}
        node = deep
        for _ in range(70):
            node["k"] = {}
            node = node["k"]
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": minimal_definition(metadata=deep)}
        )
        assert response.status_code == 400
        error = _error(response)
        assert error["code"] == "json_too_deep"
        assert error["details"][0]["path"].startswith("/definition/metadata/k/k")

    async def test_pathological_nesting_is_400_not_500(self, owner: Caller) -> None:
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            content=b"[" * 200_000 + b"]" * 200_000,
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 400

    @pytest.mark.parametrize(
        ("raw", "code"),
        [
            (b'{"definition": {"name": NaN}}', "malformed_json"),
            (b'{"definition": {"name": Infinity}}', "malformed_json"),
            (b'{"definition": {"name": "a\\u0000b"}}', "invalid_text"),
            (b'{"definition": {"name": "\\ud800"}}', "invalid_text"),
            (b'{"definition": {"\\u0000": 1}}', "invalid_text"),
            (b'{"definition": {"n": 1' + b"0" * 5000 + b"}}", "malformed_json"),
        ],
    )
    async def test_values_postgres_cannot_store_are_400(self, owner: Caller, raw: bytes, code: str) -> None:
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            content=raw,
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 400, response.text
        assert _error(response)["code"] == code

    async def test_numbers_that_overflow_to_infinity_are_400_at_every_entry(self, factory: Factory) -> None:
        owner = await factory.owner()
        webhook = minimal_definition(triggers=[{"type": "webhook"}])
        automation = await owner.create_automation(webhook)
        activated = await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        assert activated.status_code == 200
        fire_headers = {"Authorization": f"Bearer {automation['triggers'][0]['token']}"}
        entries = [
            (owner.space_path("/automations"), b'{"definition": {"name": "n", "metadata": {"x": -1e999}}}'),
            (owner.space_path(f"/automations/{automation['id']}/runs"), b'{"inputs": {"x": 1e400}}'),
            (owner.space_path("/events"), b'{"event_type": "a.b", "payload": {"x": [1, 1e400]}}'),
            (f"/api/v1/automations/{automation['id']}/fire", b'{"x": 1e400}'),
        ]
        for path, raw in entries:
            extra = fire_headers if path.endswith("/fire") else {}
            response = await owner.request(
                "POST", path, content=raw, headers={"Content-Type": "application/json", **extra}
            )
            assert response.status_code == 400, (path, response.text)
            error = _error(response)
            assert error["code"] == "number_out_of_range"
            assert error["details"][0]["path"] in {
                "/definition/metadata/x",
                "/inputs/x",
                "/payload/x/1",
                "/x",
            }
        runs = (await owner.request("GET", owner.space_path("/runs"))).json()["items"]
        events = (await owner.request("GET", owner.space_path("/events"))).json()["items"]
        assert runs == []
        assert events == []
        assert [
            a["id"] for a in (await owner.request("GET", owner.space_path("/automations"))).json()["items"]
        ] == [automation["id"]]

    async def test_unknown_top_level_field_is_422_with_path(self, owner: Caller) -> None:
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": minimal_definition(), "extra": 1}
        )
        assert response.status_code == 422
        assert _error(response)["details"][0]["path"] == "/extra"

    async def test_empty_body_is_422(self, owner: Caller) -> None:
        response = await owner.request(
            "POST", owner.space_path("/automations"), headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422

    async def test_body_that_is_not_an_object_is_422(self, owner: Caller) -> None:
        response = await owner.request("POST", owner.space_path("/automations"), json=[1, 2])
        assert response.status_code == 422


class TestDefinition:
    async def test_every_problem_is_listed_with_a_json_pointer(self, owner: Caller) -> None:
        definition = minimal_definition(
            schema_version="2.0",
            triggers=[
                {"type": "schedule", "config": {"timezone": "UTC"}},
                {"type": "carrier_pigeon", "config": {}},
            ],
            plan=[{"step_id": "Bad Id", "action": "transform_data", "bogus": True, "max_retries": 11}],
            execution={"concurrency": "sometimes", "retry_backoff": "fibonacci", "max_retries": -1},
        )
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 422
        error = _error(response)
        assert error["code"] == "invalid_definition"
        paths = {detail["path"] for detail in error["details"]}
        assert paths >= {
            "/definition/schema_version",
            "/definition/triggers/0/config/cron",
            "/definition/triggers/1",
            "/definition/plan/0/step_id",
            "/definition/plan/0/bogus",
            "/definition/plan/0/max_retries",
            "/definition/execution/concurrency",
            "/definition/execution/retry_backoff",
            "/definition/execution/max_retries",
        }, paths

    async def test_empty_plan_and_missing_name(self, owner: Caller) -> None:
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            json={"definition": {"schema_version": "1.0", "plan": []}},
        )
        assert response.status_code == 422
        paths = {detail["path"] for detail in _error(response)["details"]}
        assert paths == {"/definition/name", "/definition/plan"}

    async def test_inputs_schema_must_be_valid_json_schema(self, owner: Caller) -> None:
        definition = minimal_definition(inputs={"schema": {"type": "objekt"}})
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 422
        detail = _error(response)["details"][0]
        # The pointer goes on inside the schema, to the keyword at fault.
        assert detail["path"] == "/definition/inputs/schema/type"
        assert "objekt" in detail["message"]

    async def test_inputs_schema_with_remote_ref_is_refused(self, owner: Caller) -> None:
        definition = minimal_definition(inputs={"schema": {"$ref": "https://example.com/s.json"}})
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 422

    async def test_duplicate_step_ids_are_refused(self, owner: Caller) -> None:
        step = {"step_id": "same", "action": "transform_data", "config": {}}
        response = await owner.request(
            "POST",
            owner.space_path("/automations"),
            json={"definition": minimal_definition(plan=[step, step])},
        )
        assert response.status_code == 422

    async def test_invalid_update_keeps_the_current_version(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        response = await owner.request("PUT", path, json={"definition": {"name": "broken"}, "version": 1})
        assert response.status_code == 422
        current = (await owner.request("GET", path)).json()
        assert current == created
        assert len((await owner.request("GET", path + "/versions")).json()["items"]) == 1


class TestParameters:
    async def test_malformed_ids_are_422_not_500(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request("GET", "/api/v1/spaces/not-a-uuid/automations")
        assert response.status_code == 422
        assert _error(response)["details"][0]["path"] == "/path/space_id"

    async def test_bad_if_match_is_400(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{created['id']}"),
            json={"definition": minimal_definition()},
            headers={"If-Match": "banana"},
        )
        assert response.status_code == 400
        assert _error(response)["code"] == "invalid_if_match"

    async def test_unknown_route_and_method_use_the_error_shape(self, factory: Factory) -> None:
        owner = await factory.owner()
        missing = await owner.request("GET", "/api/v1/nothing-here")
        assert missing.status_code == 404
        assert _error(missing)["code"] == "not_found"
        wrong_method = await owner.request("DELETE", owner.space_path("/automations"))
        assert wrong_method.status_code == 405
        assert _error(wrong_method)["code"] == "method_not_allowed"

    @pytest.mark.parametrize("version", ["99999999999", "0", "2147483648"])
    async def test_version_outside_integer_range_is_422(self, factory: Factory, version: str) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}/versions/{version}")
        for method, suffix in (("GET", ""), ("POST", "/restore")):
            response = await owner.request(method, path + suffix)
            assert response.status_code == 422, (method, response.text)
            assert _error(response)["details"][0]["path"] == "/path/version"

    async def test_if_match_with_thousands_of_digits_is_400(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "POST",
            owner.space_path(f"/automations/{created['id']}/pause"),
            headers={"If-Match": '"' + "9" * 5000 + '"'},
        )
        assert response.status_code == 400
        assert _error(response)["code"] == "invalid_if_match"

    async def test_body_version_outside_integer_range_is_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        response = await owner.request(
            "POST", owner.space_path(f"/automations/{created['id']}/pause"), json={"version": 2**31}
        )
        assert response.status_code == 422
        assert _error(response)["details"][0]["path"] == "/version"


class TestLengths:
    async def test_an_email_that_lower_casing_lengthens_past_320_is_422(self, factory: Factory) -> None:
        owner = await factory.owner()
        email = "\u0130" * 300 + "@example.test"  # 313 characters; "İ".lower() is two
        response = await owner.request("POST", owner.space_path("/members"), json={"email": email})
        assert response.status_code == 422, response.text
        assert _error(response)["details"][0]["path"] == "/email"
        members = (await owner.request("GET", owner.space_path("/members"))).json()["items"]
        assert len(members) == 1

    async def test_an_event_payload_over_256_kb_is_422_and_publishes_nothing(self, factory: Factory) -> None:
        owner = await factory.owner()
        path = owner.space_path("/events")
        fits = await owner.request(
            "POST", path, json={"event_type": "a.b", "payload": {"blob": "x" * (256 * 1024 - 20)}}
        )
        assert fits.status_code == 202, fits.text
        too_big = await owner.request(
            "POST", path, json={"event_type": "a.b", "payload": {"blob": "x" * (256 * 1024)}}
        )
        assert too_big.status_code == 422
        assert _error(too_big)["details"][0]["path"] == "/payload"
        events = (await owner.request("GET", path)).json()["items"]
        assert [event["id"] for event in events] == [fits.json()["id"]]


class TestCost:
    async def test_a_definition_refused_for_its_shape_reads_nothing_of_the_space(
        self, app: FastAPI, owner: Caller
    ) -> None:
        statements: list[str] = []

        def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
            statements.append(statement)

        refusals = [
            ("POST", "/automations", {"definition": "not an object"}),
            ("POST", "/automations/validate", {}),
            ("PUT", f"/automations/{uuid.uuid4()}", {"definition": 1}),
            ("POST", "/automations/preview", {"definition": []}),
        ]
        engine = app.state.engine.sync_engine
        event.listen(engine, "before_cursor_execute", record)
        try:
            for method, path, body in refusals:
                response = await owner.request(method, owner.space_path(path), json=body)
                assert response.status_code == 422, (path, response.text)
            refused = list(statements)
            checked = await owner.request(
                "POST", owner.space_path("/automations/validate"), json={"definition": minimal_definition()}
            )
            assert checked.status_code == 200, checked.text
        finally:
            event.remove(engine, "before_cursor_execute", record)
        # The space's MCP tools and databases are what its definitions may call: read for a body worth
        # checking, not for one refused before that.
        assert not [s for s in refused if "mcp_tools" in s or "databases" in s], refused
        assert [s for s in statements[len(refused) :] if "mcp_tools" in s], (
            "a valid body is checked against them"
        )
