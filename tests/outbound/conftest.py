"""Outbound tests: units of work whose jobs are kept."""

from __future__ import annotations

import pytest

from tests.support.outbound import KeptJobs


@pytest.fixture
async def kept(app, clean_db: None) -> KeptJobs:  # type: ignore[no-untyped-def]
    return KeptJobs(app)


@pytest.fixture
def stack(worker, beat):  # type: ignore[no-untyped-def]
    """The service's own processes: a worker on every queue and beat (whose tick sweeps deliveries)."""
    return worker, beat
