from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.slack_interaction_response_slack_interaction import SlackInteractionResponseSlackInteraction
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    *,
    x_slack_request_timestamp: str | Unset = UNSET,
    x_slack_signature: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_slack_request_timestamp, Unset):
        headers["X-Slack-Request-Timestamp"] = x_slack_request_timestamp

    if not isinstance(x_slack_signature, Unset):
        headers["X-Slack-Signature"] = x_slack_signature



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/integrations/slack/interactions/{space_id}".format(space_id=quote(str(space_id), safe=""),),
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | SlackInteractionResponseSlackInteraction | None:
    if response.status_code == 200:
        response_200 = SlackInteractionResponseSlackInteraction.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | SlackInteractionResponseSlackInteraction]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_slack_request_timestamp: str | Unset = UNSET,
    x_slack_signature: str | Unset = UNSET,

) -> Response[ErrorOut | SlackInteractionResponseSlackInteraction]:
    """ Slack's interactivity Request URL: Approve and Deny buttons (signed by Slack)

    Args:
        space_id (UUID):
        x_slack_request_timestamp (str | Unset):
        x_slack_signature (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | SlackInteractionResponseSlackInteraction]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
x_slack_request_timestamp=x_slack_request_timestamp,
x_slack_signature=x_slack_signature,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_slack_request_timestamp: str | Unset = UNSET,
    x_slack_signature: str | Unset = UNSET,

) -> ErrorOut | SlackInteractionResponseSlackInteraction | None:
    """ Slack's interactivity Request URL: Approve and Deny buttons (signed by Slack)

    Args:
        space_id (UUID):
        x_slack_request_timestamp (str | Unset):
        x_slack_signature (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | SlackInteractionResponseSlackInteraction
     """


    return sync_detailed(
        space_id=space_id,
client=client,
x_slack_request_timestamp=x_slack_request_timestamp,
x_slack_signature=x_slack_signature,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_slack_request_timestamp: str | Unset = UNSET,
    x_slack_signature: str | Unset = UNSET,

) -> Response[ErrorOut | SlackInteractionResponseSlackInteraction]:
    """ Slack's interactivity Request URL: Approve and Deny buttons (signed by Slack)

    Args:
        space_id (UUID):
        x_slack_request_timestamp (str | Unset):
        x_slack_signature (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | SlackInteractionResponseSlackInteraction]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
x_slack_request_timestamp=x_slack_request_timestamp,
x_slack_signature=x_slack_signature,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_slack_request_timestamp: str | Unset = UNSET,
    x_slack_signature: str | Unset = UNSET,

) -> ErrorOut | SlackInteractionResponseSlackInteraction | None:
    """ Slack's interactivity Request URL: Approve and Deny buttons (signed by Slack)

    Args:
        space_id (UUID):
        x_slack_request_timestamp (str | Unset):
        x_slack_signature (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | SlackInteractionResponseSlackInteraction
     """


    return (await asyncio_detailed(
        space_id=space_id,
client=client,
x_slack_request_timestamp=x_slack_request_timestamp,
x_slack_signature=x_slack_signature,

    )).parsed
