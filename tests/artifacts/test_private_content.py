"""A private artifact's content stays in the artifact: the step record that wrote it keeps its id only,
so members who may not open the artifact cannot read its content from the run either."""

from __future__ import annotations

import json
from typing import Any

from tests.support.factories import Caller, Factory
from tests.support.file_server import FileServer
from tests.support.runs import definition, start, wait_for

# Rendered at run time, so the text appears nowhere in the definition members can read.
PAYROLL = "{{ 'pay' ~ 'roll-' ~ (40000 + 2345) }}"
RENDERED = "payroll-42345"


def _private_table(name: str = "payroll.json") -> dict[str, Any]:
    return {
        "step_id": "keep",
        "action": "transform_data",
        "config": {"output": [{"who": "Ada", "pay": PAYROLL}], "save_as_artifact": {"name": name}},
        "output_as": "table",
    }


async def _seen_by(member: Caller, run_id: str) -> str:
    run = await member.request("GET", member.space_path(f"/runs/{run_id}"))
    assert run.status_code == 200, run.text
    return json.dumps(run.json())


async def _link(caller: Caller, artifact_id: str) -> Any:
    return await caller.request("POST", caller.space_path(f"/artifacts/{artifact_id}/link"), json={})


class TestStepRecordsHoldNoArtifactContent:
    async def test_a_member_reads_the_artifact_id_but_not_the_private_content(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner)
        _, run = await start(owner, definition(_private_table()))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        keep = done["steps"][0]
        artifact_id = keep["output"]["artifact_id"]
        assert keep["config"]["output"] == {"artifact_id": artifact_id}
        assert keep["config"]["save_as_artifact"]["name"] == "payroll.json"
        assert RENDERED not in await _seen_by(member, run["id"])
        refused = await _link(member, artifact_id)
        assert refused.status_code == 403, "the artifact itself stays private"
        url = (await _link(owner, artifact_id)).json()["url"]
        assert RENDERED in (await owner.request("GET", url)).text, "its author still reads it"

    async def test_a_step_that_failed_to_keep_its_artifact_records_no_content(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner)
        _, run = await start(owner, definition(_private_table("../escape.json")))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert done["steps"][0]["error"]["code"] == "invalid_artifact_name"
        assert RENDERED not in await _seen_by(member, run["id"])

    async def test_without_an_artifact_the_output_is_recorded_as_before(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        step = {"step_id": "show", "action": "transform_data", "config": {"output": {"pay": PAYROLL}}}
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["steps"][0]["config"]["output"] == {"pay": RENDERED}
        assert done["steps"][0]["output"] == {"pay": RENDERED}
