"""Webhook endpoints of a space (Standard Webhooks): CRUD, secret rotation, test, deliveries log."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import KeyringDep, PageDep, SessionDep, SettingsDep, SpaceDep
from app.api.outbound_schemas import (
    CallbackSecretOut,
    WebhookDeliveryOut,
    WebhookEndpointCreate,
    WebhookEndpointOut,
    WebhookEndpointPatch,
    WebhookEndpointWithSecretOut,
    delivery_out,
)
from app.api.schemas import PageOut
from app.services.outbound.deliveries import delivery_service
from app.services.outbound.endpoints import EndpointWithSecret, UrlPolicy, webhook_endpoint_service

router = APIRouter(
    prefix="/spaces/{space_id}/webhook-endpoints", tags=["webhook endpoints"], route_class=JsonBodyRoute
)
DeliveryStatus = Literal["pending", "succeeded", "failed"]


def _with_secret(created: EndpointWithSecret) -> WebhookEndpointWithSecretOut:
    shown = WebhookEndpointOut.model_validate(created.endpoint).model_dump()
    return WebhookEndpointWithSecretOut(**shown, secret=created.secret)


# The deliveries routes come first: `deliveries` must not be read as an endpoint id.
@router.get("/deliveries", summary="Deliveries of the space, newest first, with their attempts")
async def list_space_deliveries(
    session: SessionDep,
    access: SpaceDep,
    page: PageDep,
    delivery_status: Annotated[DeliveryStatus | None, Query(alias="status")] = None,
    run_id: uuid.UUID | None = None,
) -> PageOut[WebhookDeliveryOut]:
    result, attempts = await delivery_service.list(
        session,
        access,
        endpoint_id=None,
        run_id=run_id,
        status=delivery_status,
        limit=page.limit,
        cursor=page.cursor,
    )
    items = [delivery_out(d, attempts[d.id]) for d in result.items]
    return PageOut(items=items, next_cursor=result.next_cursor)


@router.post(
    "/deliveries/{delivery_id}/redeliver",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Send a finished delivery again: one more attempt, same webhook-id (admin)",
)
async def redeliver(delivery_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> WebhookDeliveryOut:
    delivery = await delivery_service.redeliver(session, access, delivery_id)
    return delivery_out(delivery, [])


@router.post(
    "/callback-secret",
    summary="Create or rotate the secret that signs per-run callbacks; shown once (admin)",
)
async def rotate_callback_secret(
    session: SessionDep, access: SpaceDep, keyring: KeyringDep
) -> CallbackSecretOut:
    row, secret = await webhook_endpoint_service.rotate_callback_secret(session, access, keyring)
    return CallbackSecretOut(secret=secret, previous_secret_expires_at=row.previous_secret_expires_at)


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    summary="Create an endpoint (admin); the answer shows its signing secret, once",
)
async def create_endpoint(
    body: WebhookEndpointCreate,
    settings: SettingsDep,
    response: Response,
    session: SessionDep,
    access: SpaceDep,
    keyring: KeyringDep,
) -> WebhookEndpointWithSecretOut:
    created = await webhook_endpoint_service.create(
        session,
        access,
        keyring,
        UrlPolicy.from_settings(settings),
        url=body.url,
        events=body.events,
        automation_ids=body.automation_ids,
        description=body.description,
    )
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/webhook-endpoints/{created.endpoint.id}"
    return _with_secret(created)


@router.get("", summary="List the space's endpoints (never their secrets)")
async def list_endpoints(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[WebhookEndpointOut]:
    result = await webhook_endpoint_service.list(session, access, limit=page.limit, cursor=page.cursor)
    items = [WebhookEndpointOut.model_validate(e) for e in result.items]
    return PageOut(items=items, next_cursor=result.next_cursor)


@router.get("/{endpoint_id:uuid}", summary="Get an endpoint")
async def get_endpoint(endpoint_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> WebhookEndpointOut:
    return WebhookEndpointOut.model_validate(await webhook_endpoint_service.get(session, access, endpoint_id))


@router.patch("/{endpoint_id:uuid}", summary="Change url, events, filter, description or enabled (admin)")
async def update_endpoint(
    endpoint_id: uuid.UUID,
    body: WebhookEndpointPatch,
    settings: SettingsDep,
    session: SessionDep,
    access: SpaceDep,
) -> WebhookEndpointOut:
    # Only fields the body names change; null clears the automation filter and the description.
    changes = {
        name: getattr(body, name)
        for name in body.model_fields_set
        if getattr(body, name) is not None or name in ("automation_ids", "description")
    }
    endpoint = await webhook_endpoint_service.update(
        session, access, UrlPolicy.from_settings(settings), endpoint_id, changes=changes
    )
    return WebhookEndpointOut.model_validate(endpoint)


@router.delete(
    "/{endpoint_id:uuid}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete an endpoint (admin)"
)
async def delete_endpoint(endpoint_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await webhook_endpoint_service.delete(session, access, endpoint_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{endpoint_id:uuid}/rotate-secret",
    summary="A new signing secret, shown once; the old one keeps signing for 24 hours (admin)",
)
async def rotate_secret(
    endpoint_id: uuid.UUID, session: SessionDep, access: SpaceDep, keyring: KeyringDep
) -> WebhookEndpointWithSecretOut:
    return _with_secret(await webhook_endpoint_service.rotate_secret(session, access, keyring, endpoint_id))


@router.post(
    "/{endpoint_id:uuid}/test",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Send a webhook.test event to the endpoint (admin)",
)
async def test_endpoint(endpoint_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> WebhookDeliveryOut:
    return delivery_out(await delivery_service.send_test(session, access, endpoint_id), [])


@router.get(
    "/{endpoint_id:uuid}/deliveries", summary="The endpoint's deliveries, newest first, with attempts"
)
async def list_endpoint_deliveries(
    endpoint_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    page: PageDep,
    delivery_status: Annotated[DeliveryStatus | None, Query(alias="status")] = None,
) -> PageOut[WebhookDeliveryOut]:
    result, attempts = await delivery_service.list(
        session,
        access,
        endpoint_id=endpoint_id,
        run_id=None,
        status=delivery_status,
        limit=page.limit,
        cursor=page.cursor,
    )
    items = [delivery_out(d, attempts[d.id]) for d in result.items]
    return PageOut(items=items, next_cursor=result.next_cursor)
