from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_out import ErrorOut
from ...models.overlap_check_out import OverlapCheckOut
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    space_id: UUID,
    *,
    automation_id: None | Unset | UUID = UNSET,
    http: list[str] | None | Unset = UNSET,
    slack_channel: list[str] | None | Unset = UNSET,
    email_to: list[str] | None | Unset = UNSET,
    tool: list[str] | None | Unset = UNSET,
    trigger_kind: None | str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_automation_id: None | str | Unset
    if isinstance(automation_id, Unset):
        json_automation_id = UNSET
    elif isinstance(automation_id, UUID):
        json_automation_id = str(automation_id)
    else:
        json_automation_id = automation_id
    params["automation_id"] = json_automation_id

    json_http: list[str] | None | Unset
    if isinstance(http, Unset):
        json_http = UNSET
    elif isinstance(http, list):
        json_http = http


    else:
        json_http = http
    params["http"] = json_http

    json_slack_channel: list[str] | None | Unset
    if isinstance(slack_channel, Unset):
        json_slack_channel = UNSET
    elif isinstance(slack_channel, list):
        json_slack_channel = slack_channel


    else:
        json_slack_channel = slack_channel
    params["slack_channel"] = json_slack_channel

    json_email_to: list[str] | None | Unset
    if isinstance(email_to, Unset):
        json_email_to = UNSET
    elif isinstance(email_to, list):
        json_email_to = email_to


    else:
        json_email_to = email_to
    params["email_to"] = json_email_to

    json_tool: list[str] | None | Unset
    if isinstance(tool, Unset):
        json_tool = UNSET
    elif isinstance(tool, list):
        json_tool = tool


    else:
        json_tool = tool
    params["tool"] = json_tool

    json_trigger_kind: None | str | Unset
    if isinstance(trigger_kind, Unset):
        json_trigger_kind = UNSET
    else:
        json_trigger_kind = trigger_kind
    params["trigger_kind"] = json_trigger_kind


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/spaces/{space_id}/automations/overlaps".format(space_id=quote(str(space_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorOut | OverlapCheckOut | None:
    if response.status_code == 200:
        response_200 = OverlapCheckOut.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorOut | OverlapCheckOut]:
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
    automation_id: None | Unset | UUID = UNSET,
    http: list[str] | None | Unset = UNSET,
    slack_channel: list[str] | None | Unset = UNSET,
    email_to: list[str] | None | Unset = UNSET,
    tool: list[str] | None | Unset = UNSET,
    trigger_kind: None | str | Unset = UNSET,

) -> Response[ErrorOut | OverlapCheckOut]:
    """ Which automations would write where an automation or a candidate does

    Args:
        space_id (UUID):
        automation_id (None | Unset | UUID): Check a saved automation (left out of its own
            answer).
        http (list[str] | None | Unset): Repeat for several. 'METHOD URL' of an HTTP write; the
            URL's query is ignored.
        slack_channel (list[str] | None | Unset): Repeat for several. A Slack channel.
        email_to (list[str] | None | Unset): Repeat for several. A mail recipient.
        tool (list[str] | None | Unset): Repeat for several. A tool's capability id, optionally
            followed by a space and a JSON object of its literal key arguments: crm.create_note
            {"customer": "42"}.
        trigger_kind (None | str | Unset): Only automations with an enabled trigger of this kind.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | OverlapCheckOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
automation_id=automation_id,
http=http,
slack_channel=slack_channel,
email_to=email_to,
tool=tool,
trigger_kind=trigger_kind,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    automation_id: None | Unset | UUID = UNSET,
    http: list[str] | None | Unset = UNSET,
    slack_channel: list[str] | None | Unset = UNSET,
    email_to: list[str] | None | Unset = UNSET,
    tool: list[str] | None | Unset = UNSET,
    trigger_kind: None | str | Unset = UNSET,

) -> ErrorOut | OverlapCheckOut | None:
    """ Which automations would write where an automation or a candidate does

    Args:
        space_id (UUID):
        automation_id (None | Unset | UUID): Check a saved automation (left out of its own
            answer).
        http (list[str] | None | Unset): Repeat for several. 'METHOD URL' of an HTTP write; the
            URL's query is ignored.
        slack_channel (list[str] | None | Unset): Repeat for several. A Slack channel.
        email_to (list[str] | None | Unset): Repeat for several. A mail recipient.
        tool (list[str] | None | Unset): Repeat for several. A tool's capability id, optionally
            followed by a space and a JSON object of its literal key arguments: crm.create_note
            {"customer": "42"}.
        trigger_kind (None | str | Unset): Only automations with an enabled trigger of this kind.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | OverlapCheckOut
     """


    return sync_detailed(
        space_id=space_id,
client=client,
automation_id=automation_id,
http=http,
slack_channel=slack_channel,
email_to=email_to,
tool=tool,
trigger_kind=trigger_kind,

    ).parsed

async def asyncio_detailed(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    automation_id: None | Unset | UUID = UNSET,
    http: list[str] | None | Unset = UNSET,
    slack_channel: list[str] | None | Unset = UNSET,
    email_to: list[str] | None | Unset = UNSET,
    tool: list[str] | None | Unset = UNSET,
    trigger_kind: None | str | Unset = UNSET,

) -> Response[ErrorOut | OverlapCheckOut]:
    """ Which automations would write where an automation or a candidate does

    Args:
        space_id (UUID):
        automation_id (None | Unset | UUID): Check a saved automation (left out of its own
            answer).
        http (list[str] | None | Unset): Repeat for several. 'METHOD URL' of an HTTP write; the
            URL's query is ignored.
        slack_channel (list[str] | None | Unset): Repeat for several. A Slack channel.
        email_to (list[str] | None | Unset): Repeat for several. A mail recipient.
        tool (list[str] | None | Unset): Repeat for several. A tool's capability id, optionally
            followed by a space and a JSON object of its literal key arguments: crm.create_note
            {"customer": "42"}.
        trigger_kind (None | str | Unset): Only automations with an enabled trigger of this kind.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | OverlapCheckOut]
     """


    kwargs = _get_kwargs(
        space_id=space_id,
automation_id=automation_id,
http=http,
slack_channel=slack_channel,
email_to=email_to,
tool=tool,
trigger_kind=trigger_kind,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    space_id: UUID,
    *,
    client: AuthenticatedClient,
    automation_id: None | Unset | UUID = UNSET,
    http: list[str] | None | Unset = UNSET,
    slack_channel: list[str] | None | Unset = UNSET,
    email_to: list[str] | None | Unset = UNSET,
    tool: list[str] | None | Unset = UNSET,
    trigger_kind: None | str | Unset = UNSET,

) -> ErrorOut | OverlapCheckOut | None:
    """ Which automations would write where an automation or a candidate does

    Args:
        space_id (UUID):
        automation_id (None | Unset | UUID): Check a saved automation (left out of its own
            answer).
        http (list[str] | None | Unset): Repeat for several. 'METHOD URL' of an HTTP write; the
            URL's query is ignored.
        slack_channel (list[str] | None | Unset): Repeat for several. A Slack channel.
        email_to (list[str] | None | Unset): Repeat for several. A mail recipient.
        tool (list[str] | None | Unset): Repeat for several. A tool's capability id, optionally
            followed by a space and a JSON object of its literal key arguments: crm.create_note
            {"customer": "42"}.
        trigger_kind (None | str | Unset): Only automations with an enabled trigger of this kind.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | OverlapCheckOut
     """


    return (await asyncio_detailed(
        space_id=space_id,
client=client,
automation_id=automation_id,
http=http,
slack_channel=slack_channel,
email_to=email_to,
tool=tool,
trigger_kind=trigger_kind,

    )).parsed
