from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.tool_grant_params_type_0 import ToolGrantParamsType0





T = TypeVar("T", bound="ToolGrant")



@_attrs_define
class ToolGrant:
    """ One entry of `execution.tool_grants`: a capability (id or pattern) and what its calls must keep.

        Attributes:
            capability (str):
            hosts (list[str] | None | Unset): For http.request: the hosts its URLs may name; ["*"] allows any host.
            params (None | ToolGrantParamsType0 | Unset): Each key must be in the call's arguments with an equal value.
     """

    capability: str
    hosts: list[str] | None | Unset = UNSET
    params: None | ToolGrantParamsType0 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_grant_params_type_0 import ToolGrantParamsType0 # noqa: PLC0415
        capability = self.capability

        hosts: list[str] | None | Unset
        if isinstance(self.hosts, Unset):
            hosts = UNSET
        elif isinstance(self.hosts, list):
            hosts = self.hosts


        else:
            hosts = self.hosts

        params: dict[str, Any] | None | Unset
        if isinstance(self.params, Unset):
            params = UNSET
        elif isinstance(self.params, ToolGrantParamsType0):
            params = self.params.to_dict()
        else:
            params = self.params


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "capability": capability,
        })
        if hosts is not UNSET:
            field_dict["hosts"] = hosts
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_grant_params_type_0 import ToolGrantParamsType0 # noqa: PLC0415
        d = dict(src_dict)
        capability = d.pop("capability")

        def _parse_hosts(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hosts_type_0 = cast(list[str], data)

                return hosts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        hosts = _parse_hosts(d.pop("hosts", UNSET))


        def _parse_params(data: object) -> None | ToolGrantParamsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                params_type_0 = ToolGrantParamsType0.from_dict(data)



                return params_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolGrantParamsType0 | Unset, data)

        params = _parse_params(d.pop("params", UNSET))


        tool_grant = cls(
            capability=capability,
            hosts=hosts,
            params=params,
        )

        return tool_grant

