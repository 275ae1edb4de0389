from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.replay_create_llm_type_0 import ReplayCreateLlmType0
from ..models.replay_create_mode_type_0 import ReplayCreateModeType0
from ..models.replay_create_version import ReplayCreateVersion
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReplayCreate")



@_attrs_define
class ReplayCreate:
    """ 
        Attributes:
            llm (None | ReplayCreateLlmType0 | Unset): Default: the original run's choice.
            mode (None | ReplayCreateModeType0 | Unset): Default: the original run's mode.
            version (ReplayCreateVersion | Unset): snapshot: the definition the original run executed; current: the
                automation's now. Default: ReplayCreateVersion.SNAPSHOT.
     """

    llm: None | ReplayCreateLlmType0 | Unset = UNSET
    mode: None | ReplayCreateModeType0 | Unset = UNSET
    version: ReplayCreateVersion | Unset = ReplayCreateVersion.SNAPSHOT





    def to_dict(self) -> dict[str, Any]:
        llm: None | str | Unset
        if isinstance(self.llm, Unset):
            llm = UNSET
        elif isinstance(self.llm, ReplayCreateLlmType0):
            llm = self.llm.value
        else:
            llm = self.llm

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, ReplayCreateModeType0):
            mode = self.mode.value
        else:
            mode = self.mode

        version: str | Unset = UNSET
        if not isinstance(self.version, Unset):
            version = self.version.value



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if llm is not UNSET:
            field_dict["llm"] = llm
        if mode is not UNSET:
            field_dict["mode"] = mode
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_llm(data: object) -> None | ReplayCreateLlmType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                llm_type_0 = ReplayCreateLlmType0(data)



                return llm_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReplayCreateLlmType0 | Unset, data)

        llm = _parse_llm(d.pop("llm", UNSET))


        def _parse_mode(data: object) -> None | ReplayCreateModeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = ReplayCreateModeType0(data)



                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReplayCreateModeType0 | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))


        _version = d.pop("version", UNSET)
        version: ReplayCreateVersion | Unset
        if isinstance(_version,  Unset):
            version = UNSET
        else:
            version = ReplayCreateVersion(_version)




        replay_create = cls(
            llm=llm,
            mode=mode,
            version=version,
        )

        return replay_create

