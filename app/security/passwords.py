"""Password hashing with Argon2id (memory-hard), through the maintained `argon2-cffi` package.

Only people who sign in to the web UI have a password; API tokens stay random bearer secrets. A hash
carries its own parameters, so raising the cost later re-hashes old passwords on their next sign-in
(`needs_rehash`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argon2 import PasswordHasher

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024
"""Argon2 takes any length; the cap only keeps a megabyte password from costing a megabyte of hashing."""


@functools.cache
def _hasher() -> PasswordHasher:
    """The hasher, made on first use: only sign-in needs Argon2 and its C bindings in the process."""
    from argon2 import PasswordHasher

    return PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified when no user matches, so an unknown email costs the same time as a wrong password.

    Made on first use, not at import: hashing takes a third of a second and 64 MiB for a moment, which
    every process importing this module (the API's workers among them) would otherwise pay at start.
    """
    return _hasher().hash("not-a-password-of-anyone")


def password_problem(password: str) -> str | None:
    """Why `password` is refused as a new password, or None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"must have at least {MIN_PASSWORD_LENGTH} characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"must have at most {MAX_PASSWORD_LENGTH} characters"
    return None


def hash_password(password: str) -> str:
    """The Argon2id hash to store (salted, parameters included)."""
    return _hasher().hash(password)


def verify_password(stored_hash: str | None, password: str) -> bool:
    """Whether `password` matches; a missing or malformed hash never matches but costs the same."""
    from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

    try:
        return _hasher().verify(stored_hash or _dummy_hash(), password) and stored_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    """Whether the hash was made with weaker parameters than today's."""
    return _hasher().check_needs_rehash(stored_hash)
