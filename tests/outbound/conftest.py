"""Outbound tests: loopback receivers that verify signatures, and units of work whose jobs are kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs import Job
from app.persistence.transaction import transaction
from tests.support.receivers import Receivers


@pytest.fixture(scope="session")
def receivers() -> Iterator[Receivers]:
    server = Receivers().start()
    yield server
    server.stop()


class KeptJobs:
    """A unit of work like a worker's, except that its jobs are kept here instead of sent to the broker."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app
        self.jobs: list[Job] = []

    def __call__(self) -> AbstractAsyncContextManager[AsyncSession]:
        return transaction(self.app.state.sessionmaker, self.jobs.append)


@pytest.fixture
async def kept(app, clean_db: None) -> KeptJobs:  # type: ignore[no-untyped-def]
    return KeptJobs(app)


@pytest.fixture
def stack(worker, beat):  # type: ignore[no-untyped-def]
    """The service's own processes: a worker on every queue and beat (whose tick sweeps deliveries)."""
    return worker, beat
