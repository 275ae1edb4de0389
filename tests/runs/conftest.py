"""Run tests talk to a real worker and beat, and to a loopback server standing in for the internet."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.loopback import Loopback


@pytest.fixture(scope="session")
def loopback() -> Iterator[Loopback]:
    server = Loopback().start()
    yield server
    server.stop()


@pytest.fixture
def stack(worker, beat):  # type: ignore[no-untyped-def]
    """The service's own processes: a worker on every queue and beat."""
    return worker, beat
