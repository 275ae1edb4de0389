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
  from ..models.automation_definition_metadata import AutomationDefinitionMetadata
  from ..models.event_trigger import EventTrigger
  from ..models.execution_policy import ExecutionPolicy
  from ..models.exposure import Exposure
  from ..models.for_each_step import ForEachStep
  from ..models.if_step import IfStep
  from ..models.inputs import Inputs
  from ..models.schedule_trigger import ScheduleTrigger
  from ..models.step import Step
  from ..models.webhook_trigger import WebhookTrigger





T = TypeVar("T", bound="AutomationDefinition")



@_attrs_define
class AutomationDefinition:
    """ The whole automation: the program the service interprets.

        Attributes:
            name (str):
            plan (list[ForEachStep | IfStep | Step]):
            description (None | str | Unset):
            execution (ExecutionPolicy | Unset): How runs of the automation are executed: limits, retries, concurrency,
                budget, failure steps.
            expose (Exposure | None | Unset): Offer the automation to outside agents (off when absent).
            goal (None | str | Unset):
            inputs (Inputs | Unset): The automation's inputs, described by a JSON Schema object.
            metadata (AutomationDefinitionMetadata | Unset):
            schema_version (Literal['1.0'] | Unset):  Default: '1.0'.
            triggers (list[EventTrigger | ScheduleTrigger | WebhookTrigger] | Unset):
     """

    name: str
    plan: list[ForEachStep | IfStep | Step]
    description: None | str | Unset = UNSET
    execution: ExecutionPolicy | Unset = UNSET
    expose: Exposure | None | Unset = UNSET
    goal: None | str | Unset = UNSET
    inputs: Inputs | Unset = UNSET
    metadata: AutomationDefinitionMetadata | Unset = UNSET
    schema_version: Literal['1.0'] | Unset = '1.0'
    triggers: list[EventTrigger | ScheduleTrigger | WebhookTrigger] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.automation_definition_metadata import AutomationDefinitionMetadata # noqa: PLC0415
        from ..models.event_trigger import EventTrigger # noqa: PLC0415
        from ..models.execution_policy import ExecutionPolicy # noqa: PLC0415
        from ..models.exposure import Exposure # noqa: PLC0415
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.inputs import Inputs # noqa: PLC0415
        from ..models.schedule_trigger import ScheduleTrigger # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        from ..models.webhook_trigger import WebhookTrigger # noqa: PLC0415
        name = self.name

        plan = []
        for plan_item_data in self.plan:
            plan_item: dict[str, Any]
            if isinstance(plan_item_data, Step):
                plan_item = plan_item_data.to_dict()
            elif isinstance(plan_item_data, IfStep):
                plan_item = plan_item_data.to_dict()
            else:
                plan_item = plan_item_data.to_dict()

            plan.append(plan_item)



        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        execution: dict[str, Any] | Unset = UNSET
        if not isinstance(self.execution, Unset):
            execution = self.execution.to_dict()

        expose: dict[str, Any] | None | Unset
        if isinstance(self.expose, Unset):
            expose = UNSET
        elif isinstance(self.expose, Exposure):
            expose = self.expose.to_dict()
        else:
            expose = self.expose

        goal: None | str | Unset
        if isinstance(self.goal, Unset):
            goal = UNSET
        else:
            goal = self.goal

        inputs: dict[str, Any] | Unset = UNSET
        if not isinstance(self.inputs, Unset):
            inputs = self.inputs.to_dict()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        schema_version = self.schema_version

        triggers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.triggers, Unset):
            triggers = []
            for triggers_item_data in self.triggers:
                triggers_item: dict[str, Any]
                if isinstance(triggers_item_data, ScheduleTrigger):
                    triggers_item = triggers_item_data.to_dict()
                elif isinstance(triggers_item_data, WebhookTrigger):
                    triggers_item = triggers_item_data.to_dict()
                else:
                    triggers_item = triggers_item_data.to_dict()

                triggers.append(triggers_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "plan": plan,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if execution is not UNSET:
            field_dict["execution"] = execution
        if expose is not UNSET:
            field_dict["expose"] = expose
        if goal is not UNSET:
            field_dict["goal"] = goal
        if inputs is not UNSET:
            field_dict["inputs"] = inputs
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version
        if triggers is not UNSET:
            field_dict["triggers"] = triggers

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.automation_definition_metadata import AutomationDefinitionMetadata # noqa: PLC0415
        from ..models.event_trigger import EventTrigger # noqa: PLC0415
        from ..models.execution_policy import ExecutionPolicy # noqa: PLC0415
        from ..models.exposure import Exposure # noqa: PLC0415
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.inputs import Inputs # noqa: PLC0415
        from ..models.schedule_trigger import ScheduleTrigger # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        from ..models.webhook_trigger import WebhookTrigger # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        plan = []
        _plan = d.pop("plan")
        for plan_item_data in (_plan):
            def _parse_plan_item(data: object) -> ForEachStep | IfStep | Step:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    plan_item_type_0 = Step.from_dict(data)



                    return plan_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    plan_item_type_1 = IfStep.from_dict(data)



                    return plan_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                plan_item_type_2 = ForEachStep.from_dict(data)



                return plan_item_type_2

            plan_item = _parse_plan_item(plan_item_data)

            plan.append(plan_item)


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        _execution = d.pop("execution", UNSET)
        execution: ExecutionPolicy | Unset
        if isinstance(_execution,  Unset):
            execution = UNSET
        else:
            execution = ExecutionPolicy.from_dict(_execution)




        def _parse_expose(data: object) -> Exposure | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                expose_type_0 = Exposure.from_dict(data)



                return expose_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Exposure | None | Unset, data)

        expose = _parse_expose(d.pop("expose", UNSET))


        def _parse_goal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        goal = _parse_goal(d.pop("goal", UNSET))


        _inputs = d.pop("inputs", UNSET)
        inputs: Inputs | Unset
        if isinstance(_inputs,  Unset):
            inputs = UNSET
        else:
            inputs = Inputs.from_dict(_inputs)




        _metadata = d.pop("metadata", UNSET)
        metadata: AutomationDefinitionMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = AutomationDefinitionMetadata.from_dict(_metadata)




        schema_version = cast(Literal['1.0'] | Unset , d.pop("schema_version", UNSET))
        if schema_version != '1.0'and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const '1.0', got '{schema_version}'")

        _triggers = d.pop("triggers", UNSET)
        triggers: list[EventTrigger | ScheduleTrigger | WebhookTrigger] | Unset = UNSET
        if _triggers is not UNSET:
            triggers = []
            for triggers_item_data in _triggers:
                def _parse_triggers_item(data: object) -> EventTrigger | ScheduleTrigger | WebhookTrigger:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        triggers_item_type_0 = ScheduleTrigger.from_dict(data)



                        return triggers_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        triggers_item_type_1 = WebhookTrigger.from_dict(data)



                        return triggers_item_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    triggers_item_type_2 = EventTrigger.from_dict(data)



                    return triggers_item_type_2

                triggers_item = _parse_triggers_item(triggers_item_data)

                triggers.append(triggers_item)


        automation_definition = cls(
            name=name,
            plan=plan,
            description=description,
            execution=execution,
            expose=expose,
            goal=goal,
            inputs=inputs,
            metadata=metadata,
            schema_version=schema_version,
            triggers=triggers,
        )

        return automation_definition

