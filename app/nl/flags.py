"""Flags computed without any model: always present when they apply, whatever the review says."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.definitions.pointers import join
from app.definitions.signals import StepError
from app.engine.schedule import ScheduleError, next_fire_after
from app.engine.validation import Problem, Vocabulary
from app.engine.validation.templates import is_template
from app.nl.drafts import CostEstimate, Flag
from app.nl.heuristics import heuristic_flags
from app.nl.permissions import ModeResolver, inferred_mode
from app.nl.usage import AGENT_ACTIONS, capability_uses, matching, steps, tool_patterns
from app.registry.llm_ports import LlmPort

LLM_ACTIONS = frozenset({"agent_task", "llm_complete"})
# Defaults of the LLM actions when a step leaves them out (see app/registry/builtin_agent.py).
DEFAULT_ITERATIONS = 10
# Tool descriptions and the system prompt ride along with every agent turn.
PROMPT_OVERHEAD_TOKENS = 600
CHARS_PER_TOKEN = 4
SAMPLE_WEEK = timedelta(days=7)
MAX_SAMPLED_FIRES = 2000
# A fixed week keeps the estimate the same whenever a draft is checked.
_REFERENCE = datetime(2026, 1, 5, tzinfo=UTC)
_PROMPT_FIELDS = ("prompt", "system", "instructions")
# Wording that addresses a model rather than describing a task.
_INSTRUCTION_LIKE = re.compile(
    r"(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+|the\s+|your\s+|previous\s+|prior\s+|above\s+)*"
    r"(instructions?|rules?|prompts?|guidelines|polic(y|ies)|restrictions?)"
    r"|you\s+are\s+now\b|system\s+prompt|jailbreak|developer\s+mode|do\s+not\s+(tell|inform)\s+the\s+user",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class FlagContext:
    """What the rules need besides the definition."""

    vocabulary: Vocabulary
    used_capabilities: frozenset[str]
    llm: LlmPort
    default_max_tokens: int
    mode_of: ModeResolver = inferred_mode


def rule_flags(
    document: dict[str, Any], warnings: Iterable[Problem], context: FlagContext
) -> tuple[list[Flag], CostEstimate | None]:
    """Every rule-based flag of a valid definition in a stable order, and its cost estimate."""
    found = [Flag(path=w.path, code=w.code, message=w.message) for w in warnings]
    found += _capability_flags(document, context)
    found += _broad_tools(document, context)
    found += _instruction_like(document)
    found += heuristic_flags(document)
    estimate = estimate_cost(document, context)
    if estimate is not None:
        found.append(Flag(path="/plan", code="cost_estimate", message=describe(estimate)))
    return found, estimate


def _capability_flags(document: dict[str, Any], context: FlagContext) -> list[Flag]:
    found: list[Flag] = []
    seen_new: set[str] = set()
    for use in capability_uses(document, context.vocabulary):
        capability = use.capability
        if capability.id not in context.used_capabilities and capability.id not in seen_new:
            seen_new.add(capability.id)
            found.append(
                Flag(
                    path=use.path,
                    code="new_capability",
                    message=f"this space has not used {capability.id} before",
                )
            )
        if capability.risk == "write":
            who = "an agent may call" if use.chosen_by == "agent" else "this step calls"
            found.append(
                Flag(
                    path=use.path,
                    code="external_write",
                    message=f"{who} {capability.id}, which changes something outside this automation",
                )
            )
        mode = context.mode_of(capability, use.chosen_by)
        chooser = "chosen by the agent" if use.chosen_by == "agent" else "made by this step"
        if mode == "require_approval":
            found.append(
                Flag(
                    path=use.path,
                    code="requires_approval",
                    message=f"calls to {capability.id} {chooser} will wait for a human's approval",
                )
            )
        elif mode == "deny":
            found.append(
                Flag(
                    path=use.path,
                    code="denied",
                    message=f"calls to {capability.id} {chooser} are denied in this space",
                )
            )
    return found


def _broad_tools(document: dict[str, Any], context: FlagContext) -> list[Flag]:
    found: list[Flag] = []
    for path, step in steps(document):
        if step.get("action") not in AGENT_ACTIONS:
            continue
        for index, pattern in tool_patterns(step):
            if any(char in pattern for char in "*?["):
                count = len(matching(pattern, context.vocabulary))
                found.append(
                    Flag(
                        path=join(*path, "config", "tools", index),
                        code="broad_tools",
                        message=f"{pattern!r} lets the agent choose among {count} tool(s);"
                        " name only the ones it needs",
                    )
                )
    return found


def _instruction_like(document: dict[str, Any]) -> list[Flag]:
    found: list[Flag] = []
    for path, step in steps(document):
        config = step.get("config")
        for name in _PROMPT_FIELDS:
            text = config.get(name) if isinstance(config, dict) else None
            if isinstance(text, str) and _INSTRUCTION_LIKE.search(text):
                found.append(
                    Flag(
                        path=join(*path, "config", name),
                        code="instruction_like_prompt",
                        message="this text reads like an instruction to ignore or override rules;"
                        " check who wrote it",
                    )
                )
    return found


def estimate_cost(document: dict[str, Any], context: FlagContext) -> CostEstimate | None:
    """Worst-case spend of the LLM steps per run (prices x output caps x turns), and per month from the
    schedule when there is one; None when no step calls a model."""
    per_run = 0.0
    llm_steps = 0
    for _, step in steps(document):
        config = step.get("config")
        if step.get("action") not in LLM_ACTIONS or not isinstance(config, dict):
            continue
        model = config.get("model")
        if not isinstance(model, str) or is_template(model):
            continue
        llm_steps += 1
        prompt = str(config.get("prompt", "")) + str(config.get("system", ""))
        tokens = PROMPT_OVERHEAD_TOKENS + len(prompt) // CHARS_PER_TOKEN
        max_tokens = config.get("max_tokens", context.default_max_tokens)
        turns = config.get("max_iterations", DEFAULT_ITERATIONS) if step.get("action") in AGENT_ACTIONS else 1
        try:
            per_run += context.llm.worst_case_cost(model, tokens, int(max_tokens)) * int(turns)
        except (StepError, TypeError, ValueError):
            continue  # a model without prices: its steps cannot be estimated, the validator says why
    if llm_steps == 0:
        return None
    monthly = runs_per_month(document)
    return CostEstimate(
        per_run_usd=round(per_run, 6),
        runs_per_month=monthly,
        per_month_usd=None if monthly is None else round(per_run * monthly, 4),
    )


def runs_per_month(document: dict[str, Any]) -> int | None:
    """Fires in 30 days by the schedule triggers; None when another kind of trigger decides."""
    triggers = document.get("triggers")
    schedules = [t for t in triggers if isinstance(t, dict)] if isinstance(triggers, list) else []
    if not schedules or any(t.get("type") != "schedule" for t in schedules):
        return None
    total = 0.0
    for trigger in schedules:
        config = trigger.get("config", {})
        fires = _fires_per_week(config.get("cron"), config.get("timezone", "UTC"))
        if fires is None:
            return None
        total += fires * 30 / 7
    return round(total)


def _fires_per_week(cron: Any, timezone: Any) -> float | None:
    if not isinstance(cron, str) or not isinstance(timezone, str):
        return None
    end = _REFERENCE + SAMPLE_WEEK
    moment, count = _REFERENCE, 0
    try:
        while count < MAX_SAMPLED_FIRES:
            moment = next_fire_after(cron, timezone, moment)
            if moment > end:
                return float(count)
            count += 1
    except ScheduleError:
        return None
    # Frequent schedules: extrapolate from the part of the week sampled.
    return count * SAMPLE_WEEK / (moment - _REFERENCE)


def describe(estimate: CostEstimate) -> str:
    text = f"LLM steps cost at most about ${estimate.per_run_usd:.4f} per run"
    if estimate.per_month_usd is not None:
        text += f", about ${estimate.per_month_usd:.2f} per month at {estimate.runs_per_month} runs"
    else:
        text += "; per month depends on how often its triggers fire"
    return text
