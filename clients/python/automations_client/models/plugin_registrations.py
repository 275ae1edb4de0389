from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.plugin_entry_out import PluginEntryOut
  from ..models.plugin_poller_out import PluginPollerOut
  from ..models.plugin_registrations_settings_schema_type_0 import PluginRegistrationsSettingsSchemaType0
  from ..models.plugin_subscription_out import PluginSubscriptionOut
  from ..models.plugin_trigger_out import PluginTriggerOut





T = TypeVar("T", bound="PluginRegistrations")



@_attrs_define
class PluginRegistrations:
    """ 
        Attributes:
            actions (list[PluginEntryOut]):
            tools (list[PluginEntryOut]):
            triggers (list[PluginTriggerOut]):
            pollers (list[PluginPollerOut] | Unset):
            settings_schema (None | PluginRegistrationsSettingsSchemaType0 | Unset): What `settings` may hold.
            subscriptions (list[PluginSubscriptionOut] | Unset):
     """

    actions: list[PluginEntryOut]
    tools: list[PluginEntryOut]
    triggers: list[PluginTriggerOut]
    pollers: list[PluginPollerOut] | Unset = UNSET
    settings_schema: None | PluginRegistrationsSettingsSchemaType0 | Unset = UNSET
    subscriptions: list[PluginSubscriptionOut] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.plugin_entry_out import PluginEntryOut # noqa: PLC0415
        from ..models.plugin_poller_out import PluginPollerOut # noqa: PLC0415
        from ..models.plugin_registrations_settings_schema_type_0 import PluginRegistrationsSettingsSchemaType0 # noqa: PLC0415
        from ..models.plugin_subscription_out import PluginSubscriptionOut # noqa: PLC0415
        from ..models.plugin_trigger_out import PluginTriggerOut # noqa: PLC0415
        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)



        tools = []
        for tools_item_data in self.tools:
            tools_item = tools_item_data.to_dict()
            tools.append(tools_item)



        triggers = []
        for triggers_item_data in self.triggers:
            triggers_item = triggers_item_data.to_dict()
            triggers.append(triggers_item)



        pollers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.pollers, Unset):
            pollers = []
            for pollers_item_data in self.pollers:
                pollers_item = pollers_item_data.to_dict()
                pollers.append(pollers_item)



        settings_schema: dict[str, Any] | None | Unset
        if isinstance(self.settings_schema, Unset):
            settings_schema = UNSET
        elif isinstance(self.settings_schema, PluginRegistrationsSettingsSchemaType0):
            settings_schema = self.settings_schema.to_dict()
        else:
            settings_schema = self.settings_schema

        subscriptions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.subscriptions, Unset):
            subscriptions = []
            for subscriptions_item_data in self.subscriptions:
                subscriptions_item = subscriptions_item_data.to_dict()
                subscriptions.append(subscriptions_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actions": actions,
            "tools": tools,
            "triggers": triggers,
        })
        if pollers is not UNSET:
            field_dict["pollers"] = pollers
        if settings_schema is not UNSET:
            field_dict["settings_schema"] = settings_schema
        if subscriptions is not UNSET:
            field_dict["subscriptions"] = subscriptions

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plugin_entry_out import PluginEntryOut # noqa: PLC0415
        from ..models.plugin_poller_out import PluginPollerOut # noqa: PLC0415
        from ..models.plugin_registrations_settings_schema_type_0 import PluginRegistrationsSettingsSchemaType0 # noqa: PLC0415
        from ..models.plugin_subscription_out import PluginSubscriptionOut # noqa: PLC0415
        from ..models.plugin_trigger_out import PluginTriggerOut # noqa: PLC0415
        d = dict(src_dict)
        actions = []
        _actions = d.pop("actions")
        for actions_item_data in (_actions):
            actions_item = PluginEntryOut.from_dict(actions_item_data)



            actions.append(actions_item)


        tools = []
        _tools = d.pop("tools")
        for tools_item_data in (_tools):
            tools_item = PluginEntryOut.from_dict(tools_item_data)



            tools.append(tools_item)


        triggers = []
        _triggers = d.pop("triggers")
        for triggers_item_data in (_triggers):
            triggers_item = PluginTriggerOut.from_dict(triggers_item_data)



            triggers.append(triggers_item)


        _pollers = d.pop("pollers", UNSET)
        pollers: list[PluginPollerOut] | Unset = UNSET
        if _pollers is not UNSET:
            pollers = []
            for pollers_item_data in _pollers:
                pollers_item = PluginPollerOut.from_dict(pollers_item_data)



                pollers.append(pollers_item)


        def _parse_settings_schema(data: object) -> None | PluginRegistrationsSettingsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_schema_type_0 = PluginRegistrationsSettingsSchemaType0.from_dict(data)



                return settings_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PluginRegistrationsSettingsSchemaType0 | Unset, data)

        settings_schema = _parse_settings_schema(d.pop("settings_schema", UNSET))


        _subscriptions = d.pop("subscriptions", UNSET)
        subscriptions: list[PluginSubscriptionOut] | Unset = UNSET
        if _subscriptions is not UNSET:
            subscriptions = []
            for subscriptions_item_data in _subscriptions:
                subscriptions_item = PluginSubscriptionOut.from_dict(subscriptions_item_data)



                subscriptions.append(subscriptions_item)


        plugin_registrations = cls(
            actions=actions,
            tools=tools,
            triggers=triggers,
            pollers=pollers,
            settings_schema=settings_schema,
            subscriptions=subscriptions,
        )


        plugin_registrations.additional_properties = d
        return plugin_registrations

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
