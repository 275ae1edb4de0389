"""Password hashing with Argon2id (memory-hard), through the maintained `argon2-cffi` package.

Only people who sign in to the web UI have a password; API tokens stay random bearer secrets. A hash
carries its own parameters, so changing the cost (`HashCost`, from the installation's settings) re-hashes
each password at its next sign-in (`needs_rehash`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argon2 import PasswordHasher

    from app.config import Settings

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024
"""Argon2 takes any length; the cap only keeps a megabyte password from costing a megabyte of hashing."""


@dataclass(frozen=True)
class HashCost:
    """What one Argon2id hash costs: memory in KiB, passes over it, parallel lanes (threads).

    The default is RFC 9106's recommendation for memory-constrained machines (64 MiB, 3 passes, 4
    lanes): about 0.2 s of CPU per sign-in. OWASP's minimum (19 MiB, 2 passes, 1 lane) costs about an
    eighth of that, for installations short of memory or signing many people in; the settings refuse
    anything weaker."""

    memory_kib: int = 65_536
    time_cost: int = 3
    parallelism: int = 4

    @classmethod
    def from_settings(cls, settings: Settings) -> HashCost:
        return cls(
            memory_kib=settings.password_hash_memory_kib,
            time_cost=settings.password_hash_time_cost,
            parallelism=settings.password_hash_parallelism,
        )


@functools.cache
def _hasher(cost: HashCost) -> PasswordHasher:
    """The hasher, made on first use: only sign-in needs Argon2 and its C bindings in the process."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=cost.time_cost, memory_cost=cost.memory_kib, parallelism=cost.parallelism)


@functools.cache
def _dummy_hash(cost: HashCost) -> str:
    """Verified when no user matches, so an unknown email costs the same time as a wrong password.

    Made on first use, not at import: hashing takes a fraction of a second and its memory for a
    moment, which every process importing this module (the API's workers among them) would otherwise
    pay at start.
    """
    return _hasher(cost).hash("not-a-password-of-anyone")


def password_problem(password: str) -> str | None:
    """Why `password` is refused as a new password, or None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"must have at least {MIN_PASSWORD_LENGTH} characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"must have at most {MAX_PASSWORD_LENGTH} characters"
    return None


def hash_password(password: str, cost: HashCost) -> str:
    """The Argon2id hash to store (salted, parameters included)."""
    return _hasher(cost).hash(password)


def verify_password(stored_hash: str | None, password: str, cost: HashCost) -> bool:
    """Whether `password` matches; a missing or malformed hash never matches but costs the same as a
    hash made at `cost` (a stored hash is checked at the cost it was made with)."""
    from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

    try:
        return _hasher(cost).verify(stored_hash or _dummy_hash(cost), password) and stored_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str, cost: HashCost) -> bool:
    """Whether the hash was made at another cost than `cost` (stronger or weaker)."""
    return _hasher(cost).check_needs_rehash(stored_hash)
