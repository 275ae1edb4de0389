"""The error tree: every error a user can see carries its HTTP status and a stable code.

Services raise these; one API handler renders them as
`{"error": {"code", "message", "details": [{"path", "message"}]}}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ErrorDetail:
    """One problem inside a request, located by a JSON pointer."""

    path: str
    message: str
    code: str | None = None

    def as_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"path": self.path, "message": self.message}
        if self.code is not None:
            item["code"] = self.code
        return item


class AppError(Exception):
    """Base of all errors shown to users."""

    status_code = 500
    code = "internal_error"
    message = "Internal error."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        details: Sequence[ErrorDetail] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message = message or type(self).message
        if code is not None:
            self.code = code
        self.details = list(details)
        self.headers = headers or {}
        super().__init__(self.message)

    def as_body(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "details": [detail.as_dict() for detail in self.details],
            }
        }


class BadRequest(AppError):
    status_code = 400
    code = "bad_request"
    message = "The request is malformed."


class Unauthorized(AppError):
    status_code = 401
    code = "unauthorized"
    message = "A valid bearer token is required."

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("headers", {"WWW-Authenticate": "Bearer"})
        super().__init__(message, **kwargs)


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"
    message = "Your role does not allow this."


class NotFound(AppError):
    status_code = 404
    code = "not_found"
    message = "Not found."


class Conflict(AppError):
    status_code = 409
    code = "conflict"
    message = "The resource changed or is in a state that does not allow this."


class PayloadTooLarge(AppError):
    status_code = 413
    code = "payload_too_large"
    message = "The request body is too large."


class UnsupportedMediaType(AppError):
    status_code = 415
    code = "unsupported_media_type"
    message = "The request body must be JSON (Content-Type: application/json)."


class ValidationFailed(AppError):
    status_code = 422
    code = "validation_failed"
    message = "The request failed validation."


class PreconditionRequired(AppError):
    status_code = 428
    code = "precondition_required"
    message = "This update needs the expected version (If-Match header or a `version` field)."


class TooManyRequests(AppError):
    status_code = 429
    code = "too_many_requests"
    message = "Too many requests; try again later."


class ServiceUnavailable(AppError):
    status_code = 503
    code = "service_unavailable"
    message = "A backing service is unavailable."
