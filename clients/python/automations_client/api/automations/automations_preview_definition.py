from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.definition_preview_create import DefinitionPreviewCreate
from ...models.error_out import ErrorOut
from ...models.preview_out import PreviewOut
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    *,
    body: DefinitionPreviewCreate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/spaces/{space_id}/automations/preview".format(space_id=quote(str(space_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | PreviewOut | None:
    if response.status_code == 200:
        response_200 = PreviewOut.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorOut.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorOut.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorOut.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = ErrorOut.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorOut.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = ErrorOut.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = ErrorOut.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = ErrorOut.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorOut.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorOut.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | PreviewOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DefinitionPreviewCreate,

) -> Response[ErrorOut | PreviewOut]:
    """ Preview a definition that is not saved (nothing runs, nothing is written)

    Args:
        space_id (UUID):
        body (DefinitionPreviewCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PreviewOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DefinitionPreviewCreate,

) -> ErrorOut | PreviewOut | None:
    """ Preview a definition that is not saved (nothing runs, nothing is written)

    Args:
        space_id (UUID):
        body (DefinitionPreviewCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PreviewOut
     """


    return sync_detailed(
        space_id=space_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DefinitionPreviewCreate,

) -> Response[ErrorOut | PreviewOut]:
    """ Preview a definition that is not saved (nothing runs, nothing is written)

    Args:
        space_id (UUID):
        body (DefinitionPreviewCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PreviewOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DefinitionPreviewCreate,

) -> ErrorOut | PreviewOut | None:
    """ Preview a definition that is not saved (nothing runs, nothing is written)

    Args:
        space_id (UUID):
        body (DefinitionPreviewCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PreviewOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
client=client,
body=body,

    )).parsed
