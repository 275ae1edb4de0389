"""Agent tests use the worker, beat, loopback server and the scripted LLM provider."""

from collections.abc import Iterator

import pytest

from tests.runs.conftest import loopback, stack
from tests.support.fake_llm import FakeLlm

__all__ = ["loopback", "stack"]


@pytest.fixture
def llm(fake_llm: FakeLlm) -> Iterator[FakeLlm]:
    """The provider with an empty script and no recorded requests."""
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()
