"""What a space's definitions are validated against, however the caller reaches the service."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping

from app.engine.validation import Vocabulary
from app.persistence.shared_reads import shared_reads
from app.persistence.types import AsyncSession
from app.services.automations.input_defaults import input_default_service
from app.services.identity.access import SpaceAccess
from app.services.resources.secrets import secret_service

VocabularyFor = Callable[[str, frozenset[str], Mapping[str, tuple[str, ...]]], Awaitable[Vocabulary]]
"""`Runtime.vocabulary_for`: the installation's vocabulary widened by one space's capabilities."""


async def space_vocabulary(
    session: AsyncSession, access: SpaceAccess, vocabulary_for: VocabularyFor
) -> Vocabulary:
    """The registries, the allowed LLM models, the capabilities this space can call (from the capability
    resolver), its secrets' names and hosts, and its input default names (a `$space_default` with no
    value is flagged at save).

    Every read goes through `session`, the enabled plugins read once (`shared_reads`): a definition is
    checked on every save and every pause in the editor's typing, and a session per source cost more
    than the checks themselves."""
    async with shared_reads(session):
        hosts = await secret_service.bindings(session, access)
        vocabulary = await vocabulary_for(str(access.space_id), frozenset(hosts), hosts)
        defaults = await input_default_service.names(session, access)
    return dataclasses.replace(vocabulary, space_defaults=defaults)
