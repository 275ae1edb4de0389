"""Routers, one module per resource."""

from fastapi import APIRouter

from app.api.routes import (
    approval_links,
    approvals,
    artifacts,
    auth,
    automations,
    catalog,
    databases,
    documents,
    drafts,
    events,
    input_defaults,
    kv,
    mcp,
    mcp_server,
    plugins,
    policy,
    preview,
    run_events,
    runs,
    schemas,
    secrets,
    slack,
    spaces,
    stats,
    tokens,
    triggers,
    webhook_endpoints,
    webhooks,
)

API_PREFIX = "/api/v1"
# Included by the application one by one under API_PREFIX, not nested in one `/api/v1` router: FastAPI
# matches a request against a nested router's routes once to find it and again to handle it, so each
# level of nesting walks the routes once more. In this order: routes are matched in the order included.
API_ROUTERS: tuple[APIRouter, ...] = (
    # First: the webhook fire is the hottest route. Nothing else lives under /api/v1/automations, so
    # going first shadows no route.
    webhooks.router,
    auth.router,
    spaces.router,
    input_defaults.router,
    run_events.router,
    runs.router,
    triggers.router,
    drafts.router,
    kv.router,
    # Before automations: `POST …/automations/{id}/preview` must not be taken for a status change.
    preview.router,
    # Before automations: `GET …/automations/stats` is not an automation.
    stats.router,
    stats.queue_router,
    approvals.router,
    policy.router,
    automations.router,
    events.router,
    tokens.router,
    schemas.router,
    catalog.router,
    secrets.router,
    mcp.router,
    mcp.callback_router,
    mcp.completion_router,
    mcp_server.router,
    plugins.router,
    webhook_endpoints.router,
    artifacts.router,
    databases.router,
    slack.router,
    approval_links.router,
    slack.interactions_router,
    # Multipart uploads first: the JSON body check of the other knowledge routes does not apply to them.
    documents.upload_router,
    documents.router,
)
