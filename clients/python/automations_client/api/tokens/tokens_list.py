from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.page_out_token_out import PageOutTokenOut
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_limit: int | None | Unset
    if isinstance(limit, Unset):
        json_limit = UNSET
    else:
        json_limit = limit
    params["limit"] = json_limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/tokens",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | PageOutTokenOut | None:
    if response.status_code == 200:
        response_200 = PageOutTokenOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | PageOutTokenOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[ErrorOut | PageOutTokenOut]:
    """ List your API tokens (never their secret)

    Args:
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PageOutTokenOut]
     """


    kwargs = _get_kwargs(
        limit=limit,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> ErrorOut | PageOutTokenOut | None:
    """ List your API tokens (never their secret)

    Args:
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PageOutTokenOut
     """


    return sync_detailed(
        client=client,
limit=limit,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[ErrorOut | PageOutTokenOut]:
    """ List your API tokens (never their secret)

    Args:
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PageOutTokenOut]
     """


    kwargs = _get_kwargs(
        limit=limit,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> ErrorOut | PageOutTokenOut | None:
    """ List your API tokens (never their secret)

    Args:
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PageOutTokenOut
     """


    return (await asyncio_detailed(
        client=client,
limit=limit,
cursor=cursor,

    )).parsed
