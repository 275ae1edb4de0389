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
  from ..models.if_step import IfStep
  from ..models.step import Step





T = TypeVar("T", bound="ForEachBlock")



@_attrs_define
class ForEachBlock:
    """ Run a step list once per item of a list, at most `concurrency` iterations at a time.

        Attributes:
            items (list[Any] | str): A template yielding a list (e.g. `{{ fetched.items }}`), or a literal list.
            steps (list[ForEachStep | IfStep | Step]):
            concurrency (int | Unset):  Default: 1.
            continue_on_error (bool | Unset): A failed iteration yields {"error": …} in the output instead of failing the
                step. Default: False.
            max_items (int | Unset): A list longer than this fails the step (too_many_items) before any iteration runs.
                Default: 100.
     """

    items: list[Any] | str
    steps: list[ForEachStep | IfStep | Step]
    concurrency: int | Unset = 1
    continue_on_error: bool | Unset = False
    max_items: int | Unset = 100





    def to_dict(self) -> dict[str, Any]:
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        items: list[Any] | str
        if isinstance(self.items, list):
            items = self.items


        else:
            items = self.items

        steps = []
        for steps_item_data in self.steps:
            steps_item: dict[str, Any]
            if isinstance(steps_item_data, Step):
                steps_item = steps_item_data.to_dict()
            elif isinstance(steps_item_data, IfStep):
                steps_item = steps_item_data.to_dict()
            else:
                steps_item = steps_item_data.to_dict()

            steps.append(steps_item)



        concurrency = self.concurrency

        continue_on_error = self.continue_on_error

        max_items = self.max_items


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "items": items,
            "steps": steps,
        })
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if continue_on_error is not UNSET:
            field_dict["continue_on_error"] = continue_on_error
        if max_items is not UNSET:
            field_dict["max_items"] = max_items

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.for_each_step import ForEachStep # noqa: PLC0415
        from ..models.if_step import IfStep # noqa: PLC0415
        from ..models.step import Step # noqa: PLC0415
        d = dict(src_dict)
        def _parse_items(data: object) -> list[Any] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                items_type_1 = cast(list[Any], data)

                return items_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | str, data)

        items = _parse_items(d.pop("items"))


        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            def _parse_steps_item(data: object) -> ForEachStep | IfStep | Step:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    steps_item_type_0 = Step.from_dict(data)



                    return steps_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    steps_item_type_1 = IfStep.from_dict(data)



                    return steps_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                steps_item_type_2 = ForEachStep.from_dict(data)



                return steps_item_type_2

            steps_item = _parse_steps_item(steps_item_data)

            steps.append(steps_item)


        concurrency = d.pop("concurrency", UNSET)

        continue_on_error = d.pop("continue_on_error", UNSET)

        max_items = d.pop("max_items", UNSET)

        for_each_block = cls(
            items=items,
            steps=steps,
            concurrency=concurrency,
            continue_on_error=continue_on_error,
            max_items=max_items,
        )

        return for_each_block

