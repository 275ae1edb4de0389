"""Drafts as a use-case: create from a request, refine, edit, review, delete, and save by a human.

`DraftService` is built once per process by the composition root with its ports (draft store, LLM,
spending ledger, the space's vocabulary and names); routes call it with the request's session.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from app.engine.validation import Problem, Vocabulary, errors, warnings
from app.engine.validation.credentials import LITERAL_SECRET
from app.errors import Conflict, ErrorDetail, ServiceUnavailable, ValidationFailed
from app.nl.checks import proposal_problems
from app.nl.context import AuthoringContextSource, DatabaseContextSource, SpaceNames, space_names
from app.nl.diff import definition_diff
from app.nl.drafts import Draft, DraftProblem, DraftStatus
from app.nl.flags import FlagContext, rule_flags
from app.nl.generator import Proposal, generate
from app.nl.inventory import inventory
from app.nl.metering import MeteredLlm, SpendingLedger
from app.nl.permissions import ModeResolver, inferred_mode
from app.nl.prompts import GeneratorContext, change_message, proposal_echo, request_message
from app.nl.references import reference_problems
from app.nl.review import review
from app.nl.service_types import (
    AuthoringConfig,
    AuthoringUnavailable,
    ContextSourceFor,
    VocabularyOf,
    draft_not_found,
)
from app.nl.store import DraftStore
from app.nl.turns import (
    STALE_SUMMARY_NOTE,
    credential_free,
    instruction,
    normalised,
    note_literals,
    request_text,
)
from app.nl.usage import used_capability_ids
from app.nl.write_policy import WritePolicy, choose_write_policy, keep_hand_choice, settle_write_policy
from app.persistence.base import utcnow
from app.persistence.models import Automation
from app.persistence.types import AsyncSession
from app.registry.llm_ports import LlmPort
from app.security.credentials import scrub
from app.services.automations.definitions import problems_of
from app.services.automations.store import Saved, automation_service
from app.services.identity.access import Permissions, SpaceAccess


@dataclass
class _Turn:
    """Everything one generation turn needs about the space."""

    vocabulary: Vocabulary
    names: SpaceNames
    source: AuthoringContextSource


class DraftService:
    def __init__(
        self,
        config: AuthoringConfig,
        store: DraftStore,
        llm: LlmPort,
        ledger: SpendingLedger,
        vocabulary_of: VocabularyOf,
        context_source: ContextSourceFor = DatabaseContextSource,
        mode_of: ModeResolver = inferred_mode,
    ) -> None:
        self.config = config
        self.store = store
        self.llm = llm
        self.ledger = ledger
        self.vocabulary_of = vocabulary_of
        self.context_source = context_source
        self.mode_of = mode_of

    async def create(self, session: AsyncSession, access: SpaceAccess, request: str) -> Draft:
        """A new draft from a plain request: generated, checked, re-prompted, flagged and reviewed."""
        access.require(Permissions.write_automations)
        return await self._first_turn(session, access, request, base=None)

    async def create_patch(
        self, session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID, request: str
    ) -> Draft:
        """A draft that changes an existing automation as asked, with the diff from its current version."""
        access.require(Permissions.write_automations)
        self._model()
        request_text(request, "/request")
        automation = await automation_service.get(session, access, automation_id)
        return await self._first_turn(session, access, request, base=automation)

    async def _first_turn(
        self, session: AsyncSession, access: SpaceAccess, request: str, *, base: Automation | None
    ) -> Draft:
        model = self._model()
        request = request_text(request, "/request")
        # Redis first: when drafts cannot be kept, nothing is spent on a model.
        await self.store.check()
        turn = await self._turn(session, access.space_id)
        draft = self._new_draft(access, request, model)
        clean = credential_free(draft, request)
        if base is None:
            first = request_message(clean)
        else:
            draft.automation_id = str(base.id)
            draft.base_version = base.version
            draft.base_definition = copy.deepcopy(base.definition)
            note_literals(draft, base.definition)
            first = change_message(base.definition, clean)
        await self._generate(draft, turn, [first])
        await self.store.put(draft)
        return draft

    async def listing(self, access: SpaceAccess) -> list[Draft]:
        access.require(Permissions.read)
        return await self.store.list(str(access.space_id))

    async def get(self, access: SpaceAccess, draft_id: str) -> Draft:
        access.require(Permissions.read)
        draft = await self.store.get(str(access.space_id), draft_id)
        if draft is None:
            raise draft_not_found()
        return draft

    async def delete(self, access: SpaceAccess, draft_id: str) -> None:
        access.require(Permissions.write_automations)
        if not await self.store.delete(str(access.space_id), draft_id):
            raise draft_not_found()

    async def message(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        draft_id: str,
        message: str | None,
        answers: dict[str, str],
    ) -> Draft:
        """Refine a draft conversationally: a new proposal through the same checks, diffed from the last."""
        access.require(Permissions.write_automations)
        model = self._model()
        draft = await self.get(access, draft_id)
        said = instruction(draft, message, answers)
        turn = await self._turn(session, access.space_id)
        clean = credential_free(draft, said)
        previous = draft.definition
        request = scrub(draft.request)[0]
        # The conversation so far, shortened to what matters: the request, the last proposal, the new turn.
        context = [
            request_message(request)
            if draft.base_definition is None
            else change_message(draft.base_definition, request)
        ]
        if previous is not None:
            note_literals(draft, previous)
            context.append(proposal_echo(previous))
        context.append({"role": "user", "content": clean})
        draft.model = model
        draft.turns = [*draft.turns, said]
        await self._generate(draft, turn, context, previous=previous)
        await self._replace(draft)
        return draft

    async def edit(
        self, session: AsyncSession, access: SpaceAccess, draft_id: str, definition: Any, *, with_review: bool
    ) -> Draft:
        """Replace the proposal by hand; checks and rule flags run again, the review model only if asked."""
        access.require(Permissions.write_automations)
        draft = await self.get(access, draft_id)
        review_model = self._review_model() if with_review else None
        turn = await self._turn(session, access.space_id)
        previous = draft.definition
        keep_hand_choice(draft, definition)
        draft.definition = definition if isinstance(definition, dict) else None
        draft.clarifications = []
        problems = await self._check(definition, turn)
        metered = self._metered(access.space_id, draft)
        await self._settle(draft, turn, problems, metered, review_model=review_model, previous=previous)
        if review_model is None and draft.status is DraftStatus.ready:
            draft.notes = [*draft.notes, STALE_SUMMARY_NOTE]
        draft.cost_usd = round(draft.cost_usd + metered.spent_usd, 6)
        await self._replace(draft)
        return draft

    async def choose_write_policy(
        self, session: AsyncSession, access: SpaceAccess, draft_id: str, value: WritePolicy
    ) -> Draft:
        """A person's write policy for the draft, kept by its later proposals; nothing is regenerated."""
        access.require(Permissions.write_automations)
        draft = await self.get(access, draft_id)
        if draft.definition is None:
            raise Conflict("This draft has no proposal to set a write policy on yet.", code="draft_not_ready")
        turn = await self._turn(session, access.space_id)
        choose_write_policy(draft, value, turn.vocabulary)
        draft.updated_at = utcnow()
        await self._replace(draft)
        return draft

    async def save(self, session: AsyncSession, access: SpaceAccess, draft_id: str) -> Saved:
        """Create the automation (paused, created_from_nl) or apply the patch, by a user's explicit call.

        The draft is taken out of Redis first, so a second save finds nothing; it is put back when the
        save fails, and the request's transaction then rolls back whatever was written.
        """
        access.require(Permissions.write_automations)
        draft = await self.store.take(str(access.space_id), draft_id)
        if draft is None:
            raise draft_not_found()
        try:
            return await self._save(session, access, draft)
        except BaseException:
            # With Redis gone as well the draft is lost; the original error is the one to answer.
            with contextlib.suppress(ServiceUnavailable):
                await self.store.put(draft)
            raise

    async def _save(self, session: AsyncSession, access: SpaceAccess, draft: Draft) -> Saved:
        if draft.status is not DraftStatus.ready or draft.definition is None:
            raise Conflict(
                f"Only a ready draft can be saved; this one is {draft.status.value}.", code="draft_not_ready"
            )
        turn = await self._turn(session, access.space_id)
        # The space may have changed since the draft was checked (a secret removed, a model disallowed).
        blocking = errors(await self._check(draft.definition, turn))
        if blocking:
            draft.problems = [DraftProblem(**p.as_dict()) for p in blocking]
            draft.status = DraftStatus.failed
            raise ValidationFailed(
                "The draft is no longer valid.",
                code="invalid_definition",
                details=[
                    ErrorDetail(path="/definition" + p.path, message=p.message, code=p.code) for p in blocking
                ],
            )
        document = copy.deepcopy(draft.definition)
        metadata = document.setdefault("metadata", {})
        if draft.automation_id is None:
            metadata["created_from_nl"] = True
            return await automation_service.create(session, access, document, turn.vocabulary)
        metadata["edited_from_nl"] = True
        return await automation_service.update(
            session,
            access,
            uuid.UUID(draft.automation_id),
            document,
            expected_version=draft.base_version,
            vocabulary=turn.vocabulary,
        )

    def _model(self) -> str:
        if self.config.model is None:
            raise AuthoringUnavailable()
        return self.config.model

    def _review_model(self) -> str:
        return self.config.review_model or self._model()

    def _new_draft(self, access: SpaceAccess, request: str, model: str) -> Draft:
        now = utcnow()
        return Draft(
            id=uuid.uuid4().hex,
            space_id=str(access.space_id),
            created_by=str(access.user_id),
            status=DraftStatus.failed,
            request=request,
            turns=[request],
            model=model,
            created_at=now,
            updated_at=now,
            expires_at=now + timedelta(seconds=self.config.ttl_seconds),
        )

    async def _turn(self, session: AsyncSession, space_id: uuid.UUID) -> _Turn:
        source = self.context_source(session)
        return _Turn(await self.vocabulary_of(space_id), await space_names(source, space_id), source)

    def _metered(self, space_id: uuid.UUID, draft: Draft) -> MeteredLlm:
        return MeteredLlm(self.llm, self.ledger, self.config.limits, space_id, draft.id)

    async def _check(self, definition: Any, turn: _Turn) -> list[Problem]:
        # The validator's literal_secret warnings come back from proposal_problems as errors.
        found = [p for p in await problems_of(definition, turn.vocabulary) if p.code != LITERAL_SECRET]
        return (
            found
            + proposal_problems(definition, turn.names, self.config.egress_allow)
            + reference_problems(definition, turn.names, turn.vocabulary)
        )

    async def _generate(
        self,
        draft: Draft,
        turn: _Turn,
        messages: list[dict[str, Any]],
        *,
        previous: dict[str, Any] | None = None,
    ) -> None:
        space_id = uuid.UUID(draft.space_id)
        metered = self._metered(space_id, draft)
        context = GeneratorContext(
            turn.vocabulary, turn.names, tuple(sorted(turn.vocabulary.allowed_models or ()))
        )

        async def check(definition: dict[str, Any]) -> list[Problem]:
            return await self._check(definition, turn)

        async def lookup(kinds: list[str]) -> dict[str, Any]:
            definitions = await turn.source.used_definitions(space_id) if "slack_channels" in kinds else []
            return inventory(kinds, turn.names, turn.vocabulary, definitions)

        proposal: Proposal = await generate(
            metered,
            model=draft.model,
            context=[context.message(), *messages],
            check=check,
            max_attempts=self.config.max_attempts,
            lookup=lookup,
        )
        draft.definition = proposal.definition
        draft.clarifications = proposal.clarifications
        draft.attempts = proposal.attempts
        await self._settle(
            draft, turn, proposal.problems, metered, review_model=self._review_model(), previous=previous
        )
        draft.cost_usd = round(draft.cost_usd + metered.spent_usd, 6)

    async def _settle(
        self,
        draft: Draft,
        turn: _Turn,
        problems: list[Problem],
        metered: MeteredLlm,
        *,
        review_model: str | None,
        previous: dict[str, Any] | None,
    ) -> None:
        """Status, rule flags, review and diff of the draft's current proposal."""
        draft.problems = [DraftProblem(**p.as_dict()) for p in problems]
        draft.summary, draft.flags, draft.estimate = None, [], None
        draft.notes = [note for note in draft.notes if note != STALE_SUMMARY_NOTE]
        draft.updated_at = utcnow()
        definition = draft.definition
        if errors(problems) or definition is None:
            draft.status = DraftStatus.needs_clarification if draft.clarifications else DraftStatus.failed
        else:
            draft.status = DraftStatus.needs_clarification if draft.clarifications else DraftStatus.ready
            settle_write_policy(draft, turn.vocabulary)
            flag_context = FlagContext(
                vocabulary=turn.vocabulary,
                used_capabilities=frozenset(
                    used_capability_ids(
                        await turn.source.used_definitions(uuid.UUID(draft.space_id)), turn.vocabulary
                    )
                ),
                llm=self.llm,
                default_max_tokens=self.config.default_max_tokens,
                mode_of=self.mode_of,
            )
            draft.flags, draft.estimate = await asyncio.to_thread(
                rule_flags, definition, warnings(problems), flag_context
            )
            # Questions first: a proposal waiting for answers is reviewed once they are in.
            if review_model is not None and draft.status is DraftStatus.ready:
                found = await review(
                    metered,
                    model=review_model,
                    definition=definition,
                    rule_flags=draft.flags,
                    estimate=draft.estimate,
                )
                draft.review_model = review_model
                draft.summary = found.summary
                draft.flags = [*draft.flags, *found.flags]
                if found.note:
                    draft.notes = [*draft.notes, found.note]
        draft.diff = self._diff(draft, previous)

    @staticmethod
    def _diff(draft: Draft, previous: dict[str, Any] | None) -> Any:
        before = draft.base_definition if draft.base_definition is not None else previous
        if before is None or draft.definition is None:
            return None
        label = f"version {draft.base_version}" if draft.base_version is not None else "previous proposal"
        return definition_diff(normalised(before), normalised(draft.definition), label=label)

    async def _replace(self, draft: Draft) -> None:
        if not await self.store.replace(draft):
            raise draft_not_found()
