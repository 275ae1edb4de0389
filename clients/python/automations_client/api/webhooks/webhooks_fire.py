from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.fire_out import FireOut
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    automation_id: UUID,
    *,
    callback_url: None | str | Unset = UNSET,
    priority: int | Unset = 0,
    wait: float | Unset = 0.0,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    params: dict[str, Any] = {}

    json_callback_url: None | str | Unset
    if isinstance(callback_url, Unset):
        json_callback_url = UNSET
    else:
        json_callback_url = callback_url
    params["callback_url"] = json_callback_url

    params["priority"] = priority

    params["wait"] = wait


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/automations/{automation_id}/fire".format(automation_id=quote(str(automation_id), safe=""),),
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | FireOut | None:
    if response.status_code == 202:
        response_202 = FireOut.from_dict(response.json())



        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | FireOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    callback_url: None | str | Unset = UNSET,
    priority: int | Unset = 0,
    wait: float | Unset = 0.0,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorOut | FireOut]:
    """ Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)

    Args:
        automation_id (UUID):
        callback_url (None | str | Unset): Also deliver the run's terminal event here.
        priority (int | Unset): Place in the queue if queued (higher first). Default: 0.
        wait (float | Unset): Answer 200 with the finished run if it ends within this many
            seconds. Default: 0.0.
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | FireOut]
     """


    kwargs = _get_kwargs(
        automation_id=automation_id,
callback_url=callback_url,
priority=priority,
wait=wait,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    callback_url: None | str | Unset = UNSET,
    priority: int | Unset = 0,
    wait: float | Unset = 0.0,
    idempotency_key: str | Unset = UNSET,

) -> ErrorOut | FireOut | None:
    """ Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)

    Args:
        automation_id (UUID):
        callback_url (None | str | Unset): Also deliver the run's terminal event here.
        priority (int | Unset): Place in the queue if queued (higher first). Default: 0.
        wait (float | Unset): Answer 200 with the finished run if it ends within this many
            seconds. Default: 0.0.
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | FireOut
     """


    return sync_detailed(
        automation_id=automation_id,
client=client,
callback_url=callback_url,
priority=priority,
wait=wait,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    callback_url: None | str | Unset = UNSET,
    priority: int | Unset = 0,
    wait: float | Unset = 0.0,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorOut | FireOut]:
    """ Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)

    Args:
        automation_id (UUID):
        callback_url (None | str | Unset): Also deliver the run's terminal event here.
        priority (int | Unset): Place in the queue if queued (higher first). Default: 0.
        wait (float | Unset): Answer 200 with the finished run if it ends within this many
            seconds. Default: 0.0.
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | FireOut]
     """


    kwargs = _get_kwargs(
        automation_id=automation_id,
callback_url=callback_url,
priority=priority,
wait=wait,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    automation_id: UUID,
    *,
    client: AuthenticatedClient,
    callback_url: None | str | Unset = UNSET,
    priority: int | Unset = 0,
    wait: float | Unset = 0.0,
    idempotency_key: str | Unset = UNSET,

) -> ErrorOut | FireOut | None:
    """ Fire a webhook trigger (202 with the new run; 200 when the idempotency key repeats)

    Args:
        automation_id (UUID):
        callback_url (None | str | Unset): Also deliver the run's terminal event here.
        priority (int | Unset): Place in the queue if queued (higher first). Default: 0.
        wait (float | Unset): Answer 200 with the finished run if it ends within this many
            seconds. Default: 0.0.
        idempotency_key (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | FireOut
     """


    return (await asyncio_detailed(
        automation_id=automation_id,
client=client,
callback_url=callback_url,
priority=priority,
wait=wait,
idempotency_key=idempotency_key,

    )).parsed
