"""Preview: what a definition would do with these inputs, decided without executing anything.

For each step: its `when` where it reads only inputs, trigger and run (else the names it waits for), its
rendered config on the same condition, and the capability calls it would make with the mode each would
get now (`app.engine.call_modes`: the pipeline's cascade and the grants). Across the plan: the external
hosts it would contact, and the next fire times of each schedule. Templates render in the sandbox like a
run's; nothing is called.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from app.definitions.automation import AutomationDefinition, ForEachStep, Step
from app.definitions.plan_tree import walk
from app.definitions.pointers import join
from app.definitions.run_modes import suppresses
from app.engine.call_modes import CallPolicy, ChosenBy, call_mode
from app.engine.preview_blocks import block_entry
from app.engine.schedule import ScheduleError, next_fire_after
from app.engine.secret_refs import bind_references
from app.engine.templating import TemplateError, aevaluate_predicate, arender_value, referenced_names
from app.registry import Actions, Capabilities, Capability

KNOWN_BEFORE_RUN = frozenset({"inputs", "trigger", "run"})
NEXT_FIRES = 5
SAMPLE_WINDOW = timedelta(days=7)
MAX_SAMPLED_FIRES = 2000
AGENT_ACTIONS = frozenset({"agent_task"})


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _names(value: Any) -> set[str]:
    found: set[str] = set()
    for text in _strings(value):
        found |= referenced_names(text)
    return found


def _host(url: Any) -> str | None:
    if not isinstance(url, str) or "{" in url.split("/")[2 if "//" in url else 0]:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:  # not a URL (an unclosed IPv6 bracket): the call fails when it runs
        return None


def _call(
    capability: Capability,
    chosen_by: ChosenBy,
    args: Mapping[str, Any],
    policy: CallPolicy,
    *,
    rendered: bool,
    step_id: str,
) -> dict[str, Any]:
    """One call as the preview shows it; `rendered` says whether `args` are final (grants need them)."""
    effect = capability.effect_of(dict(args))
    return {
        "capability": capability.id,
        "chosen_by": chosen_by,
        "risk": capability.risk_of(dict(args)),
        "held_back_in": [
            mode for mode in ("dry_run", "verify") if suppresses(mode, effect, metered=capability.metered)
        ],
        "tier": capability.tier,
        "destructive": capability.destructive,
        "drifted": capability.drifted,
        **call_mode(capability, chosen_by, args if rendered else None, policy, step_id=step_id),
    }


def _agent_tools(config: Mapping[str, Any], capabilities: Capabilities) -> list[Capability]:
    tools = config.get("tools")
    patterns = [p for p in tools if isinstance(p, str) and "{" not in p] if isinstance(tools, list) else []
    return [c for c in capabilities if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]


async def _step(
    phase: str,
    index: int,
    step: Step,
    scope: Mapping[str, Any],
    actions: Actions,
    capabilities: Capabilities,
    hosts: set[str],
    fixed_hosts: Mapping[str, str],
    policy: CallPolicy,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"phase": phase, "index": index, "step_id": step.step_id, "action": step.action}
    if step.when is None:
        entry["when"] = {"decided": True, "value": True}
    else:
        waits = sorted(referenced_names(step.when, predicate=True) - KNOWN_BEFORE_RUN)
        if waits:
            entry["when"] = {"decided": False, "waits_for": waits}
        else:
            try:
                entry["when"] = {"decided": True, "value": await aevaluate_predicate(step.when, scope)}
            except TemplateError as exc:
                entry["when"] = {"decided": False, "error": {"code": exc.code, "message": exc.message}}
    waits = sorted(_names(step.config) - KNOWN_BEFORE_RUN)
    config: Mapping[str, Any] = step.config
    if waits:
        entry["config"], entry["waits_for"] = None, waits
    else:
        try:
            config = bind_references(step.config, await arender_value(step.config, scope))
            entry["config"], entry["waits_for"] = config, []
        except TemplateError as exc:
            entry["config"], entry["waits_for"] = None, []
            entry["error"] = {"code": exc.code, "message": exc.message}
    action = actions.get(step.action)
    calls: list[dict[str, Any]] = []
    if action is not None:
        for capability_id in action.uses_capabilities:
            capability = capabilities.get(capability_id)
            if capability is None:
                continue
            calls.append(
                _call(
                    capability,
                    "definition",
                    config,
                    policy,
                    rendered=entry["config"] is not None,
                    step_id=step.step_id,
                )
            )
            host = (
                _host(config.get("url"))
                if capability_id == "http.request"
                else fixed_hosts.get(capability_id)
            )
            if host:
                hosts.add(host)
        if action.type in AGENT_ACTIONS:
            calls += [
                _call(tool, "agent", {}, policy, rendered=False, step_id=step.step_id)
                for tool in _agent_tools(step.config, capabilities)
            ]
    entry["calls"] = calls
    return entry


async def preview_steps(
    definition: AutomationDefinition,
    scope: Mapping[str, Any],
    actions: Actions,
    capabilities: Capabilities,
    fixed_hosts: Mapping[str, str],
    policy: CallPolicy,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every step's preview (the plan at every depth, then on_failure), and the hosts it would contact.

    A step inside a block is previewed like any other (its calls' modes too, in every branch); its
    entry names its `pointer` in the document, the `loops` around it and the `branches` it sits in.
    `fixed_hosts` names the host behind a capability whose target does not depend on its arguments
    (Slack's API, the SMTP relay).
    """
    hosts: set[str] = set()
    found = []
    for phase, steps, where in (
        ("plan", definition.plan, ("plan",)),
        ("on_failure", definition.execution.on_failure, ("execution", "on_failure")),
    ):
        loops: dict[str, dict[str, Any]] = {}
        for located in walk(steps, where):
            step, index = located.step, int(located.where[-1])
            if isinstance(step, Step):
                entry = await _step(
                    phase, index, step, scope, actions, capabilities, hosts, fixed_hosts, policy
                )
            else:
                entry = await block_entry(phase, index, step, scope)
                if isinstance(step, ForEachStep):
                    loops[step.step_id] = entry["items"]
            entry["pointer"] = join(*located.where)
            entry["loops"] = [{"step_id": loop, **loops.get(loop, {})} for loop in located.loops]
            entry["branches"] = [list(branch) for branch in located.branches]
            found.append(entry)
    return found, sorted(hosts)


def next_fires(cron: str, timezone: str, now: datetime, count: int = NEXT_FIRES) -> list[str]:
    """The next `count` fire times of a schedule, ISO 8601 in UTC (none for a schedule that cannot fire)."""
    fires: list[str] = []
    moment = now
    try:
        for _ in range(count):
            moment = next_fire_after(cron, timezone, moment)
            fires.append(moment.isoformat())
    except ScheduleError:
        return fires
    return fires


def fires_per_month(cron: str, timezone: str, now: datetime) -> float | None:
    """Fires in 30 days, from the next week's (extrapolated for schedules firing very often)."""
    end, moment, count = now + SAMPLE_WINDOW, now, 0
    try:
        while count < MAX_SAMPLED_FIRES:
            moment = next_fire_after(cron, timezone, moment)
            if moment > end:
                return count * 30 / 7
            count += 1
    except ScheduleError:
        return None
    return count * (SAMPLE_WINDOW / (moment - now)) * 30 / 7
