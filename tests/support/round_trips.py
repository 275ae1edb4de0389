"""Counting a test's round trips to the database through SQLAlchemy's engine events."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event


@contextmanager
def counted(app: Any) -> Iterator[list[str]]:
    """Round trips sent through the app's engine meanwhile, by statement text (or BEGIN/COMMIT/ROLLBACK)."""
    sent: list[str] = []
    engine = app.state.engine.sync_engine

    def statement(conn: Any, cursor: Any, text: str, *_: Any) -> None:
        sent.append(text)

    def transaction(name: str) -> Any:
        def listener(conn: Any, *_: Any) -> None:
            if conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
                sent.append(name)

        return listener

    listeners = [("before_cursor_execute", statement)] + [
        (name, transaction(name.upper())) for name in ("begin", "commit", "rollback")
    ]
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield sent
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)
