from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.search_filters import SearchFilters





T = TypeVar("T", bound="SearchRequest")



@_attrs_define
class SearchRequest:
    """ 
        Attributes:
            query (str):
            filters (SearchFilters | Unset):
            top_k (int | Unset):  Default: 10.
     """

    query: str
    filters: SearchFilters | Unset = UNSET
    top_k: int | Unset = 10





    def to_dict(self) -> dict[str, Any]:
        from ..models.search_filters import SearchFilters # noqa: PLC0415
        query = self.query

        filters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filters, Unset):
            filters = self.filters.to_dict()

        top_k = self.top_k


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "query": query,
        })
        if filters is not UNSET:
            field_dict["filters"] = filters
        if top_k is not UNSET:
            field_dict["top_k"] = top_k

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.search_filters import SearchFilters # noqa: PLC0415
        d = dict(src_dict)
        query = d.pop("query")

        _filters = d.pop("filters", UNSET)
        filters: SearchFilters | Unset
        if isinstance(_filters,  Unset):
            filters = UNSET
        else:
            filters = SearchFilters.from_dict(_filters)




        top_k = d.pop("top_k", UNSET)

        search_request = cls(
            query=query,
            filters=filters,
            top_k=top_k,
        )

        return search_request

