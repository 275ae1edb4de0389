"""The event filter grammar as data: its JSON Schema, read from `filter_schema.json` beside this module.

The trigger definitions (registry) embed it and the API serves it, while the grammar's code (the
engine's operator table and compiler) lives above both. The engine generates the same document from
its operator table (`app.engine.filters.schema.build_filter_schema`); a test keeps the two equal, so
a change to an operator that forgets to regenerate this file fails the suite:

    python -c "from app.engine.filters.schema import write_filter_schema; write_filter_schema()"
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILTER_SCHEMA_PATH = Path(__file__).with_name("filter_schema.json")

FILTER_SCHEMA: dict[str, Any] = json.loads(FILTER_SCHEMA_PATH.read_text(encoding="utf-8"))
"""The grammar as JSON Schema (draft 2020-12). Read-only: copy it before embedding it elsewhere."""
