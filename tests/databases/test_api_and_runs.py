"""Registering databases through the API, their capabilities per space, and queries in real runs."""

from __future__ import annotations

from typing import Any

from httpx import Response

from tests.support.factories import Caller, Factory
from tests.support.runs import definition, start, wait_for


async def secret(caller: Caller, name: str, value: str) -> None:
    answer = await caller.request("PUT", caller.space_path(f"/secrets/{name}"), json={"value": value})
    assert answer.status_code in (200, 201), answer.text


async def register(caller: Caller, **body: Any) -> Response:
    payload = {"name": "warehouse", "dsn_secret": "warehouse_dsn", "tool_prefix": "warehouse", **body}
    return await caller.request("POST", caller.space_path("/databases"), json=payload)


async def capability_ids(factory: Factory, space_id: str) -> set[str]:
    found = await factory.app.state.runtime.capabilities.for_space(space_id)
    return {capability.id for capability in found}


class TestRegister:
    async def test_register_list_get_delete(self, factory: Factory, warehouse_dsn: str) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        made = await register(owner)
        assert made.status_code == 201, made.text
        body = made.json()
        assert body["capabilities"] == ["warehouse.query", "warehouse.tables"]
        assert warehouse_dsn not in made.text
        listed = (await owner.request("GET", owner.space_path("/databases"))).json()
        assert [item["id"] for item in listed] == [body["id"]]
        one = await owner.request("GET", owner.space_path(f"/databases/{body['id']}"))
        assert one.json()["dsn_secret"] == "warehouse_dsn"
        assert {"warehouse.query", "warehouse.tables"} <= await capability_ids(factory, owner.space_id)
        capability = await factory.app.state.runtime.capabilities.resolve(owner.space_id, "warehouse.query")
        assert (capability.tier, capability.risk) == ("database", "read")

        again = await register(owner)
        assert again.status_code == 409
        gone = await owner.request("DELETE", owner.space_path(f"/databases/{body['id']}"))
        assert gone.status_code == 204
        assert "warehouse.query" not in await capability_ids(factory, owner.space_id)

    async def test_capabilities_are_visible_only_in_their_space(
        self, factory: Factory, warehouse_dsn: str
    ) -> None:
        owner = await factory.owner()
        stranger = await factory.owner(space="Elsewhere")
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        made = (await register(owner)).json()
        assert "warehouse.query" not in await capability_ids(factory, stranger.space_id)
        assert "warehouse.query" not in await capability_ids(factory, None)  # type: ignore[arg-type]
        for method in ("GET", "DELETE"):
            answer = await stranger.request(method, stranger.space_path(f"/databases/{made['id']}"))
            assert answer.status_code == 404
            mixed = await stranger.request(method, owner.space_path(f"/databases/{made['id']}"))
            assert mixed.status_code == 404

    async def test_bad_dsns_are_422_and_never_echoed(self, factory: Factory) -> None:
        owner = await factory.owner()
        cases = {
            "mysql://reader:hunter2@db.internal/sales": "invalid_dsn",
            "postgresql://reader:hunter2@169.254.169.254:5432/sales": "dsn_host_refused",
            "postgresql://reader:hunter2@10.1.2.3/sales": "dsn_host_refused",
            "postgresql://reader:hunter2@no-such-host.invalid/sales": "dsn_host_unresolvable",
        }
        for index, (dsn, code) in enumerate(cases.items()):
            await secret(owner, f"dsn_{index}", dsn)
            answer = await register(
                owner, dsn_secret=f"dsn_{index}", tool_prefix=f"db{index}", name=f"db{index}"
            )
            assert answer.status_code == 422, answer.text
            assert answer.json()["error"]["code"] == code
            assert "hunter2" not in answer.text
            assert dsn.split("@")[1].split("/")[0].split(":")[0] not in answer.text

    async def test_other_bad_input(self, factory: Factory, warehouse_dsn: str) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        assert (await register(owner, dsn_secret="nope")).json()["error"]["code"] == "secret_missing"
        for prefix in ("http", "database", "Bad-Prefix", "9x"):
            answer = await register(owner, tool_prefix=prefix)
            assert answer.status_code == 422, prefix
        assert (await register(owner, name="Not Valid")).status_code == 422
        assert (await register(owner, extra="field")).status_code == 422
        assert (await register(member)).status_code == 403


class TestInRuns:
    async def test_query_then_summarise_and_an_insert_is_refused_once(
        self, factory: Factory, warehouse_dsn: str, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        assert (await register(owner)).status_code == 201
        document = definition(
            {
                "step_id": "top",
                "action": "database_query",
                "config": {
                    "database": "warehouse",
                    "sql": "SELECT name, score FROM people WHERE score > $1 ORDER BY score DESC",
                    "params": [1],
                },
                "output_as": "top",
            },
            {
                "step_id": "summary",
                "action": "transform_data",
                "config": {"output": "{{ top.row_count }} people; best {{ top.rows[0][0] }}"},
                "output_as": "summary",
            },
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        steps = {step["step_id"]: step for step in done["steps"]}
        assert steps["summary"]["output"] == "2 people; best Ada"
        assert warehouse_dsn not in str(done)

        writing = definition(
            {
                "step_id": "write",
                "action": "database_query",
                "config": {"database": "warehouse", "sql": "INSERT INTO people VALUES (9, 'Mallory', 0)"},
            },
            execution={"max_retries": 2},
        )
        _, run = await start(owner, writing)
        failed = await wait_for(owner, run["id"])
        assert failed["status"] == "failed"
        attempts = [step for step in failed["steps"] if step["step_id"] == "write"]
        assert len(attempts) == 1
        assert attempts[0]["error"]["code"] == "database_read_only"
        assert "read-only" in attempts[0]["error"]["message"]

    async def test_a_database_of_another_space_is_unknown(
        self, factory: Factory, warehouse_dsn: str, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        stranger = await factory.owner(space="Elsewhere")
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        assert (await register(owner)).status_code == 201
        document = definition(
            {
                "step_id": "peek",
                "action": "database_query",
                "config": {"database": "warehouse", "sql": "SELECT 1"},
            }
        )
        _, run = await start(stranger, document)
        done = await wait_for(stranger, run["id"])
        assert done["status"] == "failed"
        assert done["steps"][0]["error"]["code"] == "unknown_capability"
