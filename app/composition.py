"""What every process builds from its settings, once: `build_runtime(settings, send_task, sessions)`.

The API (`app.main`) and each worker process (`app.worker.runtime`) call it and differ only in their
connections (their broker client and database sessions, handed in): the LLM adapter, dispatch limits,
the capability resolver and its sources, the secret resolver (the vault), the capability pipeline and
the job sender are built here, the same way for both. Nothing here runs at import time and nothing
connects: a process builds its runtime when it starts (the API in its lifespan, a worker after the fork).
That is also when the plugins `AUTOMATIONS_PLUGINS` allows are imported and set up.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.adapters.artifact_writer import ArtifactLimits
from app.adapters.database_capabilities import DatabaseSource, NoQueries, Queries
from app.adapters.mcp_capabilities import McpCapabilitySource, McpInvoker
from app.adapters.pipeline_secrets import VaultSecrets
from app.adapters.plugin_source import PluginSource
from app.config import Settings
from app.engine.capabilities import CapabilityPipeline, SecretResolver, default_rules
from app.engine.caps import OperatorCaps
from app.engine.validation import Vocabulary
from app.integrations.artifact_store import ArtifactStore, store_for
from app.integrations.llm import LiteLlm, ModelSettings
from app.integrations.llm.embeddings import LiteLlmEmbedder
from app.integrations.mcp.pool import McpSessionPool
from app.jobs import Job
from app.registry import ActionResolver, CapabilityResolver, RegistryActions, RegistrySource
from app.registry import actions as native_actions
from app.registry import capabilities as native_capabilities
from app.registry.plugins import PluginSet, load_plugins
from app.registry.registries import native_namespaces
from app.security.crypto import Keyring
from app.security.egress import EgressAllowList
from app.services.knowledge.indexing import Embedder
from app.services.knowledge.limits import KnowledgeLimits
from app.services.knowledge.search import QueryEmbedder
from app.services.mcp.drift import McpDriftCheck
from app.services.mcp.endpoints import McpSettings
from app.services.resources.vault import SecretVault, keyring_for
from app.services.runs.execution import ExecutionDeps, PortsFactory, WakeQueue
from app.services.runs.limits import DispatchLimits, pricer

logger = logging.getLogger(__name__)

SendTask = Callable[..., Any]
"""`celery_app.send_task`: the broker client of the process."""
SendJob = Callable[[Job], None]


def job_sender(send_task: SendTask) -> SendJob:
    """Send a buffered job (after its transaction committed) through the process's broker client."""

    def send_job(job: Job) -> None:
        # Jobs are wake-ups whose outcome lives in the database: nobody waits for a result, so the
        # sender does not subscribe to one (a SUBSCRIBE per job, and a channel held open per job).
        send_task(
            job.name,
            args=job.args,
            kwargs=job.kwargs,
            queue=job.queue,
            countdown=job.countdown,
            ignore_result=True,
            # A job goes straight to its queue's list (the anonymous exchange): declaring that queue
            # again is a no-op the worker already did, and re-checking it costs a fifth of a send's CPU.
            declare=[],
        )

    return send_job


@dataclass(frozen=True)
class Runtime:
    """The process's long-lived collaborators, built from settings alone (no open connection)."""

    settings: Settings
    egress_allow: EgressAllowList
    llm: LiteLlm
    limits: DispatchLimits
    capabilities: CapabilityResolver
    actions: ActionResolver
    plugins: PluginSet
    """Every plugin installed or allowed, and whether it loaded (`GET …/plugins`)."""
    plugin_source: PluginSource
    secrets: SecretResolver
    pipeline: CapabilityPipeline
    vocabulary: Vocabulary
    """The installation's part of validation (actions, triggers, allowed models); see `vocabulary_for`."""
    send_job: SendJob
    mcp: McpSettings
    """What MCP sessions need: keys, egress, the operator's stdio servers, limits."""
    mcp_sessions: McpSessionPool
    """The MCP sessions this process keeps open between tool calls (closed at shutdown)."""
    artifact_store: ArtifactStore
    artifact_limits: ArtifactLimits
    knowledge: KnowledgeLimits = dataclasses.field(default_factory=KnowledgeLimits)
    embedder: Embedder | None = None
    """The operator's embedding model (AUTOMATIONS_KNOWLEDGE_EMBEDDING_MODEL), or None: full text only."""

    def query_embedder(self) -> QueryEmbedder | None:
        """A search query's vector through the embedding model (None when it fails), or None when off."""
        embedder = self.embedder
        if embedder is None:
            return None

        async def embed_query(text: str) -> list[float] | None:
            try:
                return (await embedder.embed([text])).vectors[0]
            except Exception:  # a failing model leaves the full-text answer, never a failed search
                logger.warning("query embedding failed; answering by full text", exc_info=True)
                return None

        return embed_query

    async def vocabulary_for(
        self,
        space_id: str,
        secret_names: frozenset[str] | None = None,
        secret_hosts: Mapping[str, tuple[str, ...]] | None = None,
    ) -> Vocabulary:
        """What a definition of this space is validated against: the base plus the space's capabilities,
        actions and plugin event types and, when given, the names of its secrets and their hosts."""
        return dataclasses.replace(
            self.vocabulary,
            actions=await self.actions.for_space(space_id),
            capabilities=await self.capabilities.for_space(space_id),
            plugin_events=frozenset(event.type for event in await self.plugin_source.events(space_id)),
            secret_names=secret_names,
            secret_hosts=secret_hosts,
        )

    async def space_vocabulary(self, space_id: uuid.UUID) -> Vocabulary:
        """`vocabulary_for` by the space's id, for collaborators that ask per space (drafting)."""
        return await self.vocabulary_for(str(space_id))

    def execution(self, ports: PortsFactory, wake_queue: WakeQueue | None = None) -> ExecutionDeps:
        """What the run service needs for one claim, with the process's own ports (and, where it claims
        runs directly, how it wakes a run queue)."""
        return ExecutionDeps(pipeline=self.pipeline, actions=self.actions, ports=ports, wake_queue=wake_queue)


def build_runtime(
    settings: Settings,
    send_task: SendTask,
    sessions: async_sessionmaker[AsyncSession],
    queries: Queries | None = None,
) -> Runtime:
    """Compose the runtime. Capability sources are listed in resolution order (native first).

    `queries` runs statements on the databases spaces registered (a worker's pools, built by the worker
    with the database driver); the API lists those capabilities for validation but never runs them.
    """
    allow = EgressAllowList.parse(settings.egress_allow)
    llm = LiteLlm(settings.llm_allowed_models, settings.llm_models)
    keyring = keyring_for(settings)
    mcp = mcp_settings(settings, allow, keyring)
    mcp_sessions = McpSessionPool(
        size=settings.mcp_session_pool_size,
        idle_seconds=settings.mcp_session_idle_seconds,
        allow=allow,
        resolver=mcp.resolver,
    )
    plugins = load_plugins(
        settings.plugin_ids, reserved=native_namespaces(), min_poll_seconds=settings.plugin_poll_min_seconds
    )
    plugin_source = PluginSource(plugins, sessions)
    secrets = VaultSecrets(SecretVault(keyring), sessions)
    resolver = CapabilityResolver(
        [
            RegistrySource(native_capabilities),
            DatabaseSource(sessions, secrets, queries or NoQueries()),
            McpCapabilitySource(sessions, McpInvoker(sessions, mcp, mcp_sessions)),
            plugin_source,
        ]
    )
    return Runtime(
        settings=settings,
        egress_allow=allow,
        llm=llm,
        limits=DispatchLimits(
            max_concurrent_runs=settings.max_concurrent_runs,
            pricer=pricer(llm),
            caps=operator_caps(settings),
        ),
        capabilities=resolver,
        actions=ActionResolver([RegistryActions(native_actions), plugin_source]),
        plugins=plugins,
        plugin_source=plugin_source,
        secrets=secrets,
        pipeline=CapabilityPipeline(
            default_rules(resolver, secrets, McpDriftCheck(sessions, mcp, settings.mcp_relist_after_seconds)),
            resolver,
        ),
        vocabulary=Vocabulary(
            actions=native_actions,
            allowed_models=frozenset(settings.llm_allowed_models),
            caps=operator_caps(settings),
            plugin_namespaces=frozenset(plugin.namespace for plugin in plugins.loaded),
            max_wait_seconds=settings.max_wait_seconds,
        ),
        send_job=job_sender(send_task),
        mcp=mcp,
        mcp_sessions=mcp_sessions,
        artifact_store=store_for(settings),
        artifact_limits=ArtifactLimits(
            max_bytes=settings.artifact_max_bytes,
            quota_bytes=settings.artifact_quota_bytes,
            retention_days=settings.artifact_retention_days,
        ),
        knowledge=KnowledgeLimits.from_settings(settings),
        embedder=embedder_for(settings, llm),
    )


def operator_caps(settings: Settings) -> OperatorCaps:
    """The spending defaults and maximums every automation is held to (see `app.engine.caps`)."""
    return OperatorCaps(
        default_daily_cost_usd=settings.default_daily_cost_cap_usd,
        max_daily_cost_usd=settings.max_daily_cost_cap_usd,
        default_run_tokens=settings.default_run_token_cap,
        max_run_tokens=settings.max_run_token_cap,
    )


def embedder_for(settings: Settings, llm: LiteLlm) -> LiteLlmEmbedder | None:
    """The knowledge embedding model (its AUTOMATIONS_LLM_MODELS entry, if any), or None when unset."""
    model = settings.knowledge_embedding_model
    if not model:
        return None
    return LiteLlmEmbedder(model, llm.models.get(model, ModelSettings()))


def mcp_settings(settings: Settings, allow: EgressAllowList, keyring: Keyring) -> McpSettings:
    """The MCP part of the settings, with the keyring that opens connection credentials."""
    return McpSettings(
        keyring=keyring,
        allow=allow,
        stdio_servers=settings.mcp_stdio_servers,
        timeout_seconds=settings.mcp_call_timeout_seconds,
        public_url=settings.public_url or f"http://{settings.api_host}:{settings.api_port}",
    )
