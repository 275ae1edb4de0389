"""The generator pass: ask the model for a proposal, check it, and re-prompt with the problems.

At most `max_attempts` calls per turn. A proposal that is not JSON, asks questions, or still has
errors after the last attempt is returned as it is, with its problems: nothing here decides to save.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from app.definitions.signals import StepError
from app.engine.validation import Problem, errors
from app.nl.checks import CREDENTIAL_REMOVED, without_literal_credentials
from app.nl.drafts import Clarification
from app.nl.inventory import INVENTORY_TOOL, MAX_LOOKUPS, Lookup, lookup_messages
from app.nl.metering import AuthoringBudgetExceeded, MeteredLlm
from app.nl.prompts import GENERATOR_SYSTEM, answer_echo, envelope_schema, problems_message
from app.security.credentials import scrub

MAX_ANSWER_CHARS = 256 * 1024
MAX_CLARIFICATIONS = 10
MAX_QUESTION_CHARS = 500
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)

Checker = Callable[[dict[str, Any]], Awaitable[list[Problem]]]


@dataclass
class Proposal:
    """The outcome of one generation turn."""

    definition: dict[str, Any] | None
    problems: list[Problem]
    attempts: int
    clarifications: list[Clarification] = field(default_factory=list)


@dataclass(frozen=True)
class Answer:
    """A parsed generator answer, or the problems that kept it from being one."""

    definition: dict[str, Any] | None = None
    clarifications: tuple[Clarification, ...] = ()
    problems: tuple[Problem, ...] = ()


async def generate(
    metered: MeteredLlm,
    *,
    model: str,
    context: list[dict[str, Any]],
    check: Checker,
    max_attempts: int,
    lookup: Lookup | None = None,
) -> Proposal:
    """Run generation attempts until a proposal has no errors, asks questions, or attempts run out.

    With `lookup`, the model may first ask for the space's inventory as a tool call (at most
    MAX_LOOKUPS rounds per turn, not counted as attempts). Raises AuthoringBudgetExceeded only when not
    even the first call may be made.
    """
    messages = [{"role": "system", "content": GENERATOR_SYSTEM}, *context]
    schema = envelope_schema()
    last: dict[str, Any] | None = None
    problems: list[Problem] = []
    lookups = 0
    attempt = 0
    while attempt < max_attempts:
        attempt += 1
        tools = [INVENTORY_TOOL] if lookup is not None and lookups < MAX_LOOKUPS else None
        try:
            reply = await metered.complete_json(
                model=model, purpose="generate", messages=messages, schema=schema, tools=tools
            )
        except AuthoringBudgetExceeded as exc:
            if attempt == 1:
                raise
            return Proposal(last, [*problems, Problem("", exc.code, exc.message)], attempt - 1)
        except StepError as exc:
            return Proposal(last, [*problems, Problem("", exc.code, scrub(exc.message)[0])], attempt)
        if reply.tool_calls and lookup is not None and lookups < MAX_LOOKUPS:
            lookups += 1
            attempt -= 1  # asking what the space has is not an attempt at a proposal
            messages += await lookup_messages(reply, lookup)
            continue
        answer = parse_answer(reply.content)
        problems = list(answer.problems)
        if answer.definition is not None:
            problems = _scrubbed(await check(answer.definition))
            last = without_literal_credentials(answer.definition, problems)
        if answer.clarifications:
            return Proposal(last, problems, attempt, list(answer.clarifications))
        if answer.definition is not None and not errors(problems):
            return Proposal(last, problems, attempt)
        if answer.definition is not None and all(p.code == CREDENTIAL_REMOVED for p in errors(problems)):
            # Only the user can put back what was cut before the model saw it: asking again cannot help.
            return Proposal(last, problems, attempt)
        messages += [answer_echo(reply.content or ""), problems_message(errors(problems))]
    return Proposal(last, problems, max_attempts)


def parse_answer(content: str | None) -> Answer:
    """The generator's JSON answer: an envelope {definition, clarifications}, or a bare definition."""
    if not content or not content.strip():
        return _refused("empty_answer", "the answer was empty")
    if len(content) > MAX_ANSWER_CHARS:
        return _refused(
            "answer_too_large", f"the answer was {len(content)} characters; stay under {MAX_ANSWER_CHARS}"
        )
    text = content.strip()
    fenced = _FENCE.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except (ValueError, RecursionError):
        return _refused("not_json", "the answer was not one JSON object")
    if not isinstance(value, dict):
        return _refused("not_json", "the answer was JSON but not an object")
    if "definition" not in value and "plan" in value:
        return Answer(definition=value)  # a bare definition is accepted as such
    definition = value.get("definition")
    clarifications = _clarifications(value.get("clarifications"))
    if definition is not None and not isinstance(definition, dict):
        return _refused("invalid_answer", "definition must be an object or null")
    if definition is None and not clarifications:
        return _refused("invalid_answer", "the answer held neither a definition nor questions")
    return Answer(definition=definition, clarifications=clarifications)


def _clarifications(raw: Any) -> tuple[Clarification, ...]:
    found: list[Clarification] = []
    for item in raw if isinstance(raw, list) else []:
        question = item.get("question") if isinstance(item, dict) else item
        if not isinstance(question, str) or not question.strip():
            continue
        path = item.get("path") if isinstance(item, dict) else None
        found.append(
            Clarification(
                id=f"q{len(found) + 1}",
                question=question.strip()[:MAX_QUESTION_CHARS],
                path=path if isinstance(path, str) and path.startswith("/") else None,
            )
        )
        if len(found) == MAX_CLARIFICATIONS:
            break
    return tuple(found)


def _refused(code: str, message: str) -> Answer:
    return Answer(problems=(Problem("", code, message),))


def _scrubbed(problems: list[Problem]) -> list[Problem]:
    """Problem messages may quote parts of the proposal; credential-like parts are cut before they are
    stored or sent back to the model."""
    return [Problem(p.path, p.code, scrub(p.message)[0], p.severity) for p in problems]
