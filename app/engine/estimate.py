"""What a run's model calls could cost before it has any history: the first-run estimate.

Each LLM step is priced at its worst case with the deployment's prices (a `Pricer`):

- `llm_complete`: one call, its prompt (system + messages) plus its whole `max_tokens` of output.
- `agent_task`: `max_iterations` turns. The prompt P is the system prompt, the output schema, the
  step's prompt and the JSON schemas of the tools it is offered; turn i (1-based) sends P plus what
  the earlier turns added, approximated as one `max_tokens` (M) of output, tool call and tool result
  per turn, and may answer M tokens:

      input_i = P + (i - 1) * M        output_i = M        cost = sum over i of price(input_i, output_i)

Prompt tokens are approximated as characters / 4 (rounded up), which needs no tokenizer and no model.
A prompt is measured rendered where the caller rendered it (a preview knows its inputs), else as its
template. A templated model name cannot be priced, nor a model without a known price: such steps are
left out, and a definition with no priced step has no estimate (None).

Blocks: an `if` costs its dearer branch; a `for_each` costs its body once per item (the literal list's
length, else its `max_items`), so a loop's worst case is items times body.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from app.definitions.automation import AutomationDefinition, ForEachStep, IfStep, Step
from app.definitions.plan_tree import action_steps
from app.registry import Capability
from app.registry.builtin_agent import DEFAULT_MAX_ITERATIONS, SYSTEM_PROMPT
from app.registry.builtin_llm import DEFAULT_MAX_TOKENS

# (model, prompt tokens, max output tokens) -> worst-case USD of one call; None when unpriced.
Pricer = Callable[[str, int, int], float | None]
LLM_ACTIONS = ("agent_task", "llm_complete")
CHARS_PER_TOKEN = 4


def calls_a_model(definition: AutomationDefinition) -> bool:
    """Whether a step of the plan (or of on_failure) is an LLM step: only those can spend."""
    return any(step.action in LLM_ACTIONS for step in action_steps(definition))


def approximate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _tool_schemas(patterns: Any, capabilities: Iterable[Capability]) -> str:
    """The tool specs an agent with these `tools` patterns is offered, as the provider receives them."""
    if not isinstance(patterns, list):
        return ""
    chosen = [
        {"name": cap.id, "description": cap.description[:1024], "parameters": cap.input_schema}
        for cap in capabilities
        if any(isinstance(p, str) and fnmatch.fnmatchcase(cap.id, p) for p in patterns)
    ]
    return json.dumps(chosen) if chosen else ""


def _prompt_chars(step: Step, config: Mapping[str, Any], capabilities: Iterable[Capability]) -> int:
    schema = config.get("output_schema")
    parts = [_text(schema)] if schema is not None else []
    if step.action == "agent_task":
        parts += [
            SYSTEM_PROMPT,
            _text(config.get("prompt", "")),
            _tool_schemas(config.get("tools"), capabilities),
        ]
    else:
        parts += [_text(config.get("system", "")), _text(config.get("messages", ""))]
    return sum(len(part) for part in parts)


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def step_estimate(
    step: Step,
    pricer: Pricer,
    capabilities: Iterable[Capability],
    rendered: Mapping[str, Any] | None = None,
) -> float | None:
    """The worst-case cost of one LLM step (see the module's formula); None when it cannot be priced."""
    model = step.config.get("model")
    if step.action not in LLM_ACTIONS or not isinstance(model, str) or "{" in model:
        return None
    config = rendered if rendered is not None else step.config
    prompt = math.ceil(_prompt_chars(step, config, capabilities) / CHARS_PER_TOKEN)
    output = _whole(step.config.get("max_tokens"), DEFAULT_MAX_TOKENS)
    turns = (
        _whole(step.config.get("max_iterations"), DEFAULT_MAX_ITERATIONS)
        if step.action == "agent_task"
        else 1
    )
    total = 0.0
    for turn in range(turns):
        price = pricer(model, prompt + turn * output, output)
        if price is None:
            return None
        total += price
    return total


def first_run_estimate(
    definition: AutomationDefinition,
    pricer: Pricer | None,
    capabilities: Iterable[Capability] = (),
    rendered: Mapping[str, Mapping[str, Any]] | None = None,
) -> float | None:
    """With no history: the sum of the LLM steps' worst cases; `rendered` maps step ids to the config
    as rendered (known prompts), `capabilities` are those the agents' `tools` patterns choose from."""
    if pricer is None:
        return None
    offered = list(capabilities)
    chosen = rendered or {}
    plan_cost, plan_priced = _list_cost(definition.plan, pricer, offered, chosen)
    handler_cost, handler_priced = _list_cost(definition.execution.on_failure, pricer, offered, chosen)
    return plan_cost + handler_cost if plan_priced or handler_priced else None


def _list_cost(
    steps: Sequence[Step | IfStep | ForEachStep],
    pricer: Pricer,
    offered: list[Capability],
    rendered: Mapping[str, Mapping[str, Any]],
) -> tuple[float, bool]:
    """A step list's worst case: its steps' sum, the dearer branch of an `if`, a loop's body times its
    items (the literal list's length, else `max_items`)."""
    total, priced = 0.0, False
    for step in steps:
        if isinstance(step, IfStep):
            branches = [_list_cost(step.if_.then, pricer, offered, rendered)]
            branches.append(_list_cost(step.if_.else_, pricer, offered, rendered))
            cost, known = max(cost for cost, _ in branches), any(known for _, known in branches)
        elif isinstance(step, ForEachStep):
            block = step.for_each
            count = len(block.items) if isinstance(block.items, list) else block.max_items
            body, known = _list_cost(block.steps, pricer, offered, rendered)
            cost = body * count
        else:
            found = step_estimate(step, pricer, offered, rendered.get(step.step_id))
            cost, known = found or 0.0, found is not None
        if known:
            total, priced = total + cost, True
    return total, priced
