from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.secret_out import SecretOut
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    name: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/spaces/{space_id}/secrets/{name}".format(space_id=quote(str(space_id), safe=""),name=quote(str(name), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | SecretOut | None:
    if response.status_code == 200:
        response_200 = SecretOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | SecretOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorOut | SecretOut]:
    """ Get a secret's metadata (never its value)

    Args:
        space_id (UUID):
        name (str): 1 to 64 characters of a-z, 0-9, _.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | SecretOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
name=name,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,

) -> ErrorOut | SecretOut | None:
    """ Get a secret's metadata (never its value)

    Args:
        space_id (UUID):
        name (str): 1 to 64 characters of a-z, 0-9, _.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | SecretOut
     """


    return sync_detailed(
        space_id=space_id,
name=name,
client=client,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorOut | SecretOut]:
    """ Get a secret's metadata (never its value)

    Args:
        space_id (UUID):
        name (str): 1 to 64 characters of a-z, 0-9, _.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | SecretOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
name=name,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    name: str,
    *,
    client: AuthenticatedClient,

) -> ErrorOut | SecretOut | None:
    """ Get a secret's metadata (never its value)

    Args:
        space_id (UUID):
        name (str): 1 to 64 characters of a-z, 0-9, _.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | SecretOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
name=name,
client=client,

    )).parsed
