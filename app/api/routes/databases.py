"""Databases a space registered for queries: register (admin), list, read, delete (admin)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from app.api.artifact_schemas import DatabaseCheckOut, DatabaseCreate, DatabaseOut, DatabasePatch
from app.api.body import JsonBodyRoute
from app.api.deps import DatabaseProbeDep, KeyringDep, RuntimeDep, SessionDep, SpaceDep
from app.persistence.models import SpaceDatabase
from app.registry import capabilities as native_capabilities
from app.services.resources.databases import DatabaseChanges, capability_ids, database_service

router = APIRouter(prefix="/spaces/{space_id}/databases", tags=["databases"], route_class=JsonBodyRoute)


def _out(row: SpaceDatabase) -> DatabaseOut:
    return DatabaseOut(
        id=row.id,
        name=row.name,
        dsn_secret=row.dsn_secret,
        tool_prefix=row.tool_prefix,
        access=row.access,
        capabilities=capability_ids(row.tool_prefix),
        created_at=row.created_at,
    )


def _native_prefixes() -> frozenset[str]:
    return frozenset(c.id.split(".", 1)[0] for c in native_capabilities)


@router.post("", status_code=status.HTTP_201_CREATED, summary="Register a PostgreSQL database (admin)")
async def register_database(
    body: DatabaseCreate,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
    runtime: RuntimeDep,
    probe: DatabaseProbeDep,
    response: Response,
) -> DatabaseOut:
    row = await database_service.register(
        session,
        access,
        keyring,
        runtime.egress_allow,
        probe,
        name=body.name,
        dsn_secret=body.dsn_secret,
        tool_prefix=body.tool_prefix,
        taken_prefixes=_native_prefixes(),
        database_access=body.access,
    )
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/databases/{row.id}"
    return _out(row)


@router.get("", summary="The space's registered databases")
async def list_databases(session: SessionDep, access: SpaceDep) -> list[DatabaseOut]:
    return [_out(row) for row in await database_service.list(session, access)]


@router.get("/{database_id}", summary="One registered database (the DSN's secret by name only)")
async def get_database(database_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> DatabaseOut:
    return _out(await database_service.get(session, access, database_id))


@router.patch(
    "/{database_id}", summary="Rename, re-prefix, change the access of or re-point a database (admin)"
)
async def update_database(
    database_id: uuid.UUID,
    body: DatabasePatch,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
    runtime: RuntimeDep,
    probe: DatabaseProbeDep,
) -> DatabaseOut:
    changes = DatabaseChanges(
        name=body.name, dsn_secret=body.dsn_secret, tool_prefix=body.tool_prefix, access=body.access
    )
    row = await database_service.update(
        session,
        access,
        keyring,
        runtime.egress_allow,
        probe,
        database_id,
        changes=changes,
        taken_prefixes=_native_prefixes(),
    )
    return _out(row)


@router.post(
    "/{database_id}/check",
    summary="Test the connection and the role once (admin): reachable with the tables seen, or why not",
)
async def check_database(
    database_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
    probe: DatabaseProbeDep,
) -> DatabaseCheckOut:
    result = await database_service.check(session, access, keyring, probe, database_id)
    return DatabaseCheckOut(
        reachable=result.reachable, tables=result.tables, code=result.code, message=result.message
    )


@router.delete("/{database_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Remove a database (admin)")
async def delete_database(database_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await database_service.delete(session, access, database_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
