"""The artifact port, links and retention without a worker: caps, quota, forged links, the sweep."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from app.adapters.artifact_writer import ArtifactLimits, RunArtifacts, name_problem
from app.definitions.signals import StepError
from app.integrations.artifact_store import LocalStore
from app.integrations.http import GuardedHttp
from app.persistence.models import Artifact, Run
from app.persistence.transaction import transaction
from app.security.egress import EgressAllowList
from app.security.links import sign_link, verify_link
from app.services.resources.artifacts import artifact_service
from tests.support.factories import Caller, Factory, minimal_definition
from tests.support.file_server import FileServer
from tests.support.runs import start

SECRET = "link-signing-secret-for-tests-0123456789"


def uow(app):  # type: ignore[no-untyped-def]
    return lambda: transaction(app.state.sessionmaker, app.state.send_job)


async def a_run(factory: Factory) -> tuple[Caller, Run]:
    owner = await factory.owner()
    _, fired = await start(owner, minimal_definition())
    async with uow(factory.app)() as session:
        run = await session.get(Run, uuid.UUID(fired["id"]))
    assert run is not None
    return owner, run


async def chunks(total: int, size: int = 1000) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        yield b"y" * min(size, total - sent)
        sent += size


def writer(factory: Factory, run: Run, root: Path, **limits: int) -> RunArtifacts:
    return RunArtifacts(uow(factory.app), LocalStore(root), run, ArtifactLimits(**limits))


def staged(root: Path) -> list[Path]:
    return list((root / ".staging").glob("*"))


async def rows(factory: Factory, run: Run) -> list[Artifact]:
    async with uow(factory.app)() as session:
        return list((await session.scalars(select(Artifact).where(Artifact.run_id == run.id))).all())


class TestNames:
    @pytest.mark.parametrize("name", ["a/b", "a\\b", "..", "x..y", "", "   ", "line\nbreak", "n" * 256])
    def test_refused(self, name: str) -> None:
        assert name_problem(name) is not None

    @pytest.mark.parametrize("name", ["report.pdf", "Q3 résumé (final).csv", ".hidden"])
    def test_accepted(self, name: str) -> None:
        assert name_problem(name) is None


class TestPut:
    async def test_same_bytes_are_stored_once_under_their_hash(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        _, run = await a_run(factory)
        port = writer(factory, run, tmp_path)
        first = await port.put(
            "a.txt",
            b"hello",
            "text/plain",
            step_id="s",
            kind="data",
            retention="permanent",
            visibility="space",
        )
        second = await port.put(
            "b.txt",
            chunks(5, 2),
            "text/plain",
            step_id="s",
            kind="data",
            retention="transient",
            visibility="space",
        )
        assert first.sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        assert first.id != second.id
        assert first.expires_at is None
        assert second.sha256 != first.sha256  # "yyyyy"
        blobs = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert len(blobs) == 2
        assert not staged(tmp_path)
        assert (tmp_path / first.sha256[:2] / first.sha256[2:4] / first.sha256).read_bytes() == b"hello"

    async def test_a_stream_over_the_cap_stops_and_leaves_nothing(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        _, run = await a_run(factory)
        port = writer(factory, run, tmp_path, max_bytes=10_000)
        with pytest.raises(StepError) as caught:
            await port.put(
                "big.bin",
                chunks(50_000),
                "application/octet-stream",
                step_id="s",
                kind="data",
                retention="default",
                visibility="private",
            )
        assert caught.value.code == "artifact_too_large"
        assert not caught.value.retryable
        assert not staged(tmp_path)
        assert not [p for p in tmp_path.rglob("*") if p.is_file()]
        assert await rows(factory, run) == []

    async def test_over_the_space_quota_fails_with_its_code(self, factory: Factory, tmp_path: Path) -> None:
        _, run = await a_run(factory)
        port = writer(factory, run, tmp_path, quota_bytes=3000)
        await port.put(
            "one",
            b"z" * 2000,
            "text/plain",
            step_id="s",
            kind="data",
            retention="default",
            visibility="private",
        )
        for data in (b"z" * 1500, chunks(1500)):
            with pytest.raises(StepError) as caught:
                await port.put(
                    "two",
                    data,
                    "text/plain",
                    step_id="s",
                    kind="data",
                    retention="default",
                    visibility="private",
                )
            assert caught.value.code == "artifact_quota_exceeded"
        assert len(await rows(factory, run)) == 1
        assert not staged(tmp_path)

    async def test_concurrent_writers_cannot_both_take_the_last_bytes(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        _, run = await a_run(factory)
        ports = [writer(factory, run, tmp_path, quota_bytes=3000) for _ in range(4)]
        results = await asyncio.gather(
            *(
                port.put(
                    f"n{i}",
                    bytes([i]) * 1000,
                    "text/plain",
                    step_id="s",
                    kind="data",
                    retention="default",
                    visibility="private",
                )
                for i, port in enumerate(ports)
            ),
            return_exceptions=True,
        )
        refused = [r for r in results if isinstance(r, StepError)]
        assert len(refused) == 1
        assert refused[0].code == "artifact_quota_exceeded"
        kept = await rows(factory, run)
        assert sum(a.size for a in kept) == 3000
        blobs = {p.name for p in tmp_path.rglob("*") if p.is_file() and ".staging" not in p.parts}
        assert blobs == {a.sha256 for a in kept}, "the refused artifact's bytes are not left behind"

    async def test_an_odd_content_type_is_served_as_octet_stream(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        _, run = await a_run(factory)
        ref = await writer(factory, run, tmp_path).put(
            "x",
            b"1",
            "text/html\r\nSet-Cookie: a=b",
            step_id="s",
            kind="data",
            retention="default",
            visibility="private",
        )
        assert ref.content_type == "application/octet-stream"

    async def test_a_download_over_the_cap_is_stopped(
        self, file_server: FileServer, tmp_path: Path, factory: Factory
    ) -> None:
        _, run = await a_run(factory)
        port = writer(factory, run, tmp_path)
        http = GuardedHttp(EgressAllowList.parse("127.0.0.1/32"))
        with pytest.raises(StepError) as caught:
            async with http.open(
                "GET",
                f"{file_server.url}/bytes/300000",
                headers={},
                params={},
                json_body=None,
                content=None,
                timeout_seconds=10,
                max_bytes=100_000,
            ) as stream:
                await port.put(
                    "big",
                    stream.chunks,
                    "application/octet-stream",
                    step_id="s",
                    kind="data",
                    retention="default",
                    visibility="private",
                )
        assert caught.value.code == "artifact_too_large"
        assert not staged(tmp_path)
        assert await rows(factory, run) == []

    async def test_a_download_to_a_private_address_is_refused(self, file_server: FileServer) -> None:
        http = GuardedHttp(EgressAllowList())
        with pytest.raises(StepError) as caught:
            async with http.open(
                "GET",
                f"{file_server.url}/report.pdf",
                headers={},
                params={},
                json_body=None,
                content=None,
                timeout_seconds=5,
                max_bytes=1000,
            ):
                pass
        assert caught.value.code == "egress_denied"


class TestLinks:
    def test_a_signed_token_round_trips_until_it_expires(self) -> None:
        artifact, space = uuid.uuid4(), uuid.uuid4()
        now = datetime.now(UTC)
        token = sign_link(SECRET, artifact, space, now + timedelta(minutes=15))
        claims = verify_link(SECRET, token, now)
        assert claims is not None
        assert (claims.artifact_id, claims.space_id) == (artifact, space)
        assert verify_link(SECRET, token, now + timedelta(minutes=16)) is None
        assert verify_link("another-secret-another-secret-000000", token, now) is None

    def test_a_tampered_token_is_refused(self) -> None:
        now = datetime.now(UTC)
        token = sign_link(SECRET, uuid.uuid4(), uuid.uuid4(), now + timedelta(hours=1))
        raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        raw[20] ^= 1  # another space
        forged = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
        for bad in (forged, token[:-2], "", "not-a-token", token + "AAAA", "A" * 500):
            assert verify_link(SECRET, bad, now) is None

    async def test_forged_expired_and_foreign_tokens_are_404_without_a_hint(
        self, factory: Factory, tmp_path: Path, settings
    ) -> None:  # type: ignore[no-untyped-def]
        owner, run = await a_run(factory)
        ref = await writer(factory, run, factory.app.state.runtime.artifact_store.root).put(
            "a.txt",
            b"hello",
            "text/plain",
            step_id="s",
            kind="data",
            retention="default",
            visibility="shared",
        )
        key = settings.resolved_secret_key()
        now = datetime.now(UTC)
        good = sign_link(key, uuid.UUID(ref.id), run.space_id, now + timedelta(minutes=5))
        assert (await owner.client.get(f"/artifacts/{good}")).content == b"hello"
        tokens = [
            sign_link(key, uuid.UUID(ref.id), run.space_id, now - timedelta(seconds=1)),
            sign_link(key, uuid.UUID(ref.id), uuid.uuid4(), now + timedelta(minutes=5)),
            sign_link("x" * 40, uuid.UUID(ref.id), run.space_id, now + timedelta(minutes=5)),
            good[:-1] + ("A" if good[-1] != "A" else "B"),
        ]
        bodies = set()
        for token in tokens:
            answer = await owner.client.get(f"/artifacts/{token}")
            assert answer.status_code == 404
            bodies.add(answer.text)
        assert len(bodies) == 1, "every refusal reads the same"

    async def test_link_lifetime_is_bounded(self, factory: Factory) -> None:
        owner, run = await a_run(factory)
        ref = await writer(factory, run, factory.app.state.runtime.artifact_store.root).put(
            "a.txt",
            b"hello",
            "text/plain",
            step_id="s",
            kind="data",
            retention="permanent",
            visibility="space",
        )
        path = owner.space_path(f"/artifacts/{ref.id}/link")
        for seconds in (0, 7 * 24 * 3600 + 1):
            assert (await owner.request("POST", path, json={"expires_in": seconds})).status_code == 422
        week = await owner.request("POST", path, json={"expires_in": 7 * 24 * 3600})
        assert week.status_code == 200
        default = await owner.request("POST", path)
        expires = datetime.fromisoformat(default.json()["expires_at"])
        assert timedelta(minutes=14) < expires - datetime.now(UTC) <= timedelta(minutes=15)


class TestRetention:
    async def test_an_expired_artifact_is_gone_before_the_sweep_runs(self, factory: Factory) -> None:
        owner, run = await a_run(factory)
        ref = await writer(factory, run, factory.app.state.runtime.artifact_store.root).put(
            "old.txt",
            b"old",
            "text/plain",
            step_id="s",
            kind="data",
            retention="transient",
            visibility="space",
        )
        path = owner.space_path(f"/artifacts/{ref.id}")
        assert (await owner.request("GET", path)).status_code == 200
        async with uow(factory.app)() as session:
            await session.execute(
                update(Artifact)
                .where(Artifact.id == uuid.UUID(ref.id))
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )
        assert (await owner.request("GET", path)).status_code == 404

    async def test_the_sweep_deletes_expired_rows_and_unshared_bytes(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        _, run = await a_run(factory)
        store = LocalStore(tmp_path)
        port = RunArtifacts(uow(factory.app), store, run, ArtifactLimits())
        old = await port.put(
            "old",
            b"old bytes",
            "text/plain",
            step_id="s",
            kind="data",
            retention="transient",
            visibility="space",
        )
        twin = await port.put(
            "twin",
            b"shared bytes",
            "text/plain",
            step_id="s",
            kind="data",
            retention="transient",
            visibility="space",
        )
        keeper = await port.put(
            "keep",
            b"shared bytes",
            "text/plain",
            step_id="s",
            kind="data",
            retention="permanent",
            visibility="space",
        )
        # Expired an hour from now, swept as of two hours from now: beat's own sweep (it ticks every
        # second in this session) sees nothing expired yet and cannot take the rows first.
        later = datetime.now(UTC) + timedelta(hours=1)
        async with uow(factory.app)() as session:
            await session.execute(
                update(Artifact)
                .where(Artifact.id.in_([uuid.UUID(old.id), uuid.UUID(twin.id)]))
                .values(expires_at=later)
            )
        removed = await artifact_service.sweep(uow(factory.app), store, later + timedelta(hours=1))
        assert removed >= 2
        assert {a.name for a in await rows(factory, run)} == {"keep"}
        assert not store.path_of(old.sha256).exists()
        assert store.path_of(keeper.sha256).exists(), "bytes another artifact names are kept"
