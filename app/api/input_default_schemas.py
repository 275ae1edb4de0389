"""Bodies and answers of the space input defaults routes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from app.api.schemas import Body, Out


class InputDefaultPut(Body):
    value: Any = Field(
        description="Any JSON value but null, at most 16 KB; never a secret reference or a credential."
    )


class InputDefaultOut(Out):
    name: str = Field(description="The input name whose `$space_default` takes this value.")
    value: Any
    updated_by: uuid.UUID | None
    created_at: datetime
    updated_at: datetime
