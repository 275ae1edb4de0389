from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast

if TYPE_CHECKING:
  from ..models.webhook_config import WebhookConfig





T = TypeVar("T", bound="WebhookTrigger")



@_attrs_define
class WebhookTrigger:
    """ 
        Attributes:
            type_ (Literal['webhook']):
            config (WebhookConfig | Unset):
            enabled (bool | Unset):  Default: True.
            name (None | str | Unset):
     """

    type_: Literal['webhook']
    config: WebhookConfig | Unset = UNSET
    enabled: bool | Unset = True
    name: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_config import WebhookConfig # noqa: PLC0415
        type_ = self.type_

        config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.config, Unset):
            config = self.config.to_dict()

        enabled = self.enabled

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if config is not UNSET:
            field_dict["config"] = config
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_config import WebhookConfig # noqa: PLC0415
        d = dict(src_dict)
        type_ = cast(Literal['webhook'] , d.pop("type"))
        if type_ != 'webhook':
            raise ValueError(f"type must match const 'webhook', got '{type_}'")

        _config = d.pop("config", UNSET)
        config: WebhookConfig | Unset
        if isinstance(_config,  Unset):
            config = UNSET
        else:
            config = WebhookConfig.from_dict(_config)




        enabled = d.pop("enabled", UNSET)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        webhook_trigger = cls(
            type_=type_,
            config=config,
            enabled=enabled,
            name=name,
        )

        return webhook_trigger

