"""Save-time checks of a step's `{"$secret": name}` references: well formed, known, declared, bound.

A reference is an error when it is malformed, names a secret the space lacks (when its secrets are
known), or sits where the step's capability declares no secret field (`secret_not_allowed_here`: the
value would land in state, a notification or a prompt a member can read). A known secret bound to
hosts is an error when the step's literal URL goes elsewhere; one bound to no host is a warning, since
it may then be sent to any public host, and the warning names the host to bind it to when the step's
URL shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.definitions.pointers import join
from app.engine.secret_refs import REFERENCE_KEY, looks_like_reference, reference_problem
from app.engine.validation.problems import Problem
from app.registry import NO_SECRET_FIELDS, ActionDefinition, Actions, Capabilities, SecretFields
from app.security.egress.carried import host_allowed

Where = tuple[str | int, ...]


@dataclass(frozen=True)
class SecretTarget:
    """Where a step's references may sit: below `prefix` of its config, at the fields of `fields`, which
    receive `args`. `fields` None: the step's action is unknown, so placement is not judged."""

    fields: SecretFields | None
    prefix: Where = ()
    args: Any = None


def secret_target(
    action: ActionDefinition | None, config: Any, capabilities: Capabilities, naming_actions: frozenset[str]
) -> SecretTarget:
    """The target of a step: the capability `call_tool` names (its `args`), else the action's own."""
    if action is None:
        return SecretTarget(None)
    if action.type in naming_actions and isinstance(config, dict):
        capability_id = config.get("capability")
        capability = capabilities.get(capability_id) if isinstance(capability_id, str) else None
        fields = NO_SECRET_FIELDS if capability is None else capability.secret_fields
        return SecretTarget(fields, ("args",), config.get("args"))
    return SecretTarget(action.secret_fields, (), config)


def secret_reference_problems(
    config: Any,
    base: Where,
    target: SecretTarget,
    secret_names: frozenset[str] | None,
    secret_hosts: Mapping[str, tuple[str, ...]] | None,
) -> list[Problem]:
    """Every problem of the references in a step's config (`base` is the config's location)."""
    problems: list[Problem] = []
    destination = _literal_destination(target)
    stack: list[tuple[Where, Any]] = [(base, config)]
    while stack:
        where, node = stack.pop()
        if looks_like_reference(node):
            problems += _reference(
                node, where, where[len(base) :], target, destination, secret_names, secret_hosts
            )
            continue
        if isinstance(node, dict):
            stack.extend(((*where, key), child) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend(((*where, index), child) for index, child in enumerate(node))
    return sorted(problems, key=lambda problem: problem.path)


def _reference(
    node: Mapping[str, Any],
    where: Where,
    relative: Where,
    target: SecretTarget,
    destination: str | None,
    secret_names: frozenset[str] | None,
    secret_hosts: Mapping[str, tuple[str, ...]] | None,
) -> list[Problem]:
    pointer = join(*where)
    message = reference_problem(node)
    if message is not None:
        return [Problem(pointer, "invalid_secret_reference", message)]
    name = node[REFERENCE_KEY]
    if not _declared(target, relative):
        message = "no secret is sent from here: a secret goes only in a field its capability sends to a host"
        return [
            Problem(pointer, "secret_not_allowed_here", f"{message} (an HTTP header, query or body, a token)")
        ]
    if secret_names is not None and name not in secret_names:
        message = f"this space has no secret named {name!r} (store it with PUT …/secrets/{name})"
        return [Problem(pointer, "unknown_secret", message)]
    if secret_hosts is None or name not in secret_hosts:
        return []
    hosts = secret_hosts[name]
    if not hosts:
        suggestion = f"; bind it to {destination} with PUT …/secrets/{name}/hosts" if destination else ""
        message = f"the secret {name!r} is bound to no host: it may be sent to any public host{suggestion}"
        return [Problem(pointer, "secret_unbound", message, "warning")]
    if destination is not None and not host_allowed(destination, hosts):
        message = f"the secret {name!r} may only be sent to {', '.join(hosts)}, not {destination}"
        return [Problem(pointer, "secret_host_refused", message)]
    return []


def _declared(target: SecretTarget, relative: Where) -> bool:
    if target.fields is None:
        return True
    prefix = target.prefix
    return relative[: len(prefix)] == prefix and target.fields.allows(relative[len(prefix) :])


def _literal_destination(target: SecretTarget) -> str | None:
    """The host the step sends to, when its config spells it without a template."""
    if target.fields is None or not isinstance(target.args, dict):
        return None
    try:
        host = target.fields.destination(target.args)
    except (TypeError, ValueError, KeyError):
        return None
    # A host that a template writes is known only at call time, where the rule checks it.
    return host if host and "{" not in host and "%7b" not in host.lower() else None


def first_destination(definition: Any, name: str, actions: Actions, capabilities: Capabilities) -> str | None:
    """The host the first step of `definition` that sends the secret `name` sends it to, when its
    config spells the host without a template: the binding to suggest for an unbound secret."""
    stack: list[Any] = [definition]
    while stack:
        node = stack.pop(0)
        if isinstance(node, dict):
            if isinstance(node.get("action"), str) and isinstance(node.get("config"), dict):
                action = actions.get(node["action"])
                if action is not None and _sends(node["config"], name):
                    target = secret_target(action, node["config"], capabilities, CALL_TOOL)
                    host = _literal_destination(target)
                    if host is not None:
                        return host
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


# The actions that name the capability they call in their config (as the validator's own list).
CALL_TOOL = frozenset({"call_tool"})


def _sends(config: Any, name: str) -> bool:
    if looks_like_reference(config):
        return bool(config.get(REFERENCE_KEY) == name)
    if isinstance(config, dict):
        return any(_sends(child, name) for child in config.values())
    if isinstance(config, list):
        return any(_sends(child, name) for child in config)
    return False
