from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.plugin_out_state import PluginOutState
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.plugin_out_settings import PluginOutSettings
  from ..models.plugin_registrations import PluginRegistrations





T = TypeVar("T", bound="PluginOut")



@_attrs_define
class PluginOut:
    """ 
        Attributes:
            enabled (bool):
            error (None | str):
            id (str):
            namespace (None | str): The first segment of every name it registered.
            packages (list[str]): The installed packages that provide this plugin id.
            registrations (PluginRegistrations):
            settings (PluginOutSettings): What this space configured for the plugin.
            state (PluginOutState): enabled / disabled in this space for a loaded plugin; error when the installation
                refused it (see `error`); not_allowed when AUTOMATIONS_PLUGINS does not list it.
            updated_at (datetime.datetime | None): When the space last switched it.
            version (None | str):
     """

    enabled: bool
    error: None | str
    id: str
    namespace: None | str
    packages: list[str]
    registrations: PluginRegistrations
    settings: PluginOutSettings
    state: PluginOutState
    updated_at: datetime.datetime | None
    version: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.plugin_out_settings import PluginOutSettings # noqa: PLC0415
        from ..models.plugin_registrations import PluginRegistrations # noqa: PLC0415
        enabled = self.enabled

        error: None | str
        error = self.error

        id = self.id

        namespace: None | str
        namespace = self.namespace

        packages = self.packages



        registrations = self.registrations.to_dict()

        settings = self.settings.to_dict()

        state = self.state.value

        updated_at: None | str
        if isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        version: None | str
        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "enabled": enabled,
            "error": error,
            "id": id,
            "namespace": namespace,
            "packages": packages,
            "registrations": registrations,
            "settings": settings,
            "state": state,
            "updated_at": updated_at,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plugin_out_settings import PluginOutSettings # noqa: PLC0415
        from ..models.plugin_registrations import PluginRegistrations # noqa: PLC0415
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        id = d.pop("id")

        def _parse_namespace(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        namespace = _parse_namespace(d.pop("namespace"))


        packages = cast(list[str], d.pop("packages"))


        registrations = PluginRegistrations.from_dict(d.pop("registrations"))




        settings = PluginOutSettings.from_dict(d.pop("settings"))




        state = PluginOutState(d.pop("state"))




        def _parse_updated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)



                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        updated_at = _parse_updated_at(d.pop("updated_at"))


        def _parse_version(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        version = _parse_version(d.pop("version"))


        plugin_out = cls(
            enabled=enabled,
            error=error,
            id=id,
            namespace=namespace,
            packages=packages,
            registrations=registrations,
            settings=settings,
            state=state,
            updated_at=updated_at,
            version=version,
        )


        plugin_out.additional_properties = d
        return plugin_out

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
