"""Token shapes: what `generate_token` makes passes `is_well_formed`; nothing else does."""

from __future__ import annotations

import pytest

from app.security.tokens import generate_token, is_well_formed


def test_generated_tokens_are_well_formed() -> None:
    for _ in range(200):
        assert is_well_formed(generate_token())
        assert is_well_formed(generate_token("awh_"), "awh_")


@pytest.mark.parametrize(
    "token",
    [
        "",
        "aut_",
        "aut_not-a-real-token",
        "awh_" + "A" * 43,
        "aut_" + "A" * 42,
        "aut_" + "A" * 44,
        "aut_" + "A" * 42 + "=",
        "aut_" + "A" * 42 + "\n",
        "aut_" + "A" * 42 + "é",
        "aut_" + "A" * 1_000_000,
    ],
    ids=["empty", "prefix", "short", "other-prefix", "42", "44", "padding", "newline", "non-ascii", "huge"],
)
def test_anything_else_is_not(token: str) -> None:
    assert not is_well_formed(token)
