from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.run_stats_out import RunStatsOut
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    automation_id: UUID,
    *,
    days: int | Unset = 14,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["days"] = days


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/spaces/{space_id}/automations/{automation_id}/stats".format(space_id=quote(str(space_id), safe=""),automation_id=quote(str(automation_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | RunStatsOut | None:
    if response.status_code == 200:
        response_200 = RunStatsOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | RunStatsOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: UUID,
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    days: int | Unset = 14,

) -> Response[ErrorOut | RunStatsOut]:
    """ Runs per day by status, spend per day and durations of one automation

    Args:
        space_id (UUID):
        automation_id (UUID):
        days (int | Unset): How many UTC days back, today included (1 to 90). Default: 14.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | RunStatsOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
automation_id=automation_id,
days=days,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    days: int | Unset = 14,

) -> ErrorOut | RunStatsOut | None:
    """ Runs per day by status, spend per day and durations of one automation

    Args:
        space_id (UUID):
        automation_id (UUID):
        days (int | Unset): How many UTC days back, today included (1 to 90). Default: 14.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | RunStatsOut
     """


    return sync_detailed(
        space_id=space_id,
automation_id=automation_id,
client=client,
days=days,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    days: int | Unset = 14,

) -> Response[ErrorOut | RunStatsOut]:
    """ Runs per day by status, spend per day and durations of one automation

    Args:
        space_id (UUID):
        automation_id (UUID):
        days (int | Unset): How many UTC days back, today included (1 to 90). Default: 14.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | RunStatsOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
automation_id=automation_id,
days=days,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    days: int | Unset = 14,

) -> ErrorOut | RunStatsOut | None:
    """ Runs per day by status, spend per day and durations of one automation

    Args:
        space_id (UUID):
        automation_id (UUID):
        days (int | Unset): How many UTC days back, today included (1 to 90). Default: 14.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | RunStatsOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
automation_id=automation_id,
client=client,
days=days,

    )).parsed
