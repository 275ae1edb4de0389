from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="SearchFilters")



@_attrs_define
class SearchFilters:
    """ 
        Attributes:
            document_ids (list[UUID] | None | Unset):
            since (datetime.datetime | None | Unset): Indexed at or after.
            source (None | str | Unset):
            tags (list[str] | Unset): Documents with all of these.
            until (datetime.datetime | None | Unset): Indexed before.
     """

    document_ids: list[UUID] | None | Unset = UNSET
    since: datetime.datetime | None | Unset = UNSET
    source: None | str | Unset = UNSET
    tags: list[str] | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        document_ids: list[str] | None | Unset
        if isinstance(self.document_ids, Unset):
            document_ids = UNSET
        elif isinstance(self.document_ids, list):
            document_ids = []
            for document_ids_type_0_item_data in self.document_ids:
                document_ids_type_0_item = str(document_ids_type_0_item_data)
                document_ids.append(document_ids_type_0_item)


        else:
            document_ids = self.document_ids

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags



        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if document_ids is not UNSET:
            field_dict["document_ids"] = document_ids
        if since is not UNSET:
            field_dict["since"] = since
        if source is not UNSET:
            field_dict["source"] = source
        if tags is not UNSET:
            field_dict["tags"] = tags
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_document_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                document_ids_type_0 = []
                _document_ids_type_0 = data
                for document_ids_type_0_item_data in (_document_ids_type_0):
                    document_ids_type_0_item = UUID(document_ids_type_0_item_data)



                    document_ids_type_0.append(document_ids_type_0_item)

                return document_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        document_ids = _parse_document_ids(d.pop("document_ids", UNSET))


        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)



                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))


        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))


        tags = cast(list[str], d.pop("tags", UNSET))


        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)



                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))


        search_filters = cls(
            document_ids=document_ids,
            since=since,
            source=source,
            tags=tags,
            until=until,
        )

        return search_filters

