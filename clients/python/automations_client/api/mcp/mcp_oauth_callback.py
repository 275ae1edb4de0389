from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    state: None | str | Unset = UNSET,
    code: None | str | Unset = UNSET,
    iss: None | str | Unset = UNSET,
    error: None | str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_state: None | str | Unset
    if isinstance(state, Unset):
        json_state = UNSET
    else:
        json_state = state
    params["state"] = json_state

    json_code: None | str | Unset
    if isinstance(code, Unset):
        json_code = UNSET
    else:
        json_code = code
    params["code"] = json_code

    json_iss: None | str | Unset
    if isinstance(iss, Unset):
        json_iss = UNSET
    else:
        json_iss = iss
    params["iss"] = json_iss

    json_error: None | str | Unset
    if isinstance(error, Unset):
        json_error = UNSET
    else:
        json_error = error
    params["error"] = json_error


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/mcp/oauth/callback",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorOut | None:
    if response.status_code == 303:
        response_303 = cast(Any, None)
        return response_303

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    state: None | str | Unset = UNSET,
    code: None | str | Unset = UNSET,
    iss: None | str | Unset = UNSET,
    error: None | str | Unset = UNSET,

) -> Response[Any | ErrorOut]:
    """ Where the authorization server sends the user back: on to the web UI, which completes

     Completes nothing itself: it sends the browser on (303) to the web UI's `/connections/mcp-oauth`
    page with the same `state`, `code`, `iss` and `error`, where the signed-in user's token completes
    the flow through `POST /api/v1/mcp/oauth/complete`. A callback without a state is refused (JSON, or
    a small page for a browser).

    Args:
        state (None | str | Unset):
        code (None | str | Unset):
        iss (None | str | Unset):
        error (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
     """


    kwargs = _get_kwargs(
        state=state,
code=code,
iss=iss,
error=error,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    state: None | str | Unset = UNSET,
    code: None | str | Unset = UNSET,
    iss: None | str | Unset = UNSET,
    error: None | str | Unset = UNSET,

) -> Any | ErrorOut | None:
    """ Where the authorization server sends the user back: on to the web UI, which completes

     Completes nothing itself: it sends the browser on (303) to the web UI's `/connections/mcp-oauth`
    page with the same `state`, `code`, `iss` and `error`, where the signed-in user's token completes
    the flow through `POST /api/v1/mcp/oauth/complete`. A callback without a state is refused (JSON, or
    a small page for a browser).

    Args:
        state (None | str | Unset):
        code (None | str | Unset):
        iss (None | str | Unset):
        error (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
     """


    return sync_detailed(
        client=client,
state=state,
code=code,
iss=iss,
error=error,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    state: None | str | Unset = UNSET,
    code: None | str | Unset = UNSET,
    iss: None | str | Unset = UNSET,
    error: None | str | Unset = UNSET,

) -> Response[Any | ErrorOut]:
    """ Where the authorization server sends the user back: on to the web UI, which completes

     Completes nothing itself: it sends the browser on (303) to the web UI's `/connections/mcp-oauth`
    page with the same `state`, `code`, `iss` and `error`, where the signed-in user's token completes
    the flow through `POST /api/v1/mcp/oauth/complete`. A callback without a state is refused (JSON, or
    a small page for a browser).

    Args:
        state (None | str | Unset):
        code (None | str | Unset):
        iss (None | str | Unset):
        error (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
     """


    kwargs = _get_kwargs(
        state=state,
code=code,
iss=iss,
error=error,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    state: None | str | Unset = UNSET,
    code: None | str | Unset = UNSET,
    iss: None | str | Unset = UNSET,
    error: None | str | Unset = UNSET,

) -> Any | ErrorOut | None:
    """ Where the authorization server sends the user back: on to the web UI, which completes

     Completes nothing itself: it sends the browser on (303) to the web UI's `/connections/mcp-oauth`
    page with the same `state`, `code`, `iss` and `error`, where the signed-in user's token completes
    the flow through `POST /api/v1/mcp/oauth/complete`. A callback without a state is refused (JSON, or
    a small page for a browser).

    Args:
        state (None | str | Unset):
        code (None | str | Unset):
        iss (None | str | Unset):
        error (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
     """


    return (await asyncio_detailed(
        client=client,
state=state,
code=code,
iss=iss,
error=error,

    )).parsed
