"""A thin hand-written layer over the generated `automations_client`: what the generator does not give.

- `sign_in(base_url, email, password)`: a password sign-in that returns a client carrying its token.
- `connect(base_url, token)`: a client for an API token (`Authorization: Bearer …`).
- `expect(answer)`: the answer, or `ApiError` (code, message, details) when the API answered an error.
- `pages(fetch)`: every item of a cursor-paginated listing, fetching each page on demand.

Everything else is the generated client: `automations_client.api.<tag>.<operation>.sync(...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from automations_client import AuthenticatedClient, Client
from automations_client.api.auth import auth_sign_in as sign_in_operation
from automations_client.models.error_out import ErrorOut
from automations_client.models.session_out import SessionOut
from automations_client.models.sign_in_body import SignInBody
from automations_client.types import Unset

T = TypeVar("T")
ItemT = TypeVar("ItemT", covariant=True)


class ApiError(Exception):
    """An error answer of the API: its stable `code`, `message` and `details` (JSON pointers)."""

    def __init__(self, error: ErrorOut) -> None:
        self.code = error.error.code
        self.message = error.error.message
        self.details = [(detail.path, detail.message) for detail in error.error.details]
        super().__init__(f"{self.code}: {self.message}")


def expect(answer: T | ErrorOut | None) -> T:
    """`answer` when it is a success; `ApiError` for an error answer, `ValueError` for none at all."""
    if isinstance(answer, ErrorOut):
        raise ApiError(answer)
    if answer is None:
        raise ValueError("the API gave an answer this client does not know")
    return answer


def connect(base_url: str, token: str, **options: Any) -> AuthenticatedClient:
    """A client that sends `token` as a bearer token on every request."""
    return AuthenticatedClient(base_url=base_url, token=token, **options)


def sign_in(base_url: str, email: str, password: str, **options: Any) -> AuthenticatedClient:
    """Sign in with a password (POST /api/v1/auth/sessions) and return a client holding the token."""
    with Client(base_url=base_url) as anonymous:
        session: SessionOut = expect(
            sign_in_operation.sync(client=anonymous, body=SignInBody(email=email, password=password))
        )
    return connect(base_url, session.token, **options)


class Page(Protocol[ItemT]):
    """What every listing answers: its items and the cursor of the next page (None on the last)."""

    @property
    def items(self) -> list[ItemT]: ...

    @property
    def next_cursor(self) -> str | Unset | None: ...


def pages(fetch: Callable[[str | None], Page[T] | ErrorOut | None]) -> Iterator[T]:
    """Every item of a listing; `fetch(cursor)` asks for one page (cursor None for the first)."""
    cursor: str | None = None
    while True:
        page = expect(fetch(cursor))
        yield from page.items
        following = page.next_cursor
        if not isinstance(following, str) or not following:
            return
        cursor = following
