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

api_router = APIRouter(prefix="/api/v1")
# First: the webhook fire is the hottest route, and routes are matched in the order they are included.
# Nothing else lives under /api/v1/automations, so going first shadows no route.
api_router.include_router(webhooks.router)
api_router.include_router(auth.router)
api_router.include_router(spaces.router)
api_router.include_router(input_defaults.router)
api_router.include_router(run_events.router)
api_router.include_router(runs.router)
api_router.include_router(triggers.router)
api_router.include_router(drafts.router)
api_router.include_router(kv.router)
# Before automations: `POST …/automations/{id}/preview` must not be taken for a status change.
api_router.include_router(preview.router)
# Before automations: `GET …/automations/stats` is not an automation.
api_router.include_router(stats.router)
api_router.include_router(stats.queue_router)
api_router.include_router(approvals.router)
api_router.include_router(policy.router)
api_router.include_router(automations.router)
api_router.include_router(events.router)
api_router.include_router(tokens.router)
api_router.include_router(schemas.router)
api_router.include_router(catalog.router)
api_router.include_router(secrets.router)
api_router.include_router(mcp.router)
api_router.include_router(mcp.callback_router)
api_router.include_router(mcp.completion_router)
api_router.include_router(mcp_server.router)
api_router.include_router(plugins.router)
api_router.include_router(webhook_endpoints.router)
api_router.include_router(artifacts.router)
api_router.include_router(databases.router)
api_router.include_router(slack.router)
api_router.include_router(approval_links.router)
api_router.include_router(slack.interactions_router)
# Multipart uploads first: the JSON body check of the other knowledge routes does not apply to them.
api_router.include_router(documents.upload_router)
api_router.include_router(documents.router)
