"""Artifacts end to end: a real worker keeps a download and a CSV, later steps see only their ids,
the API lists them, links them and serves the bytes to whom the visibility allows."""

from __future__ import annotations

import asyncio
import csv
import io
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from app.persistence.models import Artifact
from app.persistence.transaction import transaction
from tests.support.factories import Caller, Factory
from tests.support.file_server import REPORT, FileServer
from tests.support.runs import definition, start, wait_for


def report_definition(url: str, visibility: str = "private") -> dict[str, Any]:
    return definition(
        {
            "step_id": "download",
            "action": "http_request",
            "config": {
                "url": f"{url}/report.pdf",
                "save_as_artifact": {"name": "report.pdf", "kind": "document", "visibility": visibility},
            },
            "output_as": "report",
        },
        {
            "step_id": "rows",
            "action": "transform_data",
            "config": {
                "output": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace, Hopper"}],
                "save_as_artifact": {"name": "people.csv", "format": "csv", "visibility": visibility},
            },
            "output_as": "table",
        },
        {
            "step_id": "mention",
            "action": "transform_data",
            "config": {"output": {"report": "{{ report.artifact_id }}", "table": "{{ table.artifact_id }}"}},
            "output_as": "mention",
        },
    )


async def run_report(owner: Caller, url: str, visibility: str = "private") -> dict[str, Any]:
    _, run = await start(owner, report_definition(url, visibility))
    done = await wait_for(owner, run["id"])
    assert done["status"] == "succeeded", done
    return done


async def link(caller: Caller, artifact_id: str, **body: Any) -> Any:
    return await caller.request("POST", caller.space_path(f"/artifacts/{artifact_id}/link"), json=body)


class TestKeptByAStep:
    async def test_download_and_csv_are_artifacts_and_later_steps_see_ids_only(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        done = await run_report(owner, file_server.url)
        steps = {step["step_id"]: step for step in done["steps"]}
        output = steps["download"]["output"]
        assert output["status_code"] == 200
        assert "text" not in output, "the body is kept as an artifact, not returned"
        assert output["artifact"]["size"] == len(REPORT)
        mention = steps["mention"]["output"]
        assert mention == {"report": output["artifact_id"], "table": steps["rows"]["output"]["artifact_id"]}

        listing = await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))
        assert listing.status_code == 200
        items = listing.json()["items"]
        assert [(a["name"], a["kind"], a["step_id"], a["step_path"]) for a in items] == [
            ("report.pdf", "document", "download", "download"),
            ("people.csv", "data", "rows", "rows"),
        ]
        pdf = items[0]
        assert output["artifact"]["link"] is None, "only shared artifacts come with a link"
        assert pdf["content_type"] == "application/pdf"
        assert pdf["retention"] == "default"
        assert pdf["expires_at"] is not None

        made = await link(owner, pdf["id"])
        assert made.status_code == 200, made.text
        served = await owner.request("GET", made.json()["url"])
        assert served.status_code == 200
        assert served.content == REPORT
        assert served.headers["content-type"] == "application/pdf"
        assert served.headers["content-disposition"].startswith('attachment; filename="report.pdf"')
        assert served.headers["x-content-type-options"] == "nosniff"

        table = await owner.request("GET", (await link(owner, items[1]["id"])).json()["url"])
        assert table.headers["content-type"].startswith("text/csv")
        assert list(csv.reader(io.StringIO(table.text))) == [
            ["id", "name"],
            ["1", "Ada"],
            ["2", "Grace, Hopper"],
        ]

    async def test_two_loop_iterations_keep_their_files_apart_by_step_path(
        self, factory: Factory, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        save = {
            "step_id": "rows",
            "action": "transform_data",
            "config": {
                "output": [{"item": "{{ item }}"}],
                "save_as_artifact": {"name": "rows.csv", "format": "csv"},
            },
        }
        _, run = await start(
            owner, definition({"step_id": "fan", "for_each": {"items": ["a", "b"], "steps": [save]}})
        )
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        listing = await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))
        assert listing.status_code == 200, listing.text
        items = listing.json()["items"]
        assert sorted((a["name"], a["step_id"], a["step_path"]) for a in items) == [
            ("rows.csv", "rows", "fan/0/rows"),
            ("rows.csv", "rows", "fan/1/rows"),
        ]
        contents = set()
        for artifact in items:
            made = await link(owner, artifact["id"])
            assert made.status_code == 200, made.text
            contents.add((await owner.request("GET", made.json()["url"])).text)
        assert len(contents) == 2, "each iteration's file is its own"

    async def test_a_bad_name_fails_the_step_without_retry(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        document = definition(
            {
                "step_id": "keep",
                "action": "transform_data",
                "config": {"output": {"a": 1}, "save_as_artifact": {"name": "../etc/passwd"}},
            },
            execution={"max_retries": 2},
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        keep = [step for step in done["steps"] if step["step_id"] == "keep"]
        assert len(keep) == 1, "a refused name is not retried"
        assert keep[0]["error"]["code"] == "invalid_artifact_name"
        listing = await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))
        assert listing.json()["items"] == []

    async def test_an_error_answer_is_not_kept(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        document = definition(
            {
                "step_id": "download",
                "action": "http_request",
                "config": {"url": f"{file_server.url}/missing", "save_as_artifact": {"name": "x.pdf"}},
            }
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        assert "404" in done["steps"][0]["error"]["message"]
        listing = await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))
        assert listing.json()["items"] == []


class TestVisibility:
    async def test_private_links_only_for_author_starter_and_admins(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner)
        done = await run_report(owner, file_server.url, "private")
        artifact = (await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))).json()[
            "items"
        ][0]
        refused = await link(member, artifact["id"])
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "artifact_private"
        url = (await link(owner, artifact["id"])).json()["url"]
        assert (await member.request("GET", url)).status_code == 404, (
            "a member who may not see it gets no hint"
        )
        assert (await owner.client.get(url)).status_code == 404, "no token, no private artifact"
        assert (await owner.request("GET", url)).status_code == 200

    async def test_space_links_need_a_member_and_shared_links_need_nobody(
        self, factory: Factory, file_server: FileServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        member = await factory.member(owner)
        stranger = await factory.owner(space="Elsewhere")
        space_run = await run_report(owner, file_server.url, "space")
        space_item = (
            await owner.request("GET", owner.space_path(f"/runs/{space_run['id']}/artifacts"))
        ).json()
        url = (await link(member, space_item["items"][0]["id"])).json()["url"]
        assert (await member.request("GET", url)).status_code == 200
        assert (await stranger.request("GET", url)).status_code == 404
        assert (await owner.client.get(url)).status_code == 404

        shared_run = await run_report(owner, file_server.url, "shared")
        shared_item = (
            await owner.request("GET", owner.space_path(f"/runs/{shared_run['id']}/artifacts"))
        ).json()
        kept = {step["step_id"]: step for step in shared_run["steps"]}["download"]["output"]["artifact"]
        assert (await owner.client.get(kept["link"])).content == REPORT, "a shared artifact's step link works"
        made = await link(owner, shared_item["items"][0]["id"], expires_in=60)
        assert made.json()["served_by"] == "api"
        anonymous = await owner.client.get(made.json()["url"])
        assert anonymous.status_code == 200
        assert anonymous.content == REPORT

    async def test_another_space_sees_nothing(self, factory: Factory, file_server: FileServer, stack) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        stranger = await factory.owner(space="Elsewhere")
        done = await run_report(owner, file_server.url, "shared")
        artifact_id = (await owner.request("GET", owner.space_path(f"/runs/{done['id']}/artifacts"))).json()[
            "items"
        ][0]["id"]
        for method, suffix in (
            ("GET", f"/runs/{done['id']}/artifacts"),
            ("GET", f"/artifacts/{artifact_id}"),
            ("POST", f"/artifacts/{artifact_id}/link"),
        ):
            answer = await stranger.request(method, stranger.space_path(suffix))
            assert answer.status_code == 404, (suffix, answer.text)
            mixed = await stranger.request(method, owner.space_path(suffix))
            assert mixed.status_code == 404, (suffix, mixed.text)


class TestRetentionOnBeat:
    async def test_beat_removes_an_expired_artifact_and_its_bytes(
        self, factory: Factory, file_server: FileServer, stack, settings
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        document = definition(
            {
                "step_id": "keep",
                "action": "transform_data",
                "config": {
                    "output": {"unique": str(uuid.uuid4())},
                    "save_as_artifact": {"name": "short.json", "retention": "transient"},
                },
                "output_as": "kept",
            }
        )
        _, run = await start(owner, document)
        done = await wait_for(owner, run["id"])
        artifact = done["steps"][0]["output"]["artifact"]
        blob = settings.artifacts_dir / artifact["sha256"][:2] / artifact["sha256"][2:4] / artifact["sha256"]
        assert blob.exists()
        async with transaction(factory.app.state.sessionmaker, factory.app.state.send_job) as session:
            await session.execute(
                update(Artifact)
                .where(Artifact.id == uuid.UUID(artifact["id"]))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        deadline = time.monotonic() + 30
        while blob.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert not blob.exists(), "beat's tick deletes the bytes of an expired artifact"
        async with transaction(factory.app.state.sessionmaker, factory.app.state.send_job) as session:
            assert await session.get(Artifact, uuid.UUID(artifact["id"])) is None
