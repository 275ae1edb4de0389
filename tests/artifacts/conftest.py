"""Fixtures of the artifact tests: a loopback file server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.file_server import FileServer


@pytest.fixture(scope="session")
def file_server() -> Iterator[FileServer]:
    server = FileServer().start()
    yield server
    server.stop()
