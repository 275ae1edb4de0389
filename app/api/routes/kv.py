"""An automation's key/value state: inspect and fix what its runs keep between them."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status
from starlette.convertors import PathConvertor, register_url_convertor

from app.api.body import JsonBodyRoute
from app.api.deps import PageDep, SessionDep, SpaceDep
from app.api.schemas import PageOut
from app.api.tryout_schemas import KvCleared, KvEntryOut, KvPut
from app.errors import NotFound
from app.persistence.types import AsyncSession
from app.services.automations.store import automation_service
from app.services.identity.access import Permissions, SpaceAccess
from app.services.resources.kv import MAX_KEY_CHARS, KvTarget, kv_service

router = APIRouter(
    prefix="/spaces/{space_id}/automations/{automation_id}/kv", tags=["state"], route_class=JsonBodyRoute
)


class KeyConvertor(PathConvertor):
    """A key as the rest of the path, slashes and line breaks included, so the service (not the router)
    decides what a key may hold and a refused key is a 422 naming the problem, never a 404."""

    regex = "[\\s\\S]+"


register_url_convertor("kv_key", KeyConvertor())
KeyPath = Annotated[str, Path(description="The key (URL-encoded).")]
Prefix = Annotated[str, Query(max_length=MAX_KEY_CHARS, description="Only keys starting with this.")]


async def _target(session: AsyncSession, access: SpaceAccess, automation_id: uuid.UUID) -> KvTarget:
    """The automation in the caller's space (404 for another space's id)."""
    automation = await automation_service.get(session, access, automation_id)
    return KvTarget(space_id=automation.space_id, automation_id=automation.id)


@router.get("", summary="List keys in key order (prefix, cursor pagination)")
async def list_kv(
    automation_id: uuid.UUID, session: SessionDep, access: SpaceDep, page: PageDep, prefix: Prefix = ""
) -> PageOut[KvEntryOut]:
    access.require(Permissions.read)
    target = await _target(session, access, automation_id)
    result = await kv_service.list(session, target, prefix=prefix, limit=page.limit, cursor=page.cursor)
    return PageOut(
        items=[KvEntryOut.model_validate(row) for row in result.items], next_cursor=result.next_cursor
    )


@router.delete("", summary="Delete every key (or those starting with prefix)")
async def clear_kv(
    automation_id: uuid.UUID, session: SessionDep, access: SpaceDep, prefix: Prefix = ""
) -> KvCleared:
    access.require(Permissions.write_automations)
    target = await _target(session, access, automation_id)
    return KvCleared(deleted=await kv_service.clear(session, target, prefix=prefix))


@router.get("/{key:kv_key}", summary="Read one key")
async def get_kv(automation_id: uuid.UUID, key: KeyPath, session: SessionDep, access: SpaceDep) -> KvEntryOut:
    access.require(Permissions.read)
    target = await _target(session, access, automation_id)
    row = await kv_service.get(session, target, key)
    if row is None:
        raise NotFound("No such key (or it expired).", code="kv_key_not_found")
    return KvEntryOut.model_validate(row)


@router.put("/{key:kv_key}", summary="Write one key (201 new, 200 replaced)")
async def put_kv(
    automation_id: uuid.UUID,
    key: KeyPath,
    body: KvPut,
    session: SessionDep,
    access: SpaceDep,
    response: Response,
) -> KvEntryOut:
    access.require(Permissions.write_automations)
    target = await _target(session, access, automation_id)
    existed = await kv_service.get(session, target, key) is not None
    row = await kv_service.set(session, target, key, body.value, ttl_seconds=body.ttl_seconds)
    response.status_code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
    return KvEntryOut.model_validate(row)


@router.delete("/{key:kv_key}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete one key")
async def delete_kv(
    automation_id: uuid.UUID, key: KeyPath, session: SessionDep, access: SpaceDep
) -> Response:
    access.require(Permissions.write_automations)
    target = await _target(session, access, automation_id)
    if not await kv_service.delete(session, target, key):
        raise NotFound("No such key (or it expired).", code="kv_key_not_found")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
