from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.callback_out import CallbackOut
from ...models.completion_body import CompletionBody
from ...models.error_out import ErrorOut
from typing import cast



def _get_kwargs(
    *,
    body: CompletionBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/mcp/oauth/complete",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CallbackOut | ErrorOut | None:
    if response.status_code == 200:
        response_200 = CallbackOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CallbackOut | ErrorOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CompletionBody,

) -> Response[CallbackOut | ErrorOut]:
    """ Complete an OAuth authorization you started (the web UI calls it from the callback)

     Only the user who started the authorization (`POST …/authorize`) can complete it, and only within 10
    minutes of starting it: anyone else is refused with 403 `oauth_started_by_another_user`, a late
    completion with 409 `oauth_state_expired`; either ends the flow, so its code can never be exchanged.
    The starter must still be an admin of the connection's space.

    Args:
        body (CompletionBody): What the authorization server sent back to the callback, handed on
            by the web UI.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CallbackOut | ErrorOut]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: CompletionBody,

) -> CallbackOut | ErrorOut | None:
    """ Complete an OAuth authorization you started (the web UI calls it from the callback)

     Only the user who started the authorization (`POST …/authorize`) can complete it, and only within 10
    minutes of starting it: anyone else is refused with 403 `oauth_started_by_another_user`, a late
    completion with 409 `oauth_state_expired`; either ends the flow, so its code can never be exchanged.
    The starter must still be an admin of the connection's space.

    Args:
        body (CompletionBody): What the authorization server sent back to the callback, handed on
            by the web UI.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CallbackOut | ErrorOut
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CompletionBody,

) -> Response[CallbackOut | ErrorOut]:
    """ Complete an OAuth authorization you started (the web UI calls it from the callback)

     Only the user who started the authorization (`POST …/authorize`) can complete it, and only within 10
    minutes of starting it: anyone else is refused with 403 `oauth_started_by_another_user`, a late
    completion with 409 `oauth_state_expired`; either ends the flow, so its code can never be exchanged.
    The starter must still be an admin of the connection's space.

    Args:
        body (CompletionBody): What the authorization server sent back to the callback, handed on
            by the web UI.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CallbackOut | ErrorOut]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CompletionBody,

) -> CallbackOut | ErrorOut | None:
    """ Complete an OAuth authorization you started (the web UI calls it from the callback)

     Only the user who started the authorization (`POST …/authorize`) can complete it, and only within 10
    minutes of starting it: anyone else is refused with 403 `oauth_started_by_another_user`, a late
    completion with 409 `oauth_state_expired`; either ends the flow, so its code can never be exchanged.
    The starter must still be an admin of the connection's space.

    Args:
        body (CompletionBody): What the authorization server sent back to the callback, handed on
            by the web UI.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CallbackOut | ErrorOut
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
