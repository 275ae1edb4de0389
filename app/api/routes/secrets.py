"""Secrets of a space: set (admin), list and read metadata (member), delete (admin). Values never leave."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import KeyringDep, PageDep, SessionDep, SpaceDep
from app.api.schemas import PageOut
from app.api.secret_schemas import SecretHostsPut, SecretOut, SecretPut
from app.persistence.models import Secret
from app.services.resources.secrets import NAME_PATTERN, secret_service

router = APIRouter(prefix="/spaces/{space_id}/secrets", tags=["secrets"], route_class=JsonBodyRoute)

SecretName = Annotated[str, Path(pattern=NAME_PATTERN, description="1 to 64 characters of a-z, 0-9, _.")]


@router.put(
    "/{name}",
    summary="Create (201) or replace (200) a secret (admin)",
    responses={status.HTTP_201_CREATED: {"model": SecretOut, "description": "Created"}},
)
async def put_secret(
    name: SecretName,
    body: SecretPut,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
    response: Response,
) -> SecretOut:
    written = await secret_service.put(
        session,
        access,
        keyring,
        name=name,
        value=body.value.get_secret_value(),
        description=body.description,
        hosts=body.hosts,
    )
    if written.created:
        response.status_code = status.HTTP_201_CREATED
        response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/secrets/{name}"
    return SecretOut.model_validate(written.secret)


@router.put("/{name}/hosts", summary="Bind a secret to the hosts its value may be sent to (admin)")
async def put_secret_hosts(
    name: SecretName, body: SecretHostsPut, session: SessionDep, access: SpaceDep
) -> SecretOut:
    return SecretOut.model_validate(await secret_service.set_hosts(session, access, name, body.hosts))


@router.get("", summary="List the space's secrets (names and metadata, never values)")
async def list_secrets(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[SecretOut]:
    result = await secret_service.list(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(items=await _described(session, access, result.items), next_cursor=result.next_cursor)


@router.get("/{name}", summary="Get a secret's metadata (never its value)")
async def get_secret(name: SecretName, session: SessionDep, access: SpaceDep) -> SecretOut:
    [described] = await _described(session, access, [await secret_service.get(session, access, name)])
    return described


async def _described(session: SessionDep, access: SpaceDep, secrets: Sequence[Secret]) -> list[SecretOut]:
    suggested = await secret_service.suggested_hosts(session, access, secrets)
    return [
        SecretOut.model_validate(secret).model_copy(
            update={"suggested_hosts": [suggested[secret.name]] if secret.name in suggested else []}
        )
        for secret in secrets
    ]


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a secret (admin)")
async def delete_secret(name: SecretName, session: SessionDep, access: SpaceDep) -> Response:
    await secret_service.delete(session, access, name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
