from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.for_each_step import ForEachStep
  from ..models.if_block_condition import IfBlockCondition
  from ..models.if_step import IfStep
  from ..models.step import Step





T = TypeVar("T", bound="IfBlock")



@_attrs_define
class IfBlock:
    """ Run one of two step lists, chosen by a filter over the run context.

        Attributes:
            condition (IfBlockCondition): Filter expression (the event filter grammar) over the run context: `inputs.*`,
                `trigger.*`, `run.*`, the outputs bound by `output_as`, and `item` / `index` inside a loop. Values may be
                templates of the same context.
            then (list[ForEachStep | IfStep | Step]):
            else_ (list[ForEachStep | IfStep | Step] | Unset):
     """

    condition: IfBlockCondition
    then: list[ForEachStep | IfStep | Step]
    else_: list[ForEachStep | IfStep | Step] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_block_condition import IfBlockCondition # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        condition = self.condition.to_dict()

        then = []
        for then_item_data in self.then:
            then_item: dict[str, Any]
            if isinstance(then_item_data, Step):
                then_item = then_item_data.to_dict()
            elif isinstance(then_item_data, IfStep):
                then_item = then_item_data.to_dict()
            else:
                then_item = then_item_data.to_dict()

            then.append(then_item)



        else_: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.else_, Unset):
            else_ = []
            for else_item_data in self.else_:
                else_item: dict[str, Any]
                if isinstance(else_item_data, Step):
                    else_item = else_item_data.to_dict()
                elif isinstance(else_item_data, IfStep):
                    else_item = else_item_data.to_dict()
                else:
                    else_item = else_item_data.to_dict()

                else_.append(else_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "condition": condition,
            "then": then,
        })
        if else_ is not UNSET:
            field_dict["else"] = else_

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_block_condition import IfBlockCondition # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        d = dict(src_dict)
        condition = IfBlockCondition.from_dict(d.pop("condition"))




        then = []
        _then = d.pop("then")
        for then_item_data in (_then):
            def _parse_then_item(data: object) -> ForEachStep | IfStep | Step:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    then_item_type_0 = Step.from_dict(data)



                    return then_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    then_item_type_1 = IfStep.from_dict(data)



                    return then_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                then_item_type_2 = ForEachStep.from_dict(data)



                return then_item_type_2

            then_item = _parse_then_item(then_item_data)

            then.append(then_item)


        _else_ = d.pop("else", UNSET)
        else_: list[ForEachStep | IfStep | Step] | Unset = UNSET
        if _else_ is not UNSET:
            else_ = []
            for else_item_data in _else_:
                def _parse_else_item(data: object) -> ForEachStep | IfStep | Step:
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        else_item_type_0 = Step.from_dict(data)



                        return else_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        else_item_type_1 = IfStep.from_dict(data)



                        return else_item_type_1
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    else_item_type_2 = ForEachStep.from_dict(data)



                    return else_item_type_2

                else_item = _parse_else_item(else_item_data)

                else_.append(else_item)


        if_block = cls(
            condition=condition,
            then=then,
            else_=else_,
        )

        return if_block

