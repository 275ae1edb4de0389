"""The errors of the template engine and the problems reported by the save-time check.

Every refusal is a `TemplateError` subclass with a stable `code`, so callers can branch on the kind
(syntax, security, limits, undefined names, evaluation) and show the message as is. They are
`AppError`s (422) so one that reaches the API is rendered like any other bad input, with the JSON
pointer of the failing field in `details`. Errors cross the pipe from the sandbox process as small
dicts; `error_to_wire` / `error_from_wire` do that round trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.errors import AppError, ErrorDetail

# Problem and error codes. The first five are the codes `check_template` reports.
SYNTAX = "template_syntax"
UNKNOWN_FILTER = "unknown_filter"
UNKNOWN_TEST = "unknown_test"
UNSAFE_ACCESS = "unsafe_access"
TOO_LONG = "template_too_long"
TOO_COMPLEX = "template_too_complex"
TIMEOUT = "template_timeout"
OUTPUT_TOO_LARGE = "template_output_too_large"
VALUE_TOO_LARGE = "template_value_too_large"
MEMORY = "template_memory"
CONTEXT_TOO_LARGE = "template_context_too_large"
UNSAFE_OUTPUT = "template_unsafe_output"
SECURITY = "template_security"
UNDEFINED = "template_undefined"
RUNTIME = "template_runtime"
INVALID_CONTEXT = "template_invalid_context"
ENGINE_UNAVAILABLE = "template_engine_unavailable"

_MAX_MESSAGE_CHARS = 500


class TemplateError(AppError):
    """Base class of every error the template engine raises.

    `message` is the plain explanation, `code` a stable identifier, `line` the template line when
    known, and `pointer` the JSON pointer of the failing field when `render_value` rendered a config.
    """

    status_code = 422
    code = "template_error"
    message = "The template was refused."

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        line: int | None = None,
        pointer: str | None = None,
    ) -> None:
        message = message[:_MAX_MESSAGE_CHARS]
        details = [ErrorDetail(pointer or "/", message, code or self.code)] if pointer is not None else []
        super().__init__(message, code=code, details=details)
        self.line = line
        self.pointer = pointer
        if self.code == ENGINE_UNAVAILABLE:  # not the template's fault: the sandbox could not run
            self.status_code = 503

    def __str__(self) -> str:
        where = []
        if self.pointer is not None:
            where.append(f"at {self.pointer or '/'}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{self.message} ({', '.join(where)})" if where else self.message

    def located(self, *, line: int | None = None, pointer: str | None = None) -> TemplateError:
        """Return a copy of this error with its location filled in where it was unknown."""
        return type(self)(
            self.message,
            code=self.code,
            line=self.line if self.line is not None else line,
            pointer=self.pointer if self.pointer is not None else pointer,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments do not survive the default exception pickling (Celery pickles errors).
        return (_rebuild, (type(self), self.message, self.code, self.line, self.pointer))


class TemplateSyntaxError(TemplateError):
    """The template does not parse, or uses a filter or test that does not exist."""

    code = SYNTAX


class TemplateSecurityError(TemplateError):
    """The template tried something the sandbox forbids (private attributes, unsafe calls, bad output)."""

    code = SECURITY


class TemplateLimitError(TemplateError):
    """The template ran into a size, time, memory or nesting limit."""

    code = "template_limit"


class TemplateUndefinedError(TemplateError):
    """The template read a variable or key that the context does not have."""

    code = UNDEFINED


class TemplateRuntimeError(TemplateError):
    """Evaluation failed on valid syntax: wrong types, division by zero, bad filter arguments."""

    code = RUNTIME


def _rebuild(
    cls: type[TemplateError], message: str, code: str, line: int | None, pointer: str | None
) -> TemplateError:
    return cls(message, code=code, line=line, pointer=pointer)


@dataclass(frozen=True)
class TemplateProblem:
    """One finding of `check_template`: a stable code, a message for the author, the line if known."""

    code: str
    message: str
    line: int | None = None


_CLASSES: dict[str, type[TemplateError]] = {
    cls.__name__: cls
    for cls in (
        TemplateError,
        TemplateSyntaxError,
        TemplateSecurityError,
        TemplateLimitError,
        TemplateUndefinedError,
        TemplateRuntimeError,
    )
}

_PROBLEM_CLASSES: dict[str, type[TemplateError]] = {
    SYNTAX: TemplateSyntaxError,
    UNKNOWN_FILTER: TemplateSyntaxError,
    UNKNOWN_TEST: TemplateSyntaxError,
    UNSAFE_ACCESS: TemplateSecurityError,
    TOO_LONG: TemplateLimitError,
    TOO_COMPLEX: TemplateLimitError,
}


def problem_to_error(problem: TemplateProblem) -> TemplateError:
    """The error a render raises for a problem that `check_template` would have reported."""
    cls = _PROBLEM_CLASSES.get(problem.code, TemplateSyntaxError)
    return cls(problem.message, code=problem.code, line=problem.line)


def error_to_problem(error: TemplateError) -> TemplateProblem:
    """The save-time form of an error met while checking a template."""
    return TemplateProblem(error.code, error.message, error.line)


def error_to_wire(error: TemplateError) -> dict[str, Any]:
    """A JSON-ready form of an error, for the pipe between the sandbox process and its parent."""
    return {
        "kind": type(error).__name__,
        "code": error.code,
        "message": error.message,
        "line": error.line,
    }


def error_from_wire(data: dict[str, Any]) -> TemplateError:
    """Rebuild an error sent by `error_to_wire`; unknown kinds fall back to the base class."""
    cls = _CLASSES.get(str(data.get("kind")), TemplateError)
    line = data.get("line")
    return cls(
        str(data.get("message", "template error")),
        code=str(data.get("code") or cls.code),
        line=line if isinstance(line, int) else None,
    )
