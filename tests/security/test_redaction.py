"""Redaction of sensitive keys, known secrets and Bearer/Basic credentials from JSON-like values."""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.security.redaction import REDACTED, is_sensitive_key, redact


@pytest.mark.parametrize(
    "key",
    [
        "Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "x_api_key", "api_key",
        "apiKey", "APIKey", "ApiKey", "token", "access_token", "accessToken", "refresh_token", "secret",
        "client_secret", "clientSecret", "password", "PASSWORD", "passwd", "private_key", "privateKey",
        "github_token", "sessionToken", "webhook_secret", "db_password", "OPENAI_API_KEY", "signing-key",
    ],
)  # fmt: skip
def test_sensitive_keys(key: str) -> None:
    assert is_sensitive_key(key)
    assert redact({key: "value"}) == {key: REDACTED}


@pytest.mark.parametrize(
    "key", ["name", "url", "keyboard", "monkey", "tokens_used", "author", "passage", "status"]
)
def test_ordinary_keys(key: str) -> None:
    assert not is_sensitive_key(key)
    assert redact({key: "value"}) == {key: "value"}


def test_extra_keys_are_matched_like_the_built_in_ones() -> None:
    assert redact({"X-Tenant-Pin": 1234, "pin": 1}, extra_keys=["x_tenant_pin"]) == {
        "X-Tenant-Pin": REDACTED,
        "pin": 1,
    }


def test_whole_values_under_sensitive_keys_go_whatever_their_type() -> None:
    value = {
        "headers": {"Authorization": "Bearer abc", "Accept": "*/*"},
        "credentials": {"user": "u", "pw": "p"},
    }
    assert redact(value) == {"headers": {"Authorization": REDACTED, "Accept": "*/*"}, "credentials": REDACTED}


def test_known_secrets_are_hidden_inside_any_string_including_keys() -> None:
    value = {"log": ["calling with sk-live-123456 now", {"sk-live-123456": "x"}], "n": 3}
    assert redact(value, secrets=["sk-live-123456"]) == {
        "log": [f"calling with {REDACTED} now", {REDACTED: "x"}],
        "n": 3,
    }


def test_short_secrets_are_ignored() -> None:
    assert redact("a b c 12345", secrets=["12345", "a"]) == "a b c 12345"


def test_overlapping_and_adjacent_secrets_become_one_marker() -> None:
    assert redact("xxabcdefghyy", secrets=["abcdef", "defghi"]) == f"xx{REDACTED}ghyy"
    assert redact("xxabcdefghiyy", secrets=["abcdef", "defghi"]) == f"xx{REDACTED}yy"
    assert redact("secret1secret1", secrets=["secret1"]) == REDACTED


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer eyJhbGciOi.eyJzdWIi.SflKxw", f"Authorization: Bearer {REDACTED}"),
        ("curl -H 'authorization: bearer abcdefgh12345678'", f"curl -H 'authorization: bearer {REDACTED}'"),
        ("token is Basic dXNlcjpwYXNzd29yZA== ok", f"token is Basic {REDACTED} ok"),
        ("the Basic plan is fine", "the Basic plan is fine"),
        ("Basic information", "Basic information"),
        ("a bearer of news", "a bearer of news"),
        ("BEARER\tabcdefgh12345678", f"BEARER\t{REDACTED}"),
        ("x=basic\n\ndXNlcjpwYXNzd29yZA==", f"x=basic\n\n{REDACTED}"),
        ("ba\u017fic dXNlcjpwYXNzd29yZA==", f"ba\u017fic {REDACTED}"),
    ],
)
def test_bearer_and_basic_credentials_inside_text(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_input_is_never_mutated_and_tuples_come_back_as_lists() -> None:
    value = {"a": [{"password": "p", "t": ("x", "sk-abcdef")}], "b": "sk-abcdef"}
    before = copy.deepcopy(value)
    result = redact(value, secrets=["sk-abcdef"])
    assert value == before
    assert result == {"a": [{"password": REDACTED, "t": ["x", REDACTED]}], "b": REDACTED}


def test_deep_and_huge_values_are_walked_without_recursion() -> None:
    deep: Any = "sk-abcdef"
    for _ in range(100_000):
        deep = [deep]
    result = redact(deep, secrets=["sk-abcdef"])
    for _ in range(100_000):
        result = result[0]
    assert result == REDACTED
    wide = [{"token": i, "text": f"row {i}"} for i in range(100_000)]
    assert redact(wide)[99_999] == {"token": REDACTED, "text": "row 99999"}


def test_shared_and_cyclic_values_are_copied_once() -> None:
    shared = {"password": "p"}
    cyclic: list[Any] = [shared, shared]
    cyclic.append(cyclic)
    result = redact(cyclic)
    assert result[0] is result[1]
    assert result[2] is result
    assert result[0] == {"password": REDACTED}


SECRET_ALPHABET = st.characters(codec="utf-8", categories=["L", "N", "P", "S"])
secret_values = st.text(SECRET_ALPHABET, min_size=6, max_size=12).filter(lambda s: s not in REDACTED)
keys = st.text(st.sampled_from("abcdefgh"), max_size=6)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)


@st.composite
def with_secrets(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A JSON value with some secrets planted inside its strings."""
    secrets = draw(st.lists(secret_values, min_size=1, max_size=3))
    planted = st.builds(
        lambda a, s, b: a + s + b, st.text(max_size=5), st.sampled_from(secrets), st.text(max_size=5)
    )
    value = draw(
        st.recursive(
            planted | st.text(max_size=10) | st.integers(),
            lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
            max_leaves=15,
        )
    )
    return value, secrets


def _strings(value: Any) -> list[str]:
    stack, found = [value], []
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@settings(max_examples=300)
@given(with_secrets())
def test_no_secret_survives(case: tuple[Any, list[str]]) -> None:
    value, secrets = case
    result = redact(value, secrets=secrets)
    for text in _strings(result):
        assert not any(secret in text for secret in secrets)


@settings(max_examples=300)
@given(with_secrets())
def test_redaction_is_idempotent(case: tuple[Any, list[str]]) -> None:
    value, secrets = case
    once = redact(value, secrets=secrets)
    assert redact(once, secrets=secrets) == once


def _same_shape(before: Any, after: Any) -> None:
    if isinstance(before, dict):
        assert isinstance(after, dict)
        assert list(after) == list(before)
        for key in before:
            _same_shape(before[key], after[key])
    elif isinstance(before, list):
        assert isinstance(after, list)
        assert len(after) == len(before)
        for left, right in zip(before, after, strict=True):
            _same_shape(left, right)
    elif isinstance(before, str):
        assert isinstance(after, str)
    else:
        assert after == before


@given(json_values, st.lists(secret_values, max_size=3))
def test_structure_and_keys_are_preserved(value: Any, secrets: list[str]) -> None:
    # Keys drawn from "abcdefgh" are never sensitive; secrets that happen to spell a key are dropped.
    secrets = [s for s in secrets if not any(s in key for key in _strings(value))]
    _same_shape(value, redact(value, secrets=secrets))


@given(json_values)
def test_values_without_credentials_come_back_equal(value: Any) -> None:
    if any("bearer" in s.lower() or "basic" in s.lower() for s in _strings(value)):
        return
    assert redact(value) == value


def test_basic_needs_a_user_password_shape() -> None:
    not_a_pair = base64.b64encode(b"justtext").decode()
    assert redact(f"Basic {not_a_pair}") == f"Basic {not_a_pair}"


def test_a_secret_reference_under_a_sensitive_key_is_kept() -> None:
    value = {"headers": {"Authorization": {"$secret": "crm_token"}, "X-Api-Key": {"$secret": 3}}}
    assert redact(value) == {
        "headers": {"Authorization": {"$secret": "crm_token"}, "X-Api-Key": "[REDACTED]"}
    }
    assert redact({"token": {"$secret": "a", "value": "leak"}}) == {"token": "[REDACTED]"}
