"""Tight delivery capabilities and their actions: a Slack message, an email. No LLM, one call each.

Credentials come as secret references in the config (`"token": {"$secret": "slack_bot_token"}`); the
handlers only use the ports they are handed, which reach Slack and the SMTP relay through the egress
guard.
"""

from __future__ import annotations

from typing import Any

from app.definitions.signals import StepError
from app.registry.factories import capability_action
from app.registry.models import ActionDefinition, Capability, SecretFields

MAX_TEXT = 40_000
MAX_BLOCKS = 50
ADDRESS_LIST: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "minLength": 3, "maxLength": 320},
    "maxItems": 100,
}


async def _slack_post(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    slack = ctx.ports.slack
    if slack is None:
        raise StepError("slack_unavailable", "Slack is not available in this deployment", retryable=False)
    message = {key: args[key] for key in ("channel", "text", "blocks", "thread_ts") if key in args}
    return await slack.post_message(args["token"], message, timeout_seconds=ctx.timeout_seconds)  # type: ignore[no-any-return]


# The bot token goes in the Authorization header to the Slack API the deployment configures; bind
# the secret to slack.com and the egress transport keeps it there.
SLACK_SECRET_FIELDS = SecretFields(paths=("/token",))

SLACK_POST_MESSAGE = Capability(
    id="slack.post_message",
    description="Post a message to a Slack channel with a bot token (Slack's chat.postMessage).",
    input_schema={
        "type": "object",
        "required": ["channel", "token"],
        "properties": {
            "channel": {"type": "string", "minLength": 1, "maxLength": 200},
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
            "blocks": {"type": "array", "items": {"type": "object"}, "maxItems": MAX_BLOCKS},
            "thread_ts": {"type": "string", "minLength": 1, "maxLength": 64},
            "token": {
                "type": "string",
                "minLength": 1,
                "description": 'A secret reference: {"$secret": "…"}.',
            },
        },
        "anyOf": [{"required": ["text"]}, {"required": ["blocks"]}],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["channel", "ts"],
        "properties": {"channel": {"type": "string"}, "ts": {"type": "string"}},
    },
    handler=_slack_post,
    secret_fields=SLACK_SECRET_FIELDS,
    risk="write",
)


async def _send_email(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    mail = ctx.ports.mail
    if mail is None:
        raise StepError(
            "email_unavailable", "No SMTP relay is configured (AUTOMATIONS_SMTP_URL)", retryable=False
        )
    return await mail.send(args, timeout_seconds=ctx.timeout_seconds)  # type: ignore[no-any-return]


EMAIL_SEND = Capability(
    id="email.send",
    description="Send an email from the deployment's sender address through its SMTP relay.",
    input_schema={
        "type": "object",
        "required": ["to", "subject"],
        "properties": {
            "to": {**ADDRESS_LIST, "minItems": 1},
            "cc": ADDRESS_LIST,
            "bcc": ADDRESS_LIST,
            "subject": {"type": "string", "minLength": 1, "maxLength": 998},
            "text": {"type": "string", "maxLength": 1024 * 1024},
            "html": {"type": "string", "maxLength": 1024 * 1024},
            "reply_to": {"type": "string", "minLength": 3, "maxLength": 320},
        },
        "anyOf": [{"required": ["text"]}, {"required": ["html"]}],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["message_id", "accepted", "refused"],
        "properties": {
            "message_id": {"type": "string"},
            "accepted": {"type": "array", "items": {"type": "string"}},
            "refused": {"type": "array", "items": {"type": "string"}},
        },
    },
    handler=_send_email,
    risk="write",
)


def _slack_args(config: dict[str, Any]) -> dict[str, Any]:
    args = {key: value for key, value in config.items() if key not in ("message_template", "channel_id")}
    if "channel_id" in config:
        # The name the definition format uses; the config schema refuses it beside `channel`.
        args["channel"] = config["channel_id"]
    if "message_template" in config:
        # The executor rendered it already: it is the text.
        args["text"] = config["message_template"]
    return args


SLACK_POST = capability_action(
    SLACK_POST_MESSAGE,
    type="slack_post",
    name="Slack message",
    description=(
        "Post to a Slack channel (`channel_id` or `channel`: an id like C0123 or a name like #eng) as the "
        "bot whose token the "
        'space keeps as a secret: "token": {"$secret": "slack_bot_token"}. `text` or '
        "`message_template` (a template rendered with the run's context), optional `blocks` and "
        "`thread_ts`. Answers {channel, ts}."
    ),
    config_schema={
        "type": "object",
        "required": ["token"],
        "properties": {
            **SLACK_POST_MESSAGE.input_schema["properties"],
            "channel_id": SLACK_POST_MESSAGE.input_schema["properties"]["channel"],
            "message_template": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
        },
        # Exactly one channel key (`channel_id` and `channel` mean the same), and text from one source.
        "if": {"not": {"required": ["channel_id"]}},
        "then": {"required": ["channel"]},
        "dependentSchemas": {"channel_id": {"not": {"required": ["channel"]}}},
        "anyOf": [{"required": ["text"]}, {"required": ["message_template"]}, {"required": ["blocks"]}],
        "not": {"required": ["text", "message_template"]},
        "additionalProperties": False,
    },
    duration_class="fast",
    prepare=_slack_args,
    example_output={"channel": "", "ts": ""},
)


SEND_EMAIL = capability_action(
    EMAIL_SEND,
    type="send_email",
    name="Send email",
    description=(
        "Send an email through the deployment's SMTP relay: to (up to 100 recipients with cc and bcc), "
        "subject, text and/or html, reply_to. Addresses are validated and line breaks in headers refused."
    ),
    duration_class="fast",
    example_output={"message_id": "", "accepted": [], "refused": []},
)

DELIVERY_CAPABILITIES: tuple[Capability, ...] = (SLACK_POST_MESSAGE, EMAIL_SEND)
DELIVERY_ACTIONS: tuple[ActionDefinition, ...] = (SLACK_POST, SEND_EMAIL)
