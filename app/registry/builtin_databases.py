"""`database_query`: a step that runs one statement on a database the space registered.

The database's capabilities (`<prefix>.query`, `<prefix>.tables`) come from the resolver's database
tier, per space; this action names the prefix and forwards to `<prefix>.query` through the pipeline,
so the call is resolved, validated and recorded like any other.
"""

from __future__ import annotations

from typing import Any

from app.registry.models import ActionDefinition
from app.registry.ports import HandlerContext

QUERY_RESULT: dict[str, Any] = {
    "type": "object",
    "required": ["columns", "rows", "row_count", "truncated"],
    "properties": {
        "columns": {"type": "array", "items": {"type": "string"}},
        "rows": {"type": "array", "items": {"type": "array"}},
        "row_count": {"type": "integer"},
        "truncated": {"type": "boolean"},
    },
}


async def _database_query(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    args: dict[str, Any] = {"sql": config["sql"]}
    if "params" in config:
        args["params"] = config["params"]
    return await ctx.invoke_capability(f"{config['database']}.query", args)


DATABASE_QUERY = ActionDefinition(
    type="database_query",
    name="Database query",
    description=(
        "Run one SQL statement on a database registered in the space (POST …/databases), with bound "
        "parameters ($1, $2, ...). Answers columns and rows (at most 1,000 rows and 1 MB; `truncated` "
        "says when more were left out). On a database registered `read` (the default) it must be one "
        "SELECT, WITH, VALUES or TABLE statement, and anything else fails with database_read_only; on one "
        "registered `write` it may write, and the call is a write."
    ),
    config_schema={
        "type": "object",
        "required": ["database", "sql"],
        "properties": {
            "database": {
                "type": "string",
                "pattern": "^[a-z][a-z0-9_]{0,39}$",
                "description": "The tool prefix the database was registered with.",
            },
            "sql": {"type": "string", "minLength": 1, "maxLength": 100000},
            "params": {
                "type": "array",
                "maxItems": 1000,
                "items": {"type": ["string", "number", "boolean", "null"]},
            },
        },
        "additionalProperties": False,
    },
    output_contract=QUERY_RESULT,
    handler=_database_query,
    duration_class="fast",
)
