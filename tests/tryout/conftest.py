"""Try-out tests script the LLM provider per test."""

from collections.abc import Iterator

import pytest

from tests.support.fake_llm import FakeLlm


@pytest.fixture
def llm(fake_llm: FakeLlm) -> Iterator[FakeLlm]:
    """The provider with an empty script and no recorded requests."""
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()
