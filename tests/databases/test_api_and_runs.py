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


class TestUpdate:
    async def test_rename_reprefix_and_repoint(self, factory: Factory, warehouse_dsn: str) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        await secret(owner, "other_dsn", warehouse_dsn)
        made = (await register(owner)).json()
        path = owner.space_path(f"/databases/{made['id']}")

        renamed = await owner.request("PATCH", path, json={"name": "sales", "tool_prefix": "sales"})
        assert renamed.status_code == 200, renamed.text
        assert renamed.json()["capabilities"] == ["sales.query", "sales.tables"]
        assert renamed.json()["dsn_secret"] == "warehouse_dsn"
        ids = await capability_ids(factory, owner.space_id)
        assert "sales.query" in ids
        assert "warehouse.query" not in ids

        repointed = await owner.request("PATCH", path, json={"dsn_secret": "other_dsn"})
        assert repointed.status_code == 200, repointed.text
        assert repointed.json()["name"] == "sales"
        assert repointed.json()["dsn_secret"] == "other_dsn"
        assert warehouse_dsn not in repointed.text
        unchanged = await owner.request("PATCH", path, json={})
        assert unchanged.status_code == 200
        assert unchanged.json() == repointed.json()
        assert (await owner.request("GET", path)).json() == repointed.json()

    async def test_bad_changes_are_refused_and_change_nothing(
        self, factory: Factory, warehouse_dsn: str
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        stranger = await factory.owner(space="Elsewhere")
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        await secret(owner, "not_a_dsn", "mysql://reader:hunter2@db.internal/sales")
        first = (await register(owner)).json()
        second = (await register(owner, name="second", tool_prefix="second")).json()
        path = owner.space_path(f"/databases/{second['id']}")

        cases = [
            ({"name": "warehouse"}, 409, "database_exists"),
            ({"tool_prefix": "warehouse"}, 409, "database_exists"),
            ({"tool_prefix": "http"}, 422, "tool_prefix_taken"),
            ({"tool_prefix": "Bad-Prefix"}, 422, "invalid_tool_prefix"),
            ({"name": "Not Valid"}, 422, "invalid_database_name"),
            ({"dsn_secret": "nope"}, 422, "secret_missing"),
            ({"dsn_secret": "not_a_dsn"}, 422, "invalid_dsn"),
            ({"name": ""}, 422, "validation_failed"),
            ({"extra": "field"}, 422, "validation_failed"),
        ]
        for body, status, code in cases:
            answer = await owner.request("PATCH", path, json=body)
            assert answer.status_code == status, (body, answer.text)
            assert answer.json()["error"]["code"] == code, body
            assert "hunter2" not in answer.text
        assert (await owner.request("GET", path)).json() == second
        assert (await owner.request("GET", owner.space_path(f"/databases/{first['id']}"))).json() == first

        assert (await member.request("PATCH", path, json={"name": "mine"})).status_code == 403
        foreign = stranger.space_path(f"/databases/{second['id']}")
        assert (await stranger.request("PATCH", foreign, json={"name": "mine"})).status_code == 404
        missing = owner.space_path("/databases/00000000-0000-0000-0000-000000000000")
        assert (await owner.request("PATCH", missing, json={"name": "x"})).status_code == 404
        assert (await owner.request("GET", path)).json() == second


class TestCheck:
    async def test_a_working_dsn_is_reachable_with_its_tables(
        self, factory: Factory, warehouse_dsn: str
    ) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        made = (await register(owner)).json()
        answer = await owner.request("POST", owner.space_path(f"/databases/{made['id']}/check"))
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"reachable": True, "tables": 3, "code": None, "message": None}

    async def test_failures_are_answers_that_never_quote_the_dsn(
        self, factory: Factory, warehouse_dsn: str
    ) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        made = (await register(owner)).json()
        path = owner.space_path(f"/databases/{made['id']}/check")
        # Registration checked the DSN; what it holds may change or break afterwards.
        missing_database = warehouse_dsn.rsplit("/", 1)[0] + "/no_such_database"
        closed_port = "postgresql://reader:hunter2@127.0.0.1:1/warehouse"
        refused_host = "postgresql://reader:hunter2@169.254.169.254/warehouse"
        for value, code in (
            (missing_database, "query_error"),
            (closed_port, "database_unavailable"),
            (refused_host, "egress_denied"),
            ("mysql://reader:hunter2@db/warehouse", "invalid_dsn"),
        ):
            await secret(owner, "warehouse_dsn", value)
            answer = await owner.request("POST", path)
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert (body["reachable"], body["code"], body["tables"]) == (False, code, None), value
            assert body["message"]
            assert "hunter2" not in answer.text
        gone = await owner.request("DELETE", owner.space_path("/secrets/warehouse_dsn"))
        assert gone.status_code == 204
        answer = (await owner.request("POST", path)).json()
        assert (answer["reachable"], answer["code"]) == (False, "secret_missing")

    async def test_only_admins_of_its_space_test_it(self, factory: Factory, warehouse_dsn: str) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        stranger = await factory.owner(space="Elsewhere")
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        made = (await register(owner)).json()
        suffix = f"/databases/{made['id']}/check"
        assert (await member.request("POST", member.space_path(suffix))).status_code == 403
        assert (await stranger.request("POST", stranger.space_path(suffix))).status_code == 404
        assert (await stranger.request("POST", owner.space_path(suffix))).status_code == 404
        unknown = owner.space_path("/databases/00000000-0000-0000-0000-000000000000/check")
        assert (await owner.request("POST", unknown)).status_code == 404


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
