"""transform_data's files: JSON as it is, CSV from rows, anything else refused."""

from __future__ import annotations

import json

import pytest

from app.definitions.signals import StepError
from app.registry.data_files import encode_data


def test_json_keeps_the_value() -> None:
    data, content_type = encode_data({"é": [1, None]}, "json")
    assert content_type == "application/json"
    assert json.loads(data) == {"é": [1, None]}


def test_csv_from_objects_takes_columns_in_order_of_first_appearance() -> None:
    data, content_type = encode_data([{"a": 1, "b": True}, {"c": {"x": 1}, "a": None}], "csv")
    assert content_type.startswith("text/csv")
    assert data.decode().splitlines() == ["a,b,c", "1,true,", ',,"{""x"": 1}"']


def test_csv_from_lists_keeps_rows_as_they_are() -> None:
    data, _ = encode_data([["name", "n"], ["Ada, L.", 2.5]], "csv")
    assert data.decode().splitlines() == ["name,n", '"Ada, L.",2.5']


@pytest.mark.parametrize("value", [{"not": "rows"}, "text", [{"a": 1}, [1]], [1, 2]])
def test_csv_refuses_what_is_not_rows(value: object) -> None:
    with pytest.raises(StepError) as caught:
        encode_data(value, "csv")
    assert caught.value.code == "invalid_csv"
    assert not caught.value.retryable
