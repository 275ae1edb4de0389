"""Outbound tests: loopback receivers that verify signatures, and units of work whose jobs are kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.outbound import KeptJobs
from tests.support.receivers import Receivers


@pytest.fixture(scope="session")
def receivers() -> Iterator[Receivers]:
    server = Receivers().start()
    yield server
    server.stop()


@pytest.fixture
async def kept(app, clean_db: None) -> KeptJobs:  # type: ignore[no-untyped-def]
    return KeptJobs(app)


@pytest.fixture
def stack(worker, beat):  # type: ignore[no-untyped-def]
    """The service's own processes: a worker on every queue and beat (whose tick sweeps deliveries)."""
    return worker, beat
