"""The permission cascade: which mode (`allow`, `deny`, `require_approval`) one capability call resolves to.

Pure and side-effect free, so the pipeline's rules, authoring and a preview all give the same answer:

1. the automation's override (`automations.action_modes`): its rules over the call's arguments first
   (`app.engine.mode_rules`, first match wins), then its map of modes,
2. the space default (`spaces.action_modes`): its rules, then its map,
3. the inferred default: a call the definition names (a tight step, `call_tool`) is `allow` because a
   human saved it; a call an agent chose is `allow` for `read` capabilities and for internal writes (the
   automation's own key/value state, which touches nothing outside it), and `require_approval` for other
   `write` ones. `execution.write_policy: always_draft` turns an inferred `allow` of a write into
   `require_approval` (`mode_source: write_policy`).

Inside one level an exact id beats a pattern and a longer pattern beats a shorter one. Finally the drift
guard: a drifted capability never runs on a plain `allow` (it becomes `require_approval`), and drift
never relaxes `deny` or `require_approval`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from app.engine.mode_rules import (
    MODE_KEY_PATTERN,
    RULES_KEY,
    Level,
    RuleMatch,
    match_rule,
    rules_of,
)

if TYPE_CHECKING:
    # Only named in annotations: the client commands that check mode maps (`automations apply`) start
    # without loading the whole capability registry.
    from app.registry import Capability

Mode = Literal["allow", "deny", "require_approval"]
ModeSource = Literal[
    "automation_rule",
    "automation_override",
    "space_rule",
    "space_default",
    "inferred_default",
    "write_policy",
    "approval_grant",
    "drift_guard",
]
ChosenBy = Literal["definition", "agent"]
WritePolicy = Literal["always_draft", "auto_confirm_safe"]

MODES: tuple[str, ...] = get_args(Mode)
MAX_MODE_ENTRIES = 500


@dataclass(frozen=True)
class ModeDecision:
    """The mode one call resolves to, and which level of the cascade decided it."""

    mode: Mode
    source: ModeSource
    matched: str | None = None
    """The override key that decided (an id or a pattern); None for an inferred mode."""
    rule: RuleMatch | None = None
    """The mode rule that decided (its level and index), when one did."""

    @property
    def approvals(self) -> int:
        """How many distinct members must approve the call (a rule may ask for more than one)."""
        return self.rule.approvals if self.rule is not None and self.mode == "require_approval" else 1


def is_pattern(key: str) -> bool:
    return any(char in key for char in "*?[")


def match_mode(modes: Mapping[str, Any], capability_id: str) -> tuple[str, str] | None:
    """(key, mode) of the entry that governs `capability_id` in one level, or None.

    An exact id wins; otherwise the longest matching pattern (ties: the alphabetically first, so the
    answer never depends on the order a JSON object was stored in).
    """
    exact = modes.get(capability_id) if capability_id != RULES_KEY else None
    if isinstance(exact, str):
        return capability_id, exact
    candidates = [
        key
        for key in modes
        if key != RULES_KEY and is_pattern(key) and fnmatch.fnmatchcase(capability_id, key)
    ]
    if not candidates:
        return None
    best = min(candidates, key=lambda key: (-len(key), key))
    return best, str(modes[best])


def inferred_mode(capability: Capability, chosen_by: ChosenBy) -> Mode:
    """The default mode of a call when no override applies (before the write policy)."""
    if chosen_by == "definition" or capability.risk == "read" or capability.internal:
        return "allow"
    return "require_approval"


def resolve_mode(
    capability: Capability,
    chosen_by: ChosenBy,
    *,
    automation_modes: Mapping[str, Any] | None = None,
    space_modes: Mapping[str, Any] | None = None,
    write_policy: WritePolicy = "auto_confirm_safe",
    args: Mapping[str, Any] | None = None,
) -> ModeDecision:
    """The cascade for one call, drift guard included: what the pipeline enforces and a preview shows.

    `args` are the call's arguments, which rules with a condition read (None: not known yet, such rules
    are passed over)."""
    return drift_guarded(
        capability,
        cascade(
            capability,
            chosen_by,
            automation_modes=automation_modes,
            space_modes=space_modes,
            write_policy=write_policy,
            args=args,
        ),
    )


def cascade(
    capability: Capability,
    chosen_by: ChosenBy,
    *,
    automation_modes: Mapping[str, Any] | None = None,
    space_modes: Mapping[str, Any] | None = None,
    write_policy: WritePolicy = "auto_confirm_safe",
    args: Mapping[str, Any] | None = None,
) -> ModeDecision:
    """Rules and overrides of each level, inference and write policy (without the drift guard)."""
    levels: tuple[tuple[Mapping[str, Any] | None, Level, ModeSource, ModeSource], ...] = (
        (automation_modes, "automation", "automation_rule", "automation_override"),
        (space_modes, "space", "space_rule", "space_default"),
    )
    for modes, level, rule_source, source in levels:
        rule = match_rule(rules_of(modes), level, capability.id, args)
        if rule is not None and rule.mode in MODES:
            return ModeDecision(rule.mode, rule_source, capability.id, rule)  # type: ignore[arg-type]
        found = match_mode(modes or {}, capability.id)
        if found is not None and found[1] in MODES:
            return ModeDecision(found[1], source, found[0])  # type: ignore[arg-type]
    mode = inferred_mode(capability, chosen_by)
    external_write = capability.risk == "write" and not capability.internal
    if mode == "allow" and external_write and write_policy == "always_draft":
        return ModeDecision("require_approval", "write_policy")
    return ModeDecision(mode, "inferred_default")


def drift_guarded(capability: Capability, decision: ModeDecision) -> ModeDecision:
    """A drifted capability's `allow` becomes `require_approval`; other modes stay as they are."""
    if capability.drifted and decision.mode == "allow":
        return ModeDecision("require_approval", "drift_guard", decision.matched, decision.rule)
    return decision


def mode_problems(modes: Mapping[str, object]) -> list[tuple[str, str]]:
    """(key, message) for each entry a mode map must not hold: a bad key or a value that is no mode."""
    problems: list[tuple[str, str]] = []
    if len(modes) > MAX_MODE_ENTRIES:
        problems.append(("", f"at most {MAX_MODE_ENTRIES} entries"))
    for key, value in modes.items():
        if not MODE_KEY_PATTERN.fullmatch(key):
            problems.append((key, "must be a capability id or a pattern such as crm.* (lowercase, . * ?)"))
        elif value not in MODES:
            problems.append((key, f"must be one of {', '.join(MODES)}"))
    return problems
