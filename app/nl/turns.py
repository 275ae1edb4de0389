"""A draft's turns as text: the request and messages checked, credentials cut, and the notes that say so."""

from __future__ import annotations

from typing import Any

from app.definitions.automation import AutomationDefinition
from app.definitions.pointers import join
from app.errors import ErrorDetail, ValidationFailed
from app.nl.drafts import MAX_REQUEST_CHARS, Draft, DraftStatus
from app.security.credentials import scrub, without_credentials

CREDENTIAL_NOTE = (
    "Your request contained something that looks like a credential; it was removed before the request "
    'was sent to the model. Store it as a secret and reference it as {"$secret": "<name>"}.'
)
LITERALS_NOTE = (
    "The definition holds what looks like a credential at {pointers}; it was cut before the definition "
    "was sent to the model, and a draft holding it cannot be saved. Move it into a secret and reference "
    'it as {{"$secret": "<name>"}}.'
)
STALE_SUMMARY_NOTE = "The definition was edited after the summary; ask for a new one with ?review=true."


def normalised(document: dict[str, Any]) -> dict[str, Any]:
    """The document as it would be stored (defaults filled in), so a diff shows only real changes."""
    try:
        return AutomationDefinition.model_validate(document).to_document()
    except ValueError:
        return document


def request_text(text: str, pointer: str) -> str:
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_REQUEST_CHARS:
        raise ValidationFailed(
            f"The request must hold 1 to {MAX_REQUEST_CHARS} characters.",
            code="invalid_request_text",
            details=[ErrorDetail(path=pointer, message=f"1 to {MAX_REQUEST_CHARS} characters")],
        )
    return stripped


def instruction(draft: Draft, message: str | None, answers: dict[str, str]) -> str:
    """The user's next turn: their message, and their answers to the generator's questions."""
    asked = {item.id: item for item in draft.clarifications}
    unknown = sorted(set(answers) - set(asked))
    missing = [item.id for item in draft.clarifications if not answers.get(item.id, "").strip()]
    details = [
        ErrorDetail(path=f"/answers/{key}", message="no such question on this draft") for key in unknown
    ]
    if draft.status is DraftStatus.needs_clarification:
        details += [ErrorDetail(path=f"/answers/{key}", message=asked[key].question) for key in missing]
    if not (message or "").strip() and not answers:
        details.append(ErrorDetail(path="/message", message="say what to change, or answer the questions"))
    if details:
        raise ValidationFailed(
            "The message cannot be used as it is.", code="invalid_message", details=details
        )
    parts = [message.strip()] if message and message.strip() else []
    if answers:
        parts.append(
            "Answers to your questions:\n"
            + "\n".join(
                f"- {asked[key].question} → {answers[key].strip()}" for key in asked if key in answers
            )
        )
    text = "\n\n".join(parts)
    return request_text(text, "/message")


def credential_free(draft: Draft, text: str) -> str:
    """The user's text fit to send to a model; the draft gets a note when something had to be cut."""
    clean, cut = scrub(text)
    if cut and CREDENTIAL_NOTE not in draft.notes:
        draft.notes = [*draft.notes, CREDENTIAL_NOTE]
    return clean


def note_literals(draft: Draft, definition: Any) -> None:
    """A note naming where a definition about to be shown to a model held credential literals (cut
    before sending, see prompts.py)."""
    found = without_credentials(definition)[1]
    if not found:
        return
    note = LITERALS_NOTE.format(pointers=", ".join(join(*path) for path in found))
    if note not in draft.notes:
        draft.notes = [*draft.notes, note]
