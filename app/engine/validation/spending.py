"""Save-time checks of what a definition may spend and where its agents may send HTTP requests.

- A cap set above the operator's maximum is an error (`cap_above_maximum`) at the cap's pointer.
- An agent chooses its own URLs, so when the plan has an agent step, every tool grant that lets
  `http.request` through must say which hosts: no `hosts` is an error (`grant_hosts_required`);
  `"hosts": ["*"]` says "any host" out loud and is accepted with a warning (`grant_any_host`).
"""

from __future__ import annotations

import fnmatch
from typing import Any

from app.definitions.pointers import join
from app.engine.caps import OperatorCaps
from app.engine.grants import ANY_HOST, HTTP_REQUEST
from app.engine.validation.plan_scope import walk_document
from app.engine.validation.problems import Problem

CAP_ABOVE_MAXIMUM = "cap_above_maximum"
GRANT_HOSTS_REQUIRED = "grant_hosts_required"
GRANT_ANY_HOST = "grant_any_host"
AGENT_ACTION = "agent_task"


def cap_problems(execution: Any, operator: OperatorCaps) -> list[Problem]:
    """A `cap_above_maximum` error for each cap the document sets above the operator's maximum."""
    if not isinstance(execution, dict):
        return []
    problems = []
    for key, maximum, setting in (
        ("cost_cap_daily_usd", operator.max_daily_cost_usd, "AUTOMATIONS_MAX_DAILY_COST_CAP_USD"),
        ("max_llm_tokens", operator.max_run_tokens, "AUTOMATIONS_MAX_RUN_TOKEN_CAP"),
    ):
        value = execution.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > maximum:
            problems.append(
                Problem(
                    join("execution", key),
                    CAP_ABOVE_MAXIMUM,
                    f"{value} is above this installation's maximum of {maximum} ({setting})",
                )
            )
    return problems


def _has_agent(document: dict[str, Any]) -> bool:
    return any(located.step.get("action") == AGENT_ACTION for located in walk_document(document))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def http_grant_problems(document: dict[str, Any], *, stored: bool = False) -> list[Problem]:
    """Host problems of the tool grants that let an agent's `http.request` through.

    `stored` reads a definition saved before hosts were required: a missing `hosts` then counts as
    `["*"]` (it keeps working as it did) and is reported as the warning, never as an error.
    """
    execution = document.get("execution")
    grants = execution.get("tool_grants") if isinstance(execution, dict) else None
    if not isinstance(grants, list) or not _has_agent(document):
        return []
    problems = []
    for index, grant in enumerate(grants):
        if not isinstance(grant, dict) or not isinstance(grant.get("capability"), str):
            continue
        if not fnmatch.fnmatchcase(HTTP_REQUEST, grant["capability"]):
            continue
        hosts = grant.get("hosts")
        if hosts is None and not stored:
            problems.append(
                Problem(
                    join("execution", "tool_grants", index),
                    GRANT_HOSTS_REQUIRED,
                    "an agent may call http.request through this grant: list the hosts it may reach in "
                    '"hosts", or allow any host with "hosts": ["*"]',
                )
            )
        elif hosts is None or (isinstance(hosts, list) and ANY_HOST in hosts):
            problems.append(
                Problem(
                    join("execution", "tool_grants", index, "hosts"),
                    GRANT_ANY_HOST,
                    "an agent may send http.request to any public host through this grant",
                    "warning",
                )
            )
    return problems
