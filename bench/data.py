"""Rows the benchmarks work on: made through the services (as `automations create-admin` and the API do),
or, for the large trigger tables, inserted in bulk with SQL."""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from app.definitions.automation import AutomationDefinition
from app.engine.validation import errors, validate_definition
from app.jobs import Job
from app.persistence.db import create_engine, create_sessionmaker
from app.persistence.transaction import transaction
from app.services.automations.store import StatusAction, automation_service
from app.services.identity.auth import auth_service
from app.services.identity.spaces import space_service

# The run benchmarks' plan: two templated transforms and an in-app notification, all deterministic.
THREE_STEPS: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Bench: three steps",
    "inputs": {
        "schema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "default": 0}, "repository": {"type": "string"}},
        }
    },
    "triggers": [
        {"type": "webhook", "config": {"input_mapping": {"n": "$.n", "repository": "$.repository.name"}}}
    ],
    "plan": [
        {
            "step_id": "shape",
            "action": "transform_data",
            "config": {
                "output": {"n": "{{ inputs.n }}", "title": "Build {{ inputs.n }} of {{ inputs.repository }}"}
            },
            "output_as": "shaped",
        },
        {
            "step_id": "double",
            "action": "transform_data",
            "config": {"output": {"text": "{{ shaped.title }}: {{ shaped.n * 2 }}"}},
            "output_as": "doubled",
        },
        {
            "step_id": "notify",
            "action": "notification",
            "config": {"title": "{{ shaped.title }}", "body": "{{ doubled.text }}", "level": "info"},
        },
    ],
}

SCHEDULED: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Bench: every minute",
    "triggers": [{"type": "schedule", "config": {"cron": "* * * * *", "timezone": "UTC"}}],
    "plan": [{"step_id": "shape", "action": "transform_data", "config": {"output": {"ok": True}}}],
}


def webhook_body(n: int) -> dict[str, Any]:
    """A small, typical webhook body (what a CI system posts)."""
    return {
        "n": n,
        "repository": {"name": "acme/api", "url": "https://git.example/acme/api"},
        "build": {"id": 1000 + n, "status": "failed", "branch": "main", "duration_s": 312},
    }


@dataclass(frozen=True)
class Hook:
    automation_id: str
    token: str

    @property
    def path(self) -> str:
        return f"/api/v1/automations/{self.automation_id}/fire"


def _refuse_jobs(job: Job) -> None:
    raise RuntimeError(f"creating bench data sent a job ({job.name})")


async def create_hooks(database_url: str, count: int, definition: dict[str, Any] | None = None) -> list[Hook]:
    """A space with `count` active automations with a webhook trigger each; their tokens (shown once)."""
    engine = create_engine(database_url, pool_size=1, application_name="automations-bench")
    sessionmaker = create_sessionmaker(engine)
    hooks: list[Hook] = []
    try:
        async with transaction(sessionmaker, _refuse_jobs) as session:
            made = await space_service.bootstrap(
                session, space_name="Bench", email=f"bench-{uuid.uuid4().hex[:8]}@example.test"
            )
            caller = await auth_service.authenticate(session, made.token)
            access = await auth_service.space_access(session, caller, made.space.id)
            for _ in range(count):
                saved = await automation_service.create(
                    session, access, copy.deepcopy(definition or THREE_STEPS)
                )
                await automation_service.change_status(
                    session, access, saved.automation.id, StatusAction.activate
                )
                hooks.append(Hook(str(saved.automation.id), saved.tokens[0].token))
    finally:
        await engine.dispose()
    return hooks


def stored(document: dict[str, Any]) -> dict[str, Any]:
    """A definition as the service stores it (validated, defaults filled in)."""
    problems = errors(validate_definition(document))
    if problems:
        raise ValueError(f"bench definition is invalid: {problems}")
    return AutomationDefinition.model_validate(copy.deepcopy(document)).to_document()


async def new_space(connection: asyncpg.Connection) -> uuid.UUID:
    space_id = uuid.uuid4()
    await connection.execute(
        "INSERT INTO spaces (id, name, created_at, updated_at) VALUES ($1, 'Bench bulk', now(), now())",
        space_id,
    )
    return space_id


async def insert_schedules(
    connection: asyncpg.Connection, space_id: uuid.UUID, count: int, next_fire_at: datetime
) -> list[uuid.UUID]:
    """`count` active automations with one every-minute schedule trigger each, in two INSERT … SELECTs."""
    definition = stored(SCHEDULED)
    config = definition["triggers"][0]["config"]
    rows = await connection.fetch(
        """
        WITH made AS (
            INSERT INTO automations (id, space_id, name, status, version, definition, created_at, updated_at)
            SELECT gen_random_uuid(), $1, 'Bench schedule ' || i, 'active', 1, $2::jsonb, now(), now()
            FROM generate_series(1, $3::int) AS i
            RETURNING id
        )
        INSERT INTO automation_triggers (
            id, automation_id, space_id, type, position, config, enabled, next_fire_at, created_at, updated_at
        )
        SELECT gen_random_uuid(), made.id, $1, 'schedule', 0, $4::jsonb, true, $5, now(), now()
        FROM made
        RETURNING id
        """,
        space_id,
        json.dumps(definition),
        count,
        json.dumps(config),
        next_fire_at,
    )
    return [row["id"] for row in rows]


EVENT_TYPE = "ci.build.finished"

LISTENER: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Bench: on a failed build",
    "triggers": [
        {
            "type": "event",
            "config": {
                "event_type": EVENT_TYPE,
                "filters": {
                    "repository": "acme/repo-0",
                    "build.status": {"in": ["failed", "errored"]},
                    "build.branch": {"starts_with": "main"},
                },
            },
        }
    ],
    "plan": [{"step_id": "shape", "action": "transform_data", "config": {"output": {"ok": True}}}],
}


def event_filter(index: int) -> dict[str, Any]:
    """Trigger `index`'s filter: distinct repository, same status list and branch prefix."""
    return {
        "repository": f"acme/repo-{index}",
        "build.status": {"in": ["failed", "errored"]},
        "build.branch": {"starts_with": "main"},
    }


def event_payload(index: int) -> dict[str, Any]:
    """An event that matches trigger `index` only."""
    return {
        "repository": f"acme/repo-{index}",
        "build": {"status": "failed", "branch": "main", "duration_s": 312},
    }


async def insert_listeners(
    connection: asyncpg.Connection, space_id: uuid.UUID, first: int, count: int
) -> None:
    """Active automations `first`…`first + count - 1`, each with one event trigger listening to
    EVENT_TYPE with filter `event_filter(i)`, in two INSERT … SELECTs."""
    definition = stored(LISTENER)
    config = definition["triggers"][0]["config"]
    await connection.execute(
        """
        WITH made AS (
            INSERT INTO automations (id, space_id, name, status, version, definition, created_at, updated_at)
            SELECT gen_random_uuid(), $1, 'Bench listener ' || i, 'active', 1,
                   jsonb_set(
                       $2::jsonb, '{triggers,0,config,filters,repository}', to_jsonb('acme/repo-' || i)
                   ),
                   now(), now()
            FROM generate_series($3::int, $3::int + $4::int - 1) AS i
            RETURNING id, definition
        )
        INSERT INTO automation_triggers (
            id, automation_id, space_id, type, position, config, enabled, event_type, created_at, updated_at
        )
        SELECT gen_random_uuid(), made.id, $1, 'event', 0, made.definition #> '{triggers,0,config}', true,
               $5, now(), now()
        FROM made
        """,
        space_id,
        json.dumps(definition),
        first,
        count,
        config["event_type"],
    )
