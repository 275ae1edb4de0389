"""Space input defaults: what an input whose default is `$space_default` takes in this space's runs."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import SessionDep, SpaceDep
from app.api.fields import InputName
from app.api.input_default_schemas import InputDefaultOut, InputDefaultPut
from app.api.schemas import ListOut
from app.services.automations.input_defaults import input_default_service

router = APIRouter(prefix="/spaces/{space_id}/input-defaults", tags=["spaces"], route_class=JsonBodyRoute)
# Loose on purpose: the service decides what a name may be, so a bad one is a 422 naming it, not a 404.
NamePath = InputName


@router.get("", summary="The space's input defaults, by name (members)")
async def list_input_defaults(session: SessionDep, access: SpaceDep) -> ListOut[InputDefaultOut]:
    rows = await input_default_service.list(session, access)
    return ListOut(items=[InputDefaultOut.model_validate(row) for row in rows])


@router.put(
    "/{name}",
    summary="Create (201) or replace (200) one input default (admin)",
    responses={status.HTTP_201_CREATED: {"model": InputDefaultOut, "description": "Created"}},
)
async def put_input_default(
    name: NamePath, body: InputDefaultPut, session: SessionDep, access: SpaceDep, response: Response
) -> InputDefaultOut:
    row, created = await input_default_service.put(session, access, name, body.value)
    response.status_code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    return InputDefaultOut.model_validate(row)


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT, summary="Remove one input default (admin)")
async def delete_input_default(name: NamePath, session: SessionDep, access: SpaceDep) -> Response:
    await input_default_service.delete(session, access, name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
