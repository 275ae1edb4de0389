"""What a handler may use: the ports of its context, and the context itself, as protocols.

Handlers never reach the database, the network or credentials directly. The worker hands the engine's
action context its ports (HTTP through the egress guard, notifications, LLM completions, the run's
ledger), and handlers see that context only through `HandlerContext`. The protocols live here, with
the definitions that name handlers, so built-in handlers are typed without importing the engine.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.registry.llm_ports import LedgerPort, LlmPort, LlmReply
from app.registry.wait_ports import WaitPort

if TYPE_CHECKING:
    from app.registry.models import Capability


@dataclass(frozen=True)
class HttpAnswer:
    status_code: int
    headers: dict[str, str]
    content: bytes
    url: str


class HttpPort(Protocol):
    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any],
        json_body: Any,
        content: str | None,
        timeout_seconds: float,
    ) -> HttpAnswer: ...


@dataclass(frozen=True)
class HttpStream:
    """An answer whose body is read as it arrives (`chunks`), never held whole in memory."""

    status_code: int
    headers: dict[str, str]
    url: str
    chunks: AsyncIterable[bytes]


class HttpDownloadPort(Protocol):
    def open(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any],
        json_body: Any,
        content: str | None,
        timeout_seconds: float,
        max_bytes: int,
    ) -> AbstractAsyncContextManager[HttpStream]:
        """Send a request (redirects followed, each hop egress-checked) and stream the final answer."""
        ...


@dataclass(frozen=True)
class ArtifactRef:
    """A stored artifact as steps see it: its id and metadata, never its bytes."""

    id: str
    name: str
    kind: str
    size: int
    content_type: str
    sha256: str
    retention: str
    visibility: str
    expires_at: str | None
    link: str | None = None
    """For a `shared` artifact: a signed API path (`/artifacts/<token>`) valid up to 7 days."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "link": self.link,
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "size": self.size,
            "content_type": self.content_type,
            "sha256": self.sha256,
            "retention": self.retention,
            "visibility": self.visibility,
            "expires_at": self.expires_at,
        }


ArtifactData = bytes | AsyncIterable[bytes]
"""What an artifact is made from: bytes already in hand, or a stream read chunk by chunk."""


class ArtifactPort(Protocol):
    """The run's artifact store: content-addressed bytes plus a metadata row, under the space's quota.

    Fails with `StepError` codes `invalid_artifact_name`, `artifact_too_large` (partial bytes removed)
    and `artifact_quota_exceeded`.
    """

    async def put(
        self,
        name: str,
        data: ArtifactData,
        content_type: str,
        *,
        step_id: str,
        step_path: str | None = None,
        kind: str,
        retention: str,
        visibility: str,
    ) -> ArtifactRef: ...


class StepArtifacts(Protocol):
    """`ctx.artifacts`: the artifact port bound to the step that writes."""

    async def put(
        self,
        name: str,
        data: ArtifactData,
        content_type: str,
        *,
        kind: str = "document",
        retention: str = "default",
        visibility: str = "private",
    ) -> ArtifactRef: ...


class NotificationPort(Protocol):
    async def send(self, *, level: str, title: str, body: str) -> str: ...


class SlackPort(Protocol):
    """Slack's Web API; the bot token comes with each call (resolved from a secret), never kept."""

    async def post_message(
        self, token: str, message: dict[str, Any], *, timeout_seconds: float
    ) -> dict[str, Any]: ...


class MailPort(Protocol):
    """The operator's SMTP relay: builds and sends one message (to, cc, bcc, subject, text, html…)."""

    async def send(self, args: dict[str, Any], *, timeout_seconds: float) -> dict[str, Any]: ...


@dataclass
class InvocationRecord:
    """One capability call as the audit keeps it (params and result already redacted and truncated)."""

    call_key: str
    step_id: str
    capability: str
    tier: str
    risk: str
    destructive: bool
    chosen_by: str
    mode: str
    mode_source: str
    params: Any
    status: str
    result: Any = None
    error: dict[str, Any] | None = None
    denied_reason: str | None = None
    duration_ms: int | None = None
    params_hash: str | None = None
    """For a call that asks for approval: the hash of its full arguments, which the approval covers."""
    target: str | None = None
    """For a call that asks for approval: its target (`Capability.target_of`), which `always` grants."""
    lapsed_grants: tuple[str, ...] = ()
    """Standing approvals of the call's step and capability for another target: they lapse."""
    mode_rule: dict[str, Any] | None = None
    """The mode rule that decided the call (`{"level", "index"}`), when one did."""
    required_approvals: int = 1
    """How many distinct members must approve a call that asks for approval."""


class InvocationLog(Protocol):
    """The run's `action_invocations` rows: one write per call on the hot path."""

    async def record(self, record: InvocationRecord) -> None:
        """Store a finished call (executed, failed or denied): one insert."""
        ...

    async def request_approval(self, record: InvocationRecord) -> str:
        """Store a pending call with its expiry, notify, and answer its id.

        Raises `StepError("pending_cap_reached")` (after storing the call as denied) when the run or
        the space already has as many pending calls as allowed.
        """
        ...

    async def start_approved(self, invocation_id: str) -> bool:
        """`approved → executing` under the run's fencing token; False when it is no longer approved."""
        ...

    async def finish_approved(self, invocation_id: str, record: InvocationRecord) -> None:
        """`executing → executed | failed` with the call's result or error."""
        ...


class CallLimiter(Protocol):
    """Calls per run per minute, counted by the claim that holds the run."""

    async def allow(self) -> bool:
        """Count one call of the run; False when it is over its limit for the last minute."""
        ...


class EventPort(Protocol):
    """Publishes a domain event into the run's space (its own transaction: durable when it returns)."""

    async def publish(self, event_type: str, payload: dict[str, Any], *, source_id: str) -> str:
        """Record the event and answer its id; automations listening to its type fire."""
        ...


@dataclass(frozen=True)
class KvEntry:
    key: str
    value: Any
    expires_at: str | None
    updated_at: str


class KvPort(Protocol):
    """The running automation's own key/value state; the port is bound to one automation, so a call
    cannot name another's. Limit violations raise `StepError` (`kv_quota_exceeded`, `invalid_key`…)."""

    async def get(self, key: str) -> KvEntry | None: ...

    async def set(self, key: str, value: Any, *, ttl_seconds: int | None) -> KvEntry: ...

    async def delete(self, key: str) -> bool: ...

    async def list(self, *, prefix: str, limit: int, cursor: str | None) -> tuple[list[KvEntry], str | None]:
        """Live entries whose key starts with `prefix`, by key; the cursor of the next page or None."""
        ...


class KnowledgePort(Protocol):
    """The run's space's documents: search and bounded reads, nothing else (the port is bound to the
    run's space, so no argument can reach another's). Refusals raise `StepError` (`document_not_found`,
    `invalid_filters`…). Query embeddings a search makes are recorded on the run's ledger under `step_id`."""

    async def search(
        self, *, query: str, top_k: int, filters: Mapping[str, Any], step_id: str
    ) -> dict[str, Any]: ...

    async def fetch(self, *, document_id: str, offset: int, max_chars: int) -> dict[str, Any]: ...

    async def add(
        self,
        *,
        data: bytes,
        content_type: str,
        source_url: str,
        title: str | None,
        tags: Sequence[str],
        step_id: str,
    ) -> dict[str, Any]:
        """Index downloaded bytes as a new document of the space (`document_id`, `status`: pending)."""
        ...


@dataclass
class ClaimChecks:
    """Checks one claim of a run makes once, before the first call that needs them (the role of a
    registered database): the keys of those that passed. Ports are built per claim, so the next claim
    (a retry, a resume, the next run) checks again."""

    passed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Ports:
    http: HttpPort
    notifications: NotificationPort
    llm: LlmPort
    ledger: LedgerPort
    slack: SlackPort | None = None
    # None when the operator configured no SMTP relay: send_email then fails with email_unavailable.
    mail: MailPort | None = None
    # None where calls are not audited (unit tests of the engine with fakes).
    invocations: InvocationLog | None = None
    call_limiter: CallLimiter | None = None
    # None where nothing can be stored (unit tests of the engine): writing fails with artifacts_unavailable.
    artifacts: ArtifactPort | None = None
    download: HttpDownloadPort | None = None
    # None outside a run of a stored automation: the kv capabilities then fail with kv_unavailable.
    kv: KvPort | None = None
    # None where no run stands behind the call (tests of a handler alone): emitting then fails clearly.
    events: EventPort | None = None
    # None where no run stands behind the call: the search_space capabilities then fail clearly.
    knowledge: KnowledgePort | None = None
    # None where no run stands behind the call: the waiting actions then fail clearly.
    waits: WaitPort | None = None
    checks: ClaimChecks = field(default_factory=ClaimChecks, compare=False)


class HandlerContext(Protocol):
    """What an action or capability handler is handed for one step attempt (the engine's ActionContext)."""

    @property
    def space_id(self) -> str: ...

    @property
    def step_id(self) -> str: ...

    @property
    def step_path(self) -> str:
        """Which execution of the step this is: its id, or `fetch/3/classify` inside a loop."""
        ...

    @property
    def ports(self) -> Ports: ...

    @property
    def timeout_seconds(self) -> float:
        """The time this step attempt has; ports that take their own I/O timeout get this one."""
        ...

    @property
    def max_retries(self) -> int: ...

    @property
    def artifacts(self) -> StepArtifacts:
        """Where the step keeps files (`ctx.artifacts.put(name, bytes or stream, content_type)`)."""
        ...

    @property
    def checkpoint(self) -> Any:
        """What this step attempt saved when it paused (`Suspend.checkpoint`), when it resumes; else None."""
        ...

    async def invoke_capability(
        self, capability_id: str, args: dict[str, Any], *, chosen_by: str = "definition"
    ) -> Any:
        """Call a capability through the pipeline: the only way an action causes a side effect.

        `chosen_by="agent"` marks a call a model chose (the permission cascade infers differently).
        """
        ...

    async def capabilities_matching(self, patterns: Sequence[str]) -> list[Capability]:
        """The space's capabilities whose ids match any of the patterns (`http.*`)."""
        ...

    async def llm_complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        response_schema: dict[str, Any] | None = None,
        max_tokens: int,
        temperature: float | None = None,
    ) -> LlmReply:
        """One model turn through the pipeline's metered path (caps before, ledger after)."""
        ...
