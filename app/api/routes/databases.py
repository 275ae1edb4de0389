"""Databases a space registered for read-only queries: register (admin), list, read, delete (admin)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from app.api.artifact_schemas import DatabaseCreate, DatabaseOut
from app.api.body import JsonBodyRoute
from app.api.deps import KeyringDep, RuntimeDep, SessionDep, SpaceDep
from app.persistence.models import SpaceDatabase
from app.registry import capabilities as native_capabilities
from app.services.databases import capability_ids, database_service

router = APIRouter(prefix="/spaces/{space_id}/databases", tags=["databases"], route_class=JsonBodyRoute)


def _out(row: SpaceDatabase) -> DatabaseOut:
    return DatabaseOut(
        id=row.id,
        name=row.name,
        dsn_secret=row.dsn_secret,
        tool_prefix=row.tool_prefix,
        capabilities=capability_ids(row.tool_prefix),
        created_at=row.created_at,
    )


@router.post("", status_code=status.HTTP_201_CREATED, summary="Register a PostgreSQL database (admin)")
async def register_database(
    body: DatabaseCreate,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
    runtime: RuntimeDep,
    response: Response,
) -> DatabaseOut:
    row = await database_service.register(
        session,
        access,
        keyring,
        runtime.egress_allow,
        name=body.name,
        dsn_secret=body.dsn_secret,
        tool_prefix=body.tool_prefix,
        taken_prefixes=frozenset(c.id.split(".", 1)[0] for c in native_capabilities),
    )
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/databases/{row.id}"
    return _out(row)


@router.get("", summary="The space's registered databases")
async def list_databases(session: SessionDep, access: SpaceDep) -> list[DatabaseOut]:
    return [_out(row) for row in await database_service.list(session, access)]


@router.get("/{database_id}", summary="One registered database (the DSN's secret by name only)")
async def get_database(database_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> DatabaseOut:
    return _out(await database_service.get(session, access, database_id))


@router.delete("/{database_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Remove a database (admin)")
async def delete_database(database_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await database_service.delete(session, access, database_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
