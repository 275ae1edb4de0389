from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.document_page import DocumentPage
from ...models.error_out import ErrorOut
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime



def _get_kwargs(
    space_id: UUID,
    *,
    tag: list[str] | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
    status: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_tag: list[str] | None | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    elif isinstance(tag, list):
        json_tag = tag


    else:
        json_tag = tag
    params["tag"] = json_tag

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    elif isinstance(since, datetime.datetime):
        json_since = since.isoformat()
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    elif isinstance(until, datetime.datetime):
        json_until = until.isoformat()
    else:
        json_until = until
    params["until"] = json_until

    json_source: None | str | Unset
    if isinstance(source, Unset):
        json_source = UNSET
    else:
        json_source = source
    params["source"] = json_source

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    else:
        json_status = status
    params["status"] = json_status

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
        "url": "/api/v1/spaces/{space_id}/documents".format(space_id=quote(str(space_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DocumentPage | ErrorOut | None:
    if response.status_code == 200:
        response_200 = DocumentPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DocumentPage | ErrorOut]:
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
    tag: list[str] | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
    status: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[DocumentPage | ErrorOut]:
    """ List documents, newest first (filters, cursor pagination)

    Args:
        space_id (UUID):
        tag (list[str] | None | Unset): Documents with all of these.
        since (datetime.datetime | None | Unset): Indexed at or after.
        until (datetime.datetime | None | Unset): Indexed before.
        source (None | str | Unset):
        status (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DocumentPage | ErrorOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
tag=tag,
since=since,
until=until,
source=source,
status=status,
limit=limit,
cursor=cursor,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    tag: list[str] | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
    status: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> DocumentPage | ErrorOut | None:
    """ List documents, newest first (filters, cursor pagination)

    Args:
        space_id (UUID):
        tag (list[str] | None | Unset): Documents with all of these.
        since (datetime.datetime | None | Unset): Indexed at or after.
        until (datetime.datetime | None | Unset): Indexed before.
        source (None | str | Unset):
        status (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DocumentPage | ErrorOut
     """


    return sync_detailed(
        space_id=space_id,
client=client,
tag=tag,
since=since,
until=until,
source=source,
status=status,
limit=limit,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    tag: list[str] | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
    status: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[DocumentPage | ErrorOut]:
    """ List documents, newest first (filters, cursor pagination)

    Args:
        space_id (UUID):
        tag (list[str] | None | Unset): Documents with all of these.
        since (datetime.datetime | None | Unset): Indexed at or after.
        until (datetime.datetime | None | Unset): Indexed before.
        source (None | str | Unset):
        status (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DocumentPage | ErrorOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
tag=tag,
since=since,
until=until,
source=source,
status=status,
limit=limit,
cursor=cursor,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    tag: list[str] | None | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    source: None | str | Unset = UNSET,
    status: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> DocumentPage | ErrorOut | None:
    """ List documents, newest first (filters, cursor pagination)

    Args:
        space_id (UUID):
        tag (list[str] | None | Unset): Documents with all of these.
        since (datetime.datetime | None | Unset): Indexed at or after.
        until (datetime.datetime | None | Unset): Indexed before.
        source (None | str | Unset):
        status (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DocumentPage | ErrorOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
client=client,
tag=tag,
since=since,
until=until,
source=source,
status=status,
limit=limit,
cursor=cursor,

    )).parsed
