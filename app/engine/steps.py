"""Step failures and retry timing: what may be retried, and how long to wait before the next attempt."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

Backoff = Literal["none", "linear", "exponential"]

BASE_DELAY_SECONDS = 2.0
MAX_DELAY_SECONDS = 3600.0
JITTER = 0.2


class StepError(Exception):
    """A step attempt that failed; `retryable` says whether another attempt could do better."""

    def __init__(self, code: str, message: str, *, retryable: bool = True, details: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable
        self.details = details

    def as_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return error


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    backoff: Backoff

    def allows(self, attempt: int) -> bool:
        """Whether attempt `attempt` (1-based) may be followed by another."""
        return attempt <= self.max_retries

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt `attempt` (1-based), with ±20 % jitter."""
        if self.backoff == "none":
            return 0.0
        base = (
            BASE_DELAY_SECONDS * attempt
            if self.backoff == "linear"
            else BASE_DELAY_SECONDS * 2 ** (attempt - 1)
        )
        spread = (rng or random).uniform(1 - JITTER, 1 + JITTER)
        return min(MAX_DELAY_SECONDS, base * spread)
