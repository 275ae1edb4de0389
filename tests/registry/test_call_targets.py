"""What a call acts on (`Capability.target_of`), which a standing `always` approval grants."""

from __future__ import annotations

import pytest

from app.registry.builtin_capabilities import HTTP_REQUEST, NOTIFY_SEND


@pytest.mark.parametrize(
    ("args", "target"),
    [
        ({"url": "https://api.example.com/v1/notes"}, "GET https://api.example.com/v1/notes"),
        (
            {"url": "https://API.Example.com./v1/notes?id=5#x", "method": "post"},
            "POST https://api.example.com/v1/notes?id=5",
        ),
        ({"url": "http://user:pw@127.0.0.1:8080/a", "method": "DELETE"}, "DELETE http://127.0.0.1:8080/a"),
        ({"url": "http://[::1]:81/a"}, "GET http://[::1]:81/a"),
        ({"url": "http://host:99999/a"}, "GET http://host:99999/a"),
    ],
)
def test_an_http_request_targets_its_method_and_literal_url(args: dict[str, str], target: str) -> None:
    assert HTTP_REQUEST.target_of(args) == target


def test_another_host_path_or_method_is_another_target() -> None:
    base = HTTP_REQUEST.target_of({"url": "https://a.example.com/x", "method": "POST"})
    assert base != HTTP_REQUEST.target_of({"url": "https://b.example.com/x", "method": "POST"})
    assert base != HTTP_REQUEST.target_of({"url": "https://a.example.com/y", "method": "POST"})
    assert base != HTTP_REQUEST.target_of({"url": "https://a.example.com/x", "method": "PUT"})
    assert base != HTTP_REQUEST.target_of({"url": "http://a.example.com/x", "method": "POST"})
    assert base != HTTP_REQUEST.target_of({"url": "https://a.example.com:8443/x", "method": "POST"})
    assert base != HTTP_REQUEST.target_of({"url": "https://a.example.com/x?op=delete", "method": "POST"})
    assert base == HTTP_REQUEST.target_of({"url": "https://a.example.com/x#part", "method": "POST"})


def test_a_notification_has_no_target_but_itself() -> None:
    assert NOTIFY_SEND.target_of({"title": "anything"}) == "notify.send"
