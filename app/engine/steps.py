"""Retry timing: whether a failed attempt may be followed by another, and how long to wait first."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

Backoff = Literal["none", "linear", "exponential"]

BASE_DELAY_SECONDS = 2.0
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
