"""Governed-path tests receive approval webhooks on loopback receivers."""

from collections.abc import Iterator

import pytest

from tests.support.receivers import Receivers


@pytest.fixture(scope="session")
def receivers() -> Iterator[Receivers]:
    server = Receivers().start()
    yield server
    server.stop()
