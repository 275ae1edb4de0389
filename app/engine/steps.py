"""Retry timing: whether a failed attempt may be followed by another, and how long to wait first."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

Backoff = Literal["none", "linear", "exponential"]

BASE_DELAY_SECONDS = 2.0
# The plan may never be left with less than this share of the run's time.
MAX_RESERVE_SHARE = 0.5
MAX_DELAY_SECONDS = 3600.0
JITTER = 0.2


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


def on_failure_reserve(timeout_seconds: float, fraction: float, min_seconds: float) -> float:
    """Seconds of a run's time kept back for its on_failure steps, so a plan that runs out of time
    still leaves them room: `fraction` of the timeout, at least `min_seconds`, at most half of it."""
    wanted = max(fraction * timeout_seconds, min_seconds)
    return min(wanted, MAX_RESERVE_SHARE * timeout_seconds)
