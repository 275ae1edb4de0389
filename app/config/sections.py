"""The settings of each subsystem, one mixin a section; `Settings` (app/config/__init__.py) combines them.

The sections of what the service connects to (outbound webhooks, MCP, artifacts, knowledge) are in
`app/config/connections.py`."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, Field, SecretStr

MIN_METRICS_TOKEN_LENGTH = 16


class ApiSettings(BaseModel):
    """The API processes."""

    api_host: str = Field(default="127.0.0.1", description="Address `automations api` binds to.")
    api_port: int = Field(
        default=8000,
        validation_alias=AliasChoices("PORT", "AUTOMATIONS_API_PORT"),
        description="Port `automations api` listens on (its processes share it).",
    )
    api_workers: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="API processes `automations api` starts (default: one per CPU core it may use).",
    )
    api_cpu_nice: int = Field(
        default=0,
        ge=0,
        le=19,
        description=(
            "How far `automations api` lowers its CPU priority (0 = normal, 19 = lowest). On a machine "
            "whose cores the API shares with a worker, a positive value lets runs already accepted "
            "finish before the API takes more: under overload fewer fires are taken and more runs "
            "complete (docs/performance.md). It changes nothing while a core is free. "
            "`automations dev` uses 10 unless this is set."
        ),
    )
    metrics_enabled: bool = Field(
        default=True, description="Serve /metrics and record metrics (prometheus-client, multiprocess)."
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description=(
            f"When set (at least {MIN_METRICS_TOKEN_LENGTH} characters), /metrics answers only requests "
            "with `Authorization: Bearer <token>` (others get 401 metrics_token_required); unset = /metrics"
            " needs no token."
        ),
    )
    max_body_bytes: int = Field(
        default=1024 * 1024, ge=1024, description="Request bodies larger than this answer 413."
    )
    max_json_depth: int = Field(
        default=64, ge=4, le=512, description="JSON nested deeper than this answers 400 json_too_deep."
    )
    page_size_default: int = Field(
        default=50, ge=1, le=500, description="Items a list answers when `?limit=` is not given."
    )
    page_size_max: int = Field(
        default=200, ge=1, le=1000, description="The largest `?limit=` a list accepts."
    )
    stream_recheck_seconds: float = Field(
        default=30.0,
        gt=0,
        le=30,
        description="An open event stream re-checks its caller's token and membership at least this "
        "often (at once when a revocation is announced, and at the token's expiry).",
    )


class WorkerSettings(BaseModel):
    """Workers, the run queue and plugins' background work."""

    worker_concurrency: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="Worker processes one `automations worker` runs (default: two per CPU core it may use).",
    )
    beat_tick_seconds: float = Field(
        default=5.0, gt=0, description="Beat's tick period: schedules, recovery and promotion run on it."
    )
    max_concurrent_runs: int = Field(
        default=0,
        ge=0,
        description=(
            "Runs pending or running at once across the installation; 0 = no cap. Give every process the"
            " same value."
        ),
    )
    run_call_rate_limit: int = Field(
        default=60,
        ge=1,
        le=100_000,
        description=(
            "Capability calls one run may make per minute, counted by the claim that holds the run (a later"
            " claim starts from the calls audited in the last minute)."
        ),
    )
    run_lease_seconds: float = Field(
        default=30.0,
        ge=1,
        description=(
            "A worker's claim on a run, renewed while it works; not renewed this long, the run is recovered."
        ),
    )
    direct_claim_batch: int = Field(
        default=8,
        ge=0,
        le=1000,
        description=(
            "Runs a worker task claims straight from the database, one after another, after the run its"
            " message named, while runs are pending on that message's queue; 0 = only the named run."
            " Above 0 the api also sends a run's wake-up only when none waits on its queue, so scale"
            " run workers on pending runs, not on list lengths: set it the same for the api and every"
            " worker."
        ),
    )
    run_on_failure_reserve_fraction: float = Field(
        default=0.1,
        ge=0,
        le=0.5,
        description=(
            "Share of a run's timeout kept for its on_failure steps when the plan runs out of time"
            " (only for automations that have on_failure steps)."
        ),
    )
    run_on_failure_reserve_min_seconds: float = Field(
        default=5.0,
        ge=0,
        le=3600,
        description="The reserve's floor in seconds; never more than half the run's timeout.",
    )
    max_wait_seconds: float = Field(
        default=30 * 24 * 3600,
        gt=0,
        description="The longest a wait, wait_for_event or its timeout may last (default 30 days).",
    )
    wait_tick_seconds: float = Field(
        default=1.0, gt=0, description="How often beat satisfies due waits and wakes their runs."
    )
    run_requeue_after_seconds: float = Field(
        default=30.0,
        ge=1,
        description="A due pending run not claimed this long after its wake-up gets another.",
    )
    egress_allow: str = Field(
        default="",
        description=(
            "Comma-separated CIDRs and host names outbound HTTP may reach although private (egress.md)."
        ),
    )
    plugins: str = Field(
        default="",
        description=(
            "Ids of the installed plugins this installation may load, separated by commas or spaces;"
            " empty = none (installing a plugin package alone runs none of its code)."
        ),
    )
    plugin_poll_min_seconds: float = Field(
        default=60.0,
        ge=1,
        description=(
            "The shortest period a plugin poller may register (a plugin asking for less is refused):"
            " each poller runs once per period in every space that enabled its plugin."
        ),
    )
    plugin_task_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description=(
            "How long one poller or subscription call may take before it is cut and recorded as"
            " timed_out (a poller also never outlives its period)."
        ),
    )


class LlmSettings(BaseModel):
    """LLM providers.

    Keys come from the provider's own environment variables (OPENAI_API_KEY, ...), never from settings;
    docs/model-providers.md lists what each provider needs.
    """

    llm_allowed_models: list[str] = Field(
        default_factory=list,
        description="Models a definition may name (litellm names, e.g. openai/gpt-4o-mini); empty = none.",
    )
    llm_models: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description=(
            "Extra models: name -> {api_base, api_key_env, api_version, input_cost_per_token,"
            " output_cost_per_token, max_tokens, supports_response_schema}; api_base is a trusted"
            " endpoint (no egress opening needed). JSON in AUTOMATIONS_LLM_MODELS."
        ),
    )
    llm_default_max_tokens: int = Field(
        default=1024,
        ge=1,
        le=200_000,
        description=(
            "Output tokens assumed for an LLM step without max_tokens when a draft's cost is estimated."
        ),
    )


class SpendingSettings(BaseModel):
    """Spending caps of automation runs.

    An automation may set its own, up to the maximum.
    """

    default_daily_cost_cap_usd: float = Field(
        default=1.0,
        ge=0,
        description=(
            "USD per automation and UTC day, when its definition sets no cost_cap_daily_usd. Once reached,"
            " fires are dropped and a running run stops at its next model call (daily_budget_exceeded)."
        ),
    )
    max_daily_cost_cap_usd: float = Field(
        default=100.0,
        ge=0,
        description="The highest cost_cap_daily_usd a definition may set (above: 422 cap_above_maximum).",
    )
    default_run_token_cap: int = Field(
        default=200_000,
        ge=1,
        description="LLM tokens (input + output) per run, when its definition sets no max_llm_tokens.",
    )
    max_run_token_cap: int = Field(
        default=2_000_000, ge=1, description="The highest max_llm_tokens a definition may set."
    )


class AuthoringSettings(BaseModel):
    """Natural-language authoring.

    Drafts from plain requests; both models must also be in llm_allowed_models.
    """

    authoring_model: str | None = Field(
        default=None,
        description=(
            "Model that drafts definitions from a request; must be in AUTOMATIONS_LLM_ALLOWED_MODELS."
            " Unset = drafting answers 503 authoring_unavailable."
        ),
    )
    review_model: str | None = Field(
        default=None, description="Model that summarises a proposal; unset = the authoring model."
    )
    draft_ttl_seconds: int = Field(
        default=24 * 3600,
        ge=60,
        le=30 * 24 * 3600,
        description="How long a draft lives in Redis (edits and messages do not extend it).",
    )
    draft_max_attempts: int = Field(
        default=3, ge=1, le=10, description="Generator calls per request, re-prompts with problems included."
    )
    authoring_daily_cap_usd: float = Field(
        default=5.0,
        ge=0,
        description="Drafting spend per space and UTC day; beyond it: 429 authoring_budget_exceeded.",
    )
    authoring_timeout_seconds: float = Field(
        default=60.0, gt=0, le=600, description="How long one drafting model call may take."
    )
    authoring_max_tokens: int = Field(
        default=4096, ge=256, le=100_000, description="Output cap of one drafting model call."
    )


class TriggerSettings(BaseModel):
    """Rate limits of webhook fires, the space MCP server and failed authentications."""

    webhook_rate_limit: int = Field(
        default=120,
        ge=1,
        description=(
            "Webhook fires per trigger per window; past it 429 with Retry-After (when Redis cannot be asked,"
            " fires are let through and the log says so)."
        ),
    )
    webhook_rate_window_seconds: float = Field(
        default=60.0, gt=0, description="The window of AUTOMATIONS_WEBHOOK_RATE_LIMIT."
    )
    mcp_rate_limit: int = Field(
        default=120,
        ge=1,
        description=(
            "The space MCP server: tool calls per token and tool per window; past it the tool error"
            " rate_limited."
        ),
    )
    mcp_rate_window_seconds: float = Field(
        default=60.0, gt=0, description="The window of AUTOMATIONS_MCP_RATE_LIMIT."
    )
    mcp_call_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        le=300,
        description="MCP server: how long a tool call waits for its run to finish before it answers with "
        "the run's id and status.",
    )
    auth_failure_limit: int = Field(
        default=30,
        ge=0,
        description=(
            "Failed authentications (401) per client address per window (loopback and unix sockets not"
            " counted outside production); past it the address gets 429 too_many_failed_authentications"
            " before its body is read or a token looked up; 0 = off."
        ),
    )
    auth_failure_window_seconds: float = Field(
        default=60.0, gt=0, description="The window of AUTOMATIONS_AUTH_FAILURE_LIMIT."
    )


class SigninSettings(BaseModel):
    """Sign-in, tokens and invitations."""

    session_token_hours: float = Field(
        default=8.0, gt=0, le=24 * 30, description="Lifetime of the API token a password sign-in returns."
    )
    signin_failure_limit: int = Field(
        default=10, ge=1, description="Failed password sign-ins per email per window before it is locked."
    )
    signin_lockout_seconds: int = Field(
        default=15 * 60, ge=1, description="The counting window, and how long a locked email stays locked."
    )
    token_ttl_days: int = Field(
        default=90,
        ge=1,
        le=3650,
        description="Lifetime of an API token made without one (the create-admin token included).",
    )
    token_max_ttl_days: int = Field(
        default=365,
        ge=1,
        le=3650,
        description=(
            "Longest lifetime an API token may ask for; only an admin's own service token may never expire."
        ),
    )
    invitation_ttl_hours: int = Field(
        default=72,
        ge=1,
        le=24 * 30,
        description="How long a new member's single-use invitation link (to set a first password) works.",
    )
    signin_verification_slots: int = Field(
        default=2,
        ge=1,
        le=16,
        description=(
            "Password checks of one email that may run at once; further attempts answer 429 sign_in_busy"
            " (every attempt is counted before its password is checked)."
        ),
    )
    password_hash_memory_kib: int = Field(
        default=65_536,
        ge=19_456,
        le=4_194_304,
        description=(
            "Memory of one Argon2id password hash, in KiB (64 MiB; at least OWASP's 19 MiB). Each"
            " password is re-hashed at the configured cost on its next sign-in."
        ),
    )
    password_hash_time_cost: int = Field(
        default=3,
        ge=2,
        le=20,
        description="Passes of one Argon2id password hash over its memory (at least 2).",
    )
    password_hash_parallelism: int = Field(
        default=4,
        ge=1,
        le=16,
        description=(
            "Lanes (threads) of one Argon2id password hash. RFC 9106's low-memory choice is the default"
            " (65536 KiB, 3 passes, 4 lanes, about 0.2 s of CPU per sign-in); OWASP's minimum (19456 KiB,"
            " 2 passes, 1 lane) costs about an eighth of that."
        ),
    )
    max_chain_depth: int = Field(
        default=10,
        ge=1,
        le=100,
        description="Event chains deeper than this are refused (a dropped run, chain_depth_exceeded).",
    )
