from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SlackApprovalsOut")



@_attrs_define
class SlackApprovalsOut:
    """ 
        Attributes:
            enabled (bool):
            interactivity_url (str): The Request URL to give Slack's Interactivity settings.
            bot_token_secret (None | str | Unset):
            channel (None | str | Unset):
            signing_secret_secret (None | str | Unset):
     """

    enabled: bool
    interactivity_url: str
    bot_token_secret: None | str | Unset = UNSET
    channel: None | str | Unset = UNSET
    signing_secret_secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        interactivity_url = self.interactivity_url

        bot_token_secret: None | str | Unset
        if isinstance(self.bot_token_secret, Unset):
            bot_token_secret = UNSET
        else:
            bot_token_secret = self.bot_token_secret

        channel: None | str | Unset
        if isinstance(self.channel, Unset):
            channel = UNSET
        else:
            channel = self.channel

        signing_secret_secret: None | str | Unset
        if isinstance(self.signing_secret_secret, Unset):
            signing_secret_secret = UNSET
        else:
            signing_secret_secret = self.signing_secret_secret


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "enabled": enabled,
            "interactivity_url": interactivity_url,
        })
        if bot_token_secret is not UNSET:
            field_dict["bot_token_secret"] = bot_token_secret
        if channel is not UNSET:
            field_dict["channel"] = channel
        if signing_secret_secret is not UNSET:
            field_dict["signing_secret_secret"] = signing_secret_secret

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        interactivity_url = d.pop("interactivity_url")

        def _parse_bot_token_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        bot_token_secret = _parse_bot_token_secret(d.pop("bot_token_secret", UNSET))


        def _parse_channel(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        channel = _parse_channel(d.pop("channel", UNSET))


        def _parse_signing_secret_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_secret_secret = _parse_signing_secret_secret(d.pop("signing_secret_secret", UNSET))


        slack_approvals_out = cls(
            enabled=enabled,
            interactivity_url=interactivity_url,
            bot_token_secret=bot_token_secret,
            channel=channel,
            signing_secret_secret=signing_secret_secret,
        )


        slack_approvals_out.additional_properties = d
        return slack_approvals_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
