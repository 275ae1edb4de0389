"""schemathesis hooks of the contract test (named by `hooks` in schemathesis.toml).

A listing's cursor is valid only when that listing issued it: the document states its alphabet and
length, but no schema can state "a value this server wrote". A request generated as valid therefore
pages from the start (its cursor dropped); requests generated as invalid keep theirs, so a malformed
cursor is still sent and must still be refused.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis.core.parameters import ParameterLocation


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    meta = case.meta
    negative_query = meta is not None and meta.is_negative_at(ParameterLocation.QUERY)
    if case.query and "cursor" in case.query and not negative_query:
        del case.query["cursor"]
        kwargs.get("params", {}).pop("cursor", None)
