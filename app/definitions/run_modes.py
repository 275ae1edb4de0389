"""How a run treats side effects: live, dry run or verify; and whether it calls models.

- `live`: every call is made.
- `dry_run`: reads run for real; every write is suppressed (recorded, not sent).
- `verify`: reads and internal writes (the automation's own key/value state) run for real; external
  writes (HTTP other than GET/HEAD, mail, Slack, tools of other tiers that write) are suppressed.

`llm = "skip"` suppresses model calls too, in a dry or verify run (a live run always calls its models).
"""

from __future__ import annotations

from typing import Literal

RunMode = Literal["live", "dry_run", "verify"]
LlmMode = Literal["run", "skip"]
RUN_MODES: tuple[RunMode, ...] = ("live", "dry_run", "verify")
LLM_MODES: tuple[LlmMode, ...] = ("run", "skip")
Effect = Literal["read", "internal_write", "external_write"]


def suppresses(mode: str, effect: Effect, *, metered: bool = False, llm: str = "run") -> bool:
    """Whether a call with this effect is held back in a run of this mode.

    A metered call (a model turn) spends money but changes nothing outside: it runs unless the run
    said `llm: skip`.
    """
    if mode == "live":
        return False
    if metered:
        return llm == "skip"
    if mode == "dry_run":
        return effect != "read"
    return effect == "external_write"


def as_run_mode(stored: str) -> RunMode:
    """A stored mode as the type (the runs table's CHECK constraint admits nothing else)."""
    if stored == "dry_run":
        return "dry_run"
    if stored == "verify":
        return "verify"
    return "live"


def as_llm_mode(stored: str) -> LlmMode:
    return "skip" if stored == "skip" else "run"
