from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.plugin_switch_settings_type_0 import PluginSwitchSettingsType0





T = TypeVar("T", bound="PluginSwitch")



@_attrs_define
class PluginSwitch:
    """ 
        Attributes:
            enabled (bool): true: the space may use the plugin's names; false: it may not.
            settings (None | PluginSwitchSettingsType0 | Unset): Replaces what the space configured for the plugin (checked
                against its settings schema; never secrets: settings are shown in answers). Omitted: kept.
     """

    enabled: bool
    settings: None | PluginSwitchSettingsType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.plugin_switch_settings_type_0 import PluginSwitchSettingsType0 # noqa: PLC0415
        enabled = self.enabled

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, PluginSwitchSettingsType0):
            settings = self.settings.to_dict()
        else:
            settings = self.settings


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "enabled": enabled,
        })
        if settings is not UNSET:
            field_dict["settings"] = settings

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plugin_switch_settings_type_0 import PluginSwitchSettingsType0 # noqa: PLC0415
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_settings(data: object) -> None | PluginSwitchSettingsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_type_0 = PluginSwitchSettingsType0.from_dict(data)



                return settings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PluginSwitchSettingsType0 | Unset, data)

        settings = _parse_settings(d.pop("settings", UNSET))


        plugin_switch = cls(
            enabled=enabled,
            settings=settings,
        )

        return plugin_switch

