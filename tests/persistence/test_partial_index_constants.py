"""The hot statements name the constants of partial indexes in their SQL text, not as parameters.

PostgreSQL proves a partial index's predicate (`WHERE status = 'queued'`) only from constants: a bound
value hides it from the generic plan a prepared statement settles on, and the statement then scans the
table. This pins the finishing statements' checks (one per run) to the literal form.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.dialects import postgresql

from app.definitions.run_states import RunStatus
from app.persistence.base import constant
from app.persistence.repositories.run_finish import finish_alone_statement, finish_with_context_statement


def _sql(statement: Any) -> str:
    return str(statement.compile(dialect=postgresql.dialect()))


def test_a_constant_is_quoted_into_the_sql() -> None:
    assert _sql(constant("it's")) == "'it''s'"


@pytest.mark.parametrize(
    "statement",
    [
        finish_with_context_statement(RunStatus.succeeded, ("output",), True, ("automation.run.succeeded",)),
        finish_alone_statement(RunStatus.succeeded, ("output",), True, ("automation.run.succeeded",), True),
    ],
    ids=["in_a_transaction", "alone"],
)
def test_the_finish_names_its_partial_index_constants(statement: Any) -> None:
    sql = _sql(statement)
    assert "queued.status = 'queued'" in sql
    assert "automation_triggers.type = 'event'" in sql
