from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.approvals_list_status_type_0_item import ApprovalsListStatusType0Item
from ...models.error_out import ErrorOut
from ...models.page_out_approval_out import PageOutApprovalOut
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    *,
    run_id: None | Unset | UUID = UNSET,
    status: list[ApprovalsListStatusType0Item] | None | Unset = UNSET,
    capability: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_run_id: None | str | Unset
    if isinstance(run_id, Unset):
        json_run_id = UNSET
    elif isinstance(run_id, UUID):
        json_run_id = str(run_id)
    else:
        json_run_id = run_id
    params["run_id"] = json_run_id

    json_status: list[str] | None | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, list):
        json_status = []
        for status_type_0_item_data in status:
            status_type_0_item = status_type_0_item_data.value
            json_status.append(status_type_0_item)


    else:
        json_status = status
    params["status"] = json_status

    json_capability: None | str | Unset
    if isinstance(capability, Unset):
        json_capability = UNSET
    else:
        json_capability = capability
    params["capability"] = json_capability

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
        "url": "/api/v1/spaces/{space_id}/approvals".format(space_id=quote(str(space_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | PageOutApprovalOut | None:
    if response.status_code == 200:
        response_200 = PageOutApprovalOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | PageOutApprovalOut]:
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
    run_id: None | Unset | UUID = UNSET,
    status: list[ApprovalsListStatusType0Item] | None | Unset = UNSET,
    capability: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[ErrorOut | PageOutApprovalOut]:
    """ The inbox: calls that need a human (pending by default), newest first

    Args:
        space_id (UUID):
        run_id (None | Unset | UUID):
        status (list[ApprovalsListStatusType0Item] | None | Unset): Repeat to combine.
        capability (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PageOutApprovalOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
run_id=run_id,
status=status,
capability=capability,
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
    run_id: None | Unset | UUID = UNSET,
    status: list[ApprovalsListStatusType0Item] | None | Unset = UNSET,
    capability: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> ErrorOut | PageOutApprovalOut | None:
    """ The inbox: calls that need a human (pending by default), newest first

    Args:
        space_id (UUID):
        run_id (None | Unset | UUID):
        status (list[ApprovalsListStatusType0Item] | None | Unset): Repeat to combine.
        capability (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PageOutApprovalOut
     """


    return sync_detailed(
        space_id=space_id,
client=client,
run_id=run_id,
status=status,
capability=capability,
limit=limit,
cursor=cursor,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    run_id: None | Unset | UUID = UNSET,
    status: list[ApprovalsListStatusType0Item] | None | Unset = UNSET,
    capability: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> Response[ErrorOut | PageOutApprovalOut]:
    """ The inbox: calls that need a human (pending by default), newest first

    Args:
        space_id (UUID):
        run_id (None | Unset | UUID):
        status (list[ApprovalsListStatusType0Item] | None | Unset): Repeat to combine.
        capability (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PageOutApprovalOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
run_id=run_id,
status=status,
capability=capability,
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
    run_id: None | Unset | UUID = UNSET,
    status: list[ApprovalsListStatusType0Item] | None | Unset = UNSET,
    capability: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    cursor: None | str | Unset = UNSET,

) -> ErrorOut | PageOutApprovalOut | None:
    """ The inbox: calls that need a human (pending by default), newest first

    Args:
        space_id (UUID):
        run_id (None | Unset | UUID):
        status (list[ApprovalsListStatusType0Item] | None | Unset): Repeat to combine.
        capability (None | str | Unset):
        limit (int | None | Unset): Items per page.
        cursor (None | str | Unset): next_cursor of the previous page (only a cursor this listing
            issued is valid).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PageOutApprovalOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
client=client,
run_id=run_id,
status=status,
capability=capability,
limit=limit,
cursor=cursor,

    )).parsed
