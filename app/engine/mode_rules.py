"""Mode rules: an ordered list of `{capability, when, mode, approvals}` that decide a call by its arguments.

A rule names a capability (an id or a glob over ids, as a mode map's keys), an optional `when` condition
over the call's arguments in the event filter grammar (`app.engine.filters`), a mode, and for
`require_approval` how many distinct members must approve (`approvals`, default 1). Rules of one level
are tried in order and the first that matches decides; they come before that level's map of modes.

Rules are stored beside the level's map of modes, under the reserved key `$rules` of the same JSON
column, so a claim reads them with the modes in the statement it already makes.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from app.engine.filters import FilterError, check_filter, compile_filter

RULES_KEY = "$rules"
# A capability id, or a glob over ids (`crm.*`, `*`): lowercase dotted words, `*` and `?` as wildcards.
MODE_KEY_PATTERN = re.compile(r"^[a-z0-9_.*?]{1,100}$")
MAX_RULES = 100
MAX_APPROVALS = 5
RULE_FIELDS = frozenset({"capability", "when", "mode", "approvals"})
RULE_MODES = ("allow", "deny", "require_approval")
Level = Literal["automation", "space"]


@dataclass(frozen=True)
class RuleMatch:
    """The rule that decided a call: its level, its position in that level's list, and what it says."""

    level: Level
    index: int
    mode: str
    approvals: int = 1

    def ref(self) -> dict[str, Any]:
        """How records and previews name the rule."""
        return {"level": self.level, "index": self.index}


def rules_of(modes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The rule list stored in a level's mode column (empty when there is none)."""
    rules = (modes or {}).get(RULES_KEY)
    return [rule for rule in rules if isinstance(rule, dict)] if isinstance(rules, list) else []


def plain_modes(modes: Mapping[str, Any] | None) -> dict[str, str]:
    """The level's map of modes without its rules."""
    return {key: str(value) for key, value in (modes or {}).items() if key != RULES_KEY}


@lru_cache(maxsize=1024)
def _compiled(document: str) -> Any:
    # Rules are read once per claim but evaluated per call: compile each distinct condition once.
    return compile_filter(json.loads(document))


def _holds(when: Any, args: Mapping[str, Any]) -> bool:
    if when is None:
        return True
    try:
        predicate = _compiled(json.dumps(when, sort_keys=True, separators=(",", ":")))
    except FilterError:
        return False  # refused at save; a stored rule that no longer compiles matches nothing
    return bool(predicate(dict(args)))


def names(rule: Mapping[str, Any], capability_id: str) -> bool:
    return fnmatch.fnmatchcase(capability_id, str(rule.get("capability", "")))


def match_rule(
    rules: Sequence[Mapping[str, Any]], level: Level, capability_id: str, args: Mapping[str, Any] | None
) -> RuleMatch | None:
    """The first rule of a level that names the capability and whose condition holds for `args`.

    With `args` None (an agent's call, before the run), a rule with a condition cannot be decided and is
    passed over; `conditional(...)` tells a preview that the answer depends on the arguments.
    """
    for index, rule in enumerate(rules):
        if not names(rule, capability_id):
            continue
        if rule.get("when") is not None and args is None:
            continue
        if _holds(rule.get("when"), args or {}):
            mode = str(rule.get("mode"))
            approvals = int(rule.get("approvals", 1)) if mode == "require_approval" else 1
            return RuleMatch(level, index, mode, approvals)
    return None


def conditional(rules: Sequence[Mapping[str, Any]], capability_id: str) -> bool:
    """Whether a rule with a condition names the capability (its mode then depends on the arguments)."""
    return any(rule.get("when") is not None and names(rule, capability_id) for rule in rules)


def rule_problems(rules: Any) -> list[tuple[str, str]]:
    """(JSON pointer relative to the list, message) for each problem of a rule list."""
    if not isinstance(rules, list):
        return [("", "must be an array of rules")]
    if len(rules) > MAX_RULES:
        return [("", f"at most {MAX_RULES} rules")]
    problems: list[tuple[str, str]] = []
    for index, rule in enumerate(rules):
        at = f"/{index}"
        if not isinstance(rule, dict):
            problems.append((at, "must be an object with capability, mode and optionally when, approvals"))
            continue
        problems.extend((f"{at}/{key}", "unknown field") for key in sorted(set(rule) - RULE_FIELDS))
        problems.extend(_field_problems(rule, at))
    return problems


def _field_problems(rule: dict[str, Any], at: str) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    capability = rule.get("capability")
    if not isinstance(capability, str) or not MODE_KEY_PATTERN.fullmatch(capability):
        problems.append((f"{at}/capability", "must be a capability id or a pattern such as crm.*"))
    mode = rule.get("mode")
    if mode not in RULE_MODES:
        problems.append((f"{at}/mode", f"must be one of {', '.join(RULE_MODES)}"))
    if "approvals" in rule:
        approvals = rule["approvals"]
        if (
            isinstance(approvals, bool)
            or not isinstance(approvals, int)
            or not 1 <= approvals <= MAX_APPROVALS
        ):
            problems.append((f"{at}/approvals", f"must be a whole number from 1 to {MAX_APPROVALS}"))
        elif mode != "require_approval" and approvals != 1:
            problems.append((f"{at}/approvals", "only a require_approval rule asks for several approvers"))
    if "when" in rule:
        when = rule["when"]
        if not isinstance(when, dict):
            problems.append((f"{at}/when", "must be a filter document (an object)"))
        else:
            problems.extend((f"{at}/when{pointer}", message) for pointer, message in check_filter(when))
    return problems
