"""The write policy a draft proposes: writes the model chose are drafts for a person until switched.

Everything in a generated plan was chosen by a model (in a change to a saved automation, whatever
the change adds), so a proposal whose steps (or agents' tools) may
write outside the service is proposed with `execution.write_policy: always_draft`: each such write then
waits for a person's approval (`mode_source: write_policy`). Reads and the automation's own key/value
state are not writes outside. A person may switch the policy before saving; a new proposal keeps what
they chose.
"""

from __future__ import annotations

from typing import Any, Literal

from app.definitions.pointers import join
from app.engine.validation import Vocabulary
from app.nl.drafts import Draft, WritePolicyNote
from app.nl.usage import capability_uses, steps

WritePolicy = Literal["always_draft", "auto_confirm_safe"]
PROPOSED = (
    "This automation writes outside the service ({where}), and a model chose those writes, so it is "
    "proposed with write policy always_draft: each such write waits for a person's approval. Switch it to "
    "auto_confirm_safe before saving to let them run without asking."
)
CHOSEN = {
    "always_draft": "You chose write policy always_draft: each write outside the service waits for approval.",
    "auto_confirm_safe": (
        "You chose write policy auto_confirm_safe: writes the saved definition names run without asking; "
        "writes an agent chooses still ask."
    ),
}
MAX_POINTERS = 5


def model_writes(document: Any, vocabulary: Vocabulary, base: Any = None) -> list[str]:
    """Pointers to the steps and agent tools of the proposal that may write outside the service; for a
    change to a saved automation (`base`), only those a person had not already saved."""
    if not isinstance(document, dict):
        return []
    saved = set(_writes(base, vocabulary)) if base is not None else set()
    return [
        path for path, capability_id in _writes(document, vocabulary) if (path, capability_id) not in saved
    ]


def _writes(document: Any, vocabulary: Vocabulary) -> list[tuple[str, str]]:
    if not isinstance(document, dict):
        return []
    configs = {join(*path): step.get("config") for path, step in steps(document)}
    found: list[tuple[str, str]] = []
    for use in capability_uses(document, vocabulary):
        capability = use.capability
        risk = capability.risk
        config = configs.get(use.path)
        if use.chosen_by == "definition" and capability.call_risk is not None and isinstance(config, dict):
            # A tight step's literal arguments tell a read from a write (an HTTP GET reads).
            try:
                risk = capability.risk_of(config)
            except Exception:
                risk = "write"
        if risk == "write" and not capability.internal and (use.path, capability.id) not in found:
            found.append((use.path, capability.id))
    return found


def settle_write_policy(draft: Draft, vocabulary: Vocabulary) -> None:
    """Put the policy in force into the valid proposal and say why (a person's choice wins)."""
    definition = draft.definition
    if definition is None:
        return
    writes = model_writes(definition, vocabulary, draft.base_definition)
    chosen = draft.write_policy if draft.write_policy and draft.write_policy.chosen_by == "human" else None
    if chosen is not None:
        _set(definition, chosen.value)
        draft.write_policy = WritePolicyNote(
            value=chosen.value, chosen_by="human", writes=writes, explanation=CHOSEN[chosen.value]
        )
    elif writes:
        _set(definition, "always_draft")
        where = ", ".join(writes[:MAX_POINTERS]) + (" …" if len(writes) > MAX_POINTERS else "")
        explanation = PROPOSED.format(where=where)
        draft.write_policy = WritePolicyNote(
            value="always_draft", chosen_by="proposed", writes=writes, explanation=explanation
        )
    else:
        draft.write_policy = None


def choose_write_policy(draft: Draft, value: WritePolicy, vocabulary: Vocabulary) -> None:
    """A person's choice: written into the proposal and kept by later proposals of the draft."""
    draft.write_policy = WritePolicyNote(value=value, chosen_by="human", explanation=CHOSEN[value])
    settle_write_policy(draft, vocabulary)


def _set(definition: dict[str, Any], value: WritePolicy) -> None:
    execution = definition.get("execution")
    if not isinstance(execution, dict):
        execution = definition["execution"] = {}
    execution["write_policy"] = value


def keep_hand_choice(draft: Draft, definition: Any) -> None:
    """A definition edited by hand that sets another policy than the draft's: the person chose it."""
    execution = definition.get("execution") if isinstance(definition, dict) else None
    value = execution.get("write_policy") if isinstance(execution, dict) else None
    current = draft.write_policy.value if draft.write_policy is not None else "auto_confirm_safe"
    if value in CHOSEN and value != current:
        draft.write_policy = WritePolicyNote(value=value, chosen_by="human", explanation=CHOSEN[value])
