"""Authoring tests: an app with an authoring model pointed at the scripted provider."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from httpx import ASGITransport, AsyncClient

from app.config import Settings
from tests.support.factories import Caller, Factory
from tests.support.fake_llm import TEST_MODEL, FakeLlm


@pytest.fixture(scope="session")
def authoring_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"authoring_model": TEST_MODEL, "authoring_timeout_seconds": 3.0})


@pytest.fixture(scope="session")
async def authoring_app(authoring_settings: Settings):  # type: ignore[no-untyped-def]
    from app.main import create_app

    application = create_app(authoring_settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def nl_client(authoring_app, clean_db: None) -> AsyncIterator[AsyncClient]:  # type: ignore[no-untyped-def]
    async with AsyncClient(transport=ASGITransport(app=authoring_app), base_url="http://testserver") as http:
        yield http


@pytest.fixture
def nl_factory(authoring_app, nl_client: AsyncClient) -> Factory:  # type: ignore[no-untyped-def]
    return Factory(authoring_app, nl_client)


@pytest.fixture
async def owner(nl_factory: Factory) -> Caller:
    return await nl_factory.owner()


@pytest.fixture
def llm(fake_llm: FakeLlm) -> Iterator[FakeLlm]:
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()
