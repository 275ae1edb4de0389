"""All models, imported here so Alembic and the mappers see every table."""

from app.persistence.models.approvals import ApprovalDecision, ApprovalLink, ApprovalNotice
from app.persistence.models.artifacts import Artifact, SpaceDatabase
from app.persistence.models.automations import Automation, AutomationStatus, AutomationVersion
from app.persistence.models.input_defaults import SpaceInputDefault
from app.persistence.models.invocations import ActionInvocation
from app.persistence.models.knowledge import Document, DocumentChunk, DocumentRevision
from app.persistence.models.kv import AutomationKv
from app.persistence.models.mcp import McpConnection, McpTool
from app.persistence.models.outbound import CallbackSecret, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.persistence.models.plugins import PluginTask, SpacePlugin
from app.persistence.models.policy import ApprovalGrant, PolicyChange
from app.persistence.models.queue_samples import QueueSample
from app.persistence.models.runs import RUN_STATUSES, DomainEvent, LlmUsage, Notification, Run, RunStep
from app.persistence.models.secrets import Secret
from app.persistence.models.tenancy import (
    ApiToken,
    Invitation,
    Membership,
    Role,
    Space,
    TokenKind,
    User,
)
from app.persistence.models.triggers import AutomationTrigger, EventTriggerGeneration

__all__ = [
    "RUN_STATUSES",
    "ActionInvocation",
    "ApiToken",
    "ApprovalDecision",
    "ApprovalGrant",
    "ApprovalLink",
    "ApprovalNotice",
    "Artifact",
    "Automation",
    "AutomationKv",
    "AutomationStatus",
    "AutomationTrigger",
    "AutomationVersion",
    "CallbackSecret",
    "Document",
    "DocumentChunk",
    "DocumentRevision",
    "DomainEvent",
    "EventTriggerGeneration",
    "Invitation",
    "LlmUsage",
    "McpConnection",
    "McpTool",
    "Membership",
    "Notification",
    "PluginTask",
    "PolicyChange",
    "QueueSample",
    "Role",
    "Run",
    "RunStep",
    "Secret",
    "Space",
    "SpaceDatabase",
    "SpaceInputDefault",
    "SpacePlugin",
    "TokenKind",
    "User",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]
