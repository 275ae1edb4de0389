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
from app.persistence.writer.plans import PlanShape
from app.persistence.writer.statements import plan_statement


def _finish(*, alone: bool) -> Any:
    return plan_statement(
        PlanShape(
            target=RunStatus.succeeded,
            sources=(RunStatus.running,),
            fenced=True,
            columns=("output",),
            with_end=True,
            listening_types=("automation.run.succeeded",),
            announce=True,
            fail_suspended=False,
            alone=alone,
        )
    )


def _sql(statement: Any) -> str:
    return str(statement.compile(dialect=postgresql.dialect()))


def test_a_constant_is_quoted_into_the_sql() -> None:
    assert _sql(constant("it's")) == "'it''s'"


@pytest.mark.parametrize(
    "statement",
    [
        _finish(alone=False),
        _finish(alone=True),
    ],
    ids=["in_a_transaction", "alone"],
)
def test_the_finish_names_its_partial_index_constants(statement: Any) -> None:
    sql = _sql(statement)
    assert "queued.status = 'queued'" in sql
    assert "automation_triggers.type = 'event'" in sql
