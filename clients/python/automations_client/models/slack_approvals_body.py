from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SlackApprovalsBody")



@_attrs_define
class SlackApprovalsBody:
    """ 
        Attributes:
            bot_token_secret (str): Name of the space secret holding the bot token (xoxb-…).
            channel (str): A channel id (C0123ABCD) or #name.
            signing_secret_secret (str): Name of the space secret holding the app's signing secret.
     """

    bot_token_secret: str
    channel: str
    signing_secret_secret: str





    def to_dict(self) -> dict[str, Any]:
        bot_token_secret = self.bot_token_secret

        channel = self.channel

        signing_secret_secret = self.signing_secret_secret


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "bot_token_secret": bot_token_secret,
            "channel": channel,
            "signing_secret_secret": signing_secret_secret,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bot_token_secret = d.pop("bot_token_secret")

        channel = d.pop("channel")

        signing_secret_secret = d.pop("signing_secret_secret")

        slack_approvals_body = cls(
            bot_token_secret=bot_token_secret,
            channel=channel,
            signing_secret_secret=signing_secret_secret,
        )

        return slack_approvals_body

