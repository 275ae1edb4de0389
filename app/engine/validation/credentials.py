"""Credentials written into a definition as plain text: a warning at each, located by JSON pointer.

A warning, not an error: the definition still works, but anyone who can read the automation reads the
credential, and it travels wherever the definition does. The detector is the one every path shares
(`app.security.credentials`); the authoring checks make the same finding blocking for a model's proposal.
"""

from __future__ import annotations

from typing import Any

from app.definitions.pointers import join
from app.engine.validation.problems import Problem
from app.security.credentials import credential_literals

LITERAL_SECRET = "literal_secret"  # noqa: S105 (a problem code, not a secret)


def literal_message(parameter: str | None) -> str:
    """What to say about a credential literal; never quotes it."""
    where = "this value" if parameter is None else f"the query parameter {parameter!r}"
    return (
        f"{where} looks like a credential written into the definition; store it as a secret and "
        'reference it as {"$secret": "<name>"} instead'
    )


def literal_credentials(document: Any) -> list[Problem]:
    """A `literal_secret` warning for every credential-like literal of the definition."""
    return [
        Problem(join(*path), LITERAL_SECRET, literal_message(parameter), "warning")
        for path, parameter in credential_literals(document)
    ]
