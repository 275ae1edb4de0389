"""Bad requests and failing backing services: clear 4xx/5xx answers, nothing spent or half-saved."""

from __future__ import annotations

import socket
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from httpx import ASGITransport, AsyncClient
from sqlalchemy import func, select

from app.config import Settings
from app.persistence.models import Automation, LlmUsage
from tests.support.drafts import draft_from, envelope, proposal, review_reply
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import FakeLlm


class TestRequestText:
    @pytest.mark.parametrize("text", ["", "   \n\t ", "x" * 4001, "y" * 20_000])
    async def test_empty_or_too_long_requests_are_422_and_reach_no_model(
        self, owner: Caller, llm: FakeLlm, text: str
    ) -> None:
        response = await draft_from(owner, text)
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["path"] == "/request"
        assert llm.requests == []

    async def test_a_message_with_nothing_to_say_is_422(self, owner: Caller, llm: FakeLlm) -> None:
        llm.script(envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        llm.reset()
        path = owner.space_path(f"/drafts/{draft['id']}/messages")
        for body in ({}, {"message": "  "}, {"message": "x" * 4001}, {"answers": {"q9": "?"}}):
            response = await owner.request("POST", path, json=body)
            assert response.status_code == 422, body
        assert llm.requests == []

    async def test_a_draft_id_that_does_not_exist_is_404(self, owner: Caller) -> None:
        for suffix in ("", "/save"):
            method = "GET" if suffix == "" else "POST"
            response = await owner.request(method, owner.space_path(f"/drafts/{uuid.uuid4().hex}{suffix}"))
            assert response.status_code == 404


class TestConfiguration:
    async def test_without_an_authoring_model_drafting_is_503_saying_what_to_set(
        self, factory: Factory, fake_llm: FakeLlm
    ) -> None:
        owner = await factory.owner()
        fake_llm.reset()
        response = await draft_from(owner)
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "authoring_unavailable"
        assert "AUTOMATIONS_AUTHORING_MODEL" in error["message"]
        assert fake_llm.requests == []
        listed = await owner.request("GET", owner.space_path("/drafts"))
        assert listed.status_code == 200
        assert listed.json()["items"] == []

    def test_an_authoring_model_outside_the_allowed_list_is_refused_at_start(self) -> None:
        from app.config import ConfigurationError

        with pytest.raises(ConfigurationError, match="AUTOMATIONS_AUTHORING_MODEL"):
            Settings(llm_allowed_models=["openai/a"], authoring_model="openai/b")


class TestBudget:
    async def test_over_the_daily_authoring_cap_is_429_and_no_model_is_called(
        self, authoring_app, owner: Caller, llm: FakeLlm
    ) -> None:  # type: ignore[no-untyped-def]
        async with authoring_app.state.sessionmaker() as session:
            session.add(
                LlmUsage(
                    space_id=uuid.UUID(owner.space_id),
                    draft_id="earlier",
                    purpose="generate",
                    model="openai/test-model",
                    input_tokens=1,
                    output_tokens=1,
                    cost_usd=Decimal("5.0"),
                    created_at=datetime.now(UTC),
                )
            )
            await session.commit()
        response = await draft_from(owner)
        assert response.status_code == 429
        assert response.json()["error"]["code"] == "authoring_budget_exceeded"
        assert llm.requests == []
        assert (await owner.request("GET", owner.space_path("/drafts"))).json()["items"] == []

    async def test_reaching_the_cap_mid_draft_skips_the_review_and_keeps_the_draft(
        self, authoring_app, owner: Caller, llm: FakeLlm
    ) -> None:  # type: ignore[no-untyped-def]
        async with authoring_app.state.sessionmaker() as session:
            session.add(
                LlmUsage(
                    space_id=uuid.UUID(owner.space_id),
                    draft_id="earlier",
                    purpose="generate",
                    model="openai/test-model",
                    input_tokens=1,
                    output_tokens=1,
                    cost_usd=Decimal("4.96"),
                    created_at=datetime.now(UTC),
                )
            )
            await session.commit()
        # This answer costs $0.04 (30,000 x 1e-6 + 5,000 x 2e-6): the space is then exactly at its cap.
        llm.script(envelope(proposal(), prompt_tokens=30_000, completion_tokens=5_000), review_reply())
        response = await draft_from(owner)
        assert response.status_code == 201
        draft = response.json()
        assert draft["status"] == "ready"
        assert draft["summary"] is None
        assert any("daily cap" in note for note in draft["notes"])
        assert len(llm.requests) == 1
        assert llm.remaining == 1

    async def test_run_spending_does_not_count_against_authoring(
        self, authoring_app, owner: Caller, llm: FakeLlm, nl_factory: Factory
    ) -> None:  # type: ignore[no-untyped-def]
        other = await nl_factory.owner("Spender")
        async with authoring_app.state.sessionmaker() as session:
            session.add(
                LlmUsage(
                    space_id=uuid.UUID(other.space_id),
                    draft_id="theirs",
                    purpose="generate",
                    model="openai/test-model",
                    input_tokens=1,
                    output_tokens=1,
                    cost_usd=Decimal("50.0"),
                    created_at=datetime.now(UTC),
                )
            )
            await session.commit()
        llm.script(envelope(proposal()), review_reply())
        assert (await draft_from(owner)).status_code == 201  # another space's spending is theirs


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def redis_down(authoring_settings: Settings, clean_db: None) -> AsyncIterator[AsyncClient]:
    from app.main import create_app

    broken = authoring_settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{_closed_port()}/0"})
    application = create_app(broken)
    async with (
        application.router.lifespan_context(application),
        AsyncClient(transport=ASGITransport(app=application), base_url="http://testserver") as http,
    ):
        http.app = application  # type: ignore[attr-defined]
        yield http


class TestRedisDown:
    async def test_drafting_is_503_before_any_model_call_and_nothing_is_saved(
        self, redis_down: AsyncClient, llm: FakeLlm
    ) -> None:
        owner = await Factory(redis_down.app, redis_down).owner()  # type: ignore[attr-defined]
        response = await draft_from(owner)
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "drafts_unavailable"
        assert llm.requests == []
        for path in ("/drafts", f"/drafts/{uuid.uuid4().hex}"):
            assert (await owner.request("GET", owner.space_path(path))).status_code == 503
        saving = await owner.request("POST", owner.space_path(f"/drafts/{uuid.uuid4().hex}/save"))
        assert saving.status_code == 503
        async with redis_down.app.state.sessionmaker() as session:  # type: ignore[attr-defined]
            assert await session.scalar(select(func.count()).select_from(Automation)) == 0
            assert await session.scalar(select(func.count()).select_from(LlmUsage)) == 0

    async def test_a_save_while_redis_is_down_is_503_and_the_draft_saves_later(
        self, redis_down: AsyncClient, owner: Caller, llm: FakeLlm
    ) -> None:
        llm.script(envelope(proposal()), review_reply())
        draft = (await draft_from(owner)).json()
        cut_off = Caller(redis_down, owner.token, owner.space_id, owner.user_id)
        response = await cut_off.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert response.status_code == 503
        assert (await owner.request("GET", owner.space_path("/automations"))).json()["items"] == []
        saved = await owner.request("POST", owner.space_path(f"/drafts/{draft['id']}/save"))
        assert saved.status_code == 201
