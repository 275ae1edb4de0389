"""Read-only queries on a second real PostgreSQL database: caps, timeouts, writes refused, bound params."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from app.definitions.signals import StepError
from app.integrations.dsn import DsnProblem, parse_dsn
from app.integrations.user_databases import MAX_POOLS, QueryRunner
from app.security.egress import EgressAllowList
from tests.databases.conftest import RoleMaker
from tests.support.servers import admin_sql

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")


@pytest.fixture
async def runner() -> AsyncIterator[QueryRunner]:
    queries = QueryRunner(LOOPBACK, statement_timeout_seconds=1)
    yield queries
    await queries.close()


async def failure(runner: QueryRunner, dsn: str, sql: str, params: list | None = None) -> StepError:
    with pytest.raises(StepError) as caught:
        await runner.query("db", dsn, sql, params or [])
    return caught.value


async def failure_as(runner: QueryRunner, dsn: str, sql: str, access: str) -> StepError:
    with pytest.raises(StepError) as caught:
        await runner.query("db", dsn, sql, [], access)
    return caught.value


class TestAnswers:
    async def test_columns_rows_and_json_values(self, runner: QueryRunner, warehouse_dsn: str) -> None:
        answer = await runner.query("db", warehouse_dsn, "SELECT id, name, score FROM people ORDER BY id", [])
        assert answer == {
            "columns": ["id", "name", "score"],
            "rows": [[1, "Ada", "9.5"], [2, "Grace", "8.25"], [3, "Linus", None]],
            "row_count": 3,
            "truncated": False,
        }

    async def test_a_100k_row_table_is_cut_at_1000_rows(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        answer = await runner.query("db", warehouse_dsn, "SELECT * FROM events ORDER BY id", [])
        assert answer["row_count"] == 1000
        assert answer["truncated"] is True
        assert answer["rows"][-1][0] == 1000

    async def test_wide_rows_are_cut_at_one_megabyte(self, runner: QueryRunner, warehouse_dsn: str) -> None:
        answer = await runner.query("db", warehouse_dsn, "SELECT repeat('x', 5000) FROM events", [])
        assert answer["truncated"] is True
        assert 100 < answer["row_count"] < 1000
        assert len(json.dumps(answer["rows"])) <= 1024 * 1024

    async def test_parameters_are_bound_never_formatted(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        found = await runner.query("db", warehouse_dsn, "SELECT name FROM people WHERE id = $1", [2])
        assert found["rows"] == [["Grace"]]
        hostile = "Ada'; DROP TABLE people; --"
        none = await runner.query("db", warehouse_dsn, "SELECT id FROM people WHERE name = $1", [hostile])
        assert none["rows"] == []
        still = await runner.query("db", warehouse_dsn, "SELECT count(*) FROM people", [])
        assert still["rows"] == [[3]]

    async def test_tables_lists_the_schema(self, runner: QueryRunner, warehouse_dsn: str) -> None:
        listing = await runner.tables("db", warehouse_dsn)
        by_name = {table["name"]: table for table in listing["tables"]}
        assert {"events", "people"} <= set(by_name)
        assert [c["name"] for c in by_name["people"]["columns"]] == ["id", "name", "score"]

    async def test_sessions_are_read_only_with_both_timeouts(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        answer = await runner.query(
            "db",
            warehouse_dsn,
            "SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'),"
            " current_setting('idle_in_transaction_session_timeout')",
            [],
        )
        assert answer["rows"] == [["on", "1s", "2s"]]

    async def test_pools_stay_few_and_small(self, runner: QueryRunner, warehouse_dsn: str) -> None:
        for index in range(MAX_POOLS + 3):
            await runner.query(f"db-{index}", warehouse_dsn, "SELECT 1", [])
        assert runner.open_pools == MAX_POOLS
        await asyncio.gather(
            *(runner.query("db-0", warehouse_dsn, "SELECT pg_sleep(0.05)", []) for _ in range(6))
        )
        assert runner.open_pools == MAX_POOLS


class TestRefusals:
    @pytest.mark.parametrize(
        ("sql", "keyword"),
        [
            ("INSERT INTO people VALUES (4, 'Eve', 1)", "INSERT"),
            ("NOTIFY automations_test", "NOTIFY"),
            ("LISTEN automations_test", "LISTEN"),
            ("COPY (SELECT 1) TO PROGRAM 'true'", "COPY"),
            ("SET transaction_read_only = off", "SET"),
            ("DO $$ BEGIN DELETE FROM people; END $$", "DO"),
            ("CALL some_procedure()", "CALL"),
            ("  /* a /* nested */ comment */ -- and a line\n (DELETE FROM people)", "DELETE"),
            ("EXPLAIN ANALYZE DELETE FROM people", "EXPLAIN"),
        ],
    )
    async def test_a_statement_that_is_no_read_is_refused_before_it_is_sent(
        self, runner: QueryRunner, warehouse_dsn: str, sql: str, keyword: str
    ) -> None:
        error = await failure(runner, warehouse_dsn, sql)
        assert error.code == "database_read_only"
        assert f"starts with {keyword}" in error.message
        assert not error.retryable
        count = await runner.query("db", warehouse_dsn, "SELECT count(*) FROM people", [])
        assert count["rows"] == [[3]]

    @pytest.mark.parametrize(
        "sql",
        [
            "WITH gone AS (DELETE FROM people RETURNING id) SELECT * FROM gone",
            "SELECT * INTO stolen FROM people",
            "SELECT 1; DELETE FROM people",
            "SELECT 1; NOTIFY automations_test",
            "(SELECT 1) UNION ALL (SELECT 2); DELETE FROM people",
        ],
    )
    async def test_the_server_refuses_a_write_behind_a_read_keyword(
        self, runner: QueryRunner, warehouse_dsn: str, sql: str
    ) -> None:
        error = await failure(runner, warehouse_dsn, sql)
        assert error.code == "query_error"
        assert not error.retryable
        count = await runner.query("db", warehouse_dsn, "SELECT count(*) FROM people", [])
        assert count["rows"] == [[3]]

    async def test_a_select_cannot_turn_its_transaction_read_write(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        error = await failure(
            runner, warehouse_dsn, "SELECT set_config('transaction_read_only', 'off', true)"
        )
        assert "read-write mode must be set before any query" in error.message
        locked = await failure(runner, warehouse_dsn, "SELECT * FROM people FOR UPDATE")
        assert locked.code == "database_read_only"

    async def test_a_role_taken_on_in_a_query_ends_with_it(
        self, runner: QueryRunner, make_role: RoleMaker
    ) -> None:
        dsn = await make_role("monitor")
        taken = await runner.query("db", dsn, "SELECT set_config('role', 'pg_monitor', false)", [])
        assert taken["rows"] == [["pg_monitor"]]
        # The pool holds two connections: every later query, on either, is the login role again.
        answers = await asyncio.gather(
            *(runner.query("db", dsn, "SELECT current_user, pg_sleep(0.05)", []) for _ in range(4))
        )
        assert {answer["rows"][0][0] for answer in answers} == {make_url(dsn).username}

    async def test_a_slow_query_is_stopped_by_the_statement_timeout(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        error = await failure(runner, warehouse_dsn, "SELECT pg_sleep(30)")
        assert error.code == "query_timeout"
        assert "statement timeout" in error.message
        after = await runner.query("db", warehouse_dsn, "SELECT 1 AS one", [])
        assert after["rows"] == [[1]], "the pool's connection is usable after a cancelled statement"

    async def test_a_syntax_error_is_a_step_error_not_retried(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        error = await failure(runner, warehouse_dsn, "SELEKT 1")
        assert error.code == "query_error"
        assert "syntax error" in error.message
        assert not error.retryable

    async def test_two_statements_in_one_call_are_refused(
        self, runner: QueryRunner, warehouse_dsn: str
    ) -> None:
        error = await failure(runner, warehouse_dsn, "SELECT 1; DELETE FROM people")
        assert error.code == "query_error"

    async def test_a_metadata_address_is_refused_before_connecting(self, runner: QueryRunner) -> None:
        error = await failure(runner, "postgresql://u:p@169.254.169.254:5432/db", "SELECT 1")
        assert error.code == "egress_denied"
        assert "169.254" not in error.message

    async def test_loopback_is_refused_unless_opened(self, warehouse_dsn: str) -> None:
        closed = QueryRunner(EgressAllowList(), statement_timeout_seconds=1)
        error = await failure(closed, warehouse_dsn, "SELECT 1")
        assert error.code == "egress_denied"


class TestRoles:
    async def test_a_reader_cannot_signal_a_session_of_another_role(
        self, runner: QueryRunner, warehouse_dsn: str, make_role: RoleMaker
    ) -> None:
        other = make_url(await make_role("reader"))
        victim = await asyncpg.connect(
            host=other.host, port=other.port, user=other.username, database=other.database
        )
        try:
            pid = await victim.fetchval("SELECT pg_backend_pid()")
            for function in ("pg_terminate_backend", "pg_cancel_backend"):
                error = await failure(runner, warehouse_dsn, f"SELECT {function}($1::int)", [pid])
                assert error.code == "query_error"
                assert error.message.startswith("42501:"), error.message  # insufficient privilege
            assert await victim.fetchval("SELECT 1") == 1
        finally:
            await victim.close()

    async def test_check_role_refuses_by_access(self, runner: QueryRunner, make_role: RoleMaker) -> None:
        await runner.check_role("reader", await make_role("reader"), "read")
        inserter = await make_role("inserter")
        await runner.check_role("inserter", inserter, "write")
        with pytest.raises(StepError) as caught:
            await runner.check_role("inserter", inserter, "read")
        assert caught.value.code == "database_role_unsafe"
        assert not caught.value.retryable
        signaller = await make_role("signaller")
        for access in ("read", "write"):
            with pytest.raises(StepError) as caught:
                await runner.check_role("signaller", signaller, access)
            assert "pg_signal_backend" in caught.value.message

    async def test_a_write_access_runs_any_one_statement_read_write(
        self, runner: QueryRunner, make_role: RoleMaker, warehouse_admin_url: str
    ) -> None:
        dsn = await make_role("inserter")
        try:
            done = await runner.query("w", dsn, "INSERT INTO notes VALUES ($1, $2)", [7, "x"], "write")
            assert done == {"columns": [], "rows": [], "row_count": 0, "truncated": False}
            read = await runner.query("w", dsn, "SELECT body FROM notes WHERE id = 7", [], "write")
            assert read["rows"] == [["x"]]
            # Still one statement per call, and only what the role was granted.
            error = await failure_as(runner, dsn, "INSERT INTO notes VALUES (8, 'y'); SELECT 1", "write")
            assert error.code == "query_error"
            denied = await failure_as(runner, dsn, "DELETE FROM notes", "write")
            assert "permission denied" in denied.message
            # The same DSN as `read` is refused before it is sent.
            refused = await failure_as(runner, dsn, "INSERT INTO notes VALUES (9, 'z')", "read")
            assert refused.code == "database_read_only"
        finally:
            await admin_sql(warehouse_admin_url, "DELETE FROM notes")


class TestDsn:
    @pytest.mark.parametrize(
        "dsn",
        [
            "mysql://u:p@host/db",
            "postgresql:///db?host=/var/run/postgresql",
            "postgresql://u:p@host:99999/db",
            "postgresql://u:p@host/",
            "postgresql://u:p@host/db?sslmode=verify-full",
            "postgresql://u:p@host/db?options=-c%20default_transaction_read_only%3Doff",
            "not a dsn",
        ],
    )
    def test_unusable_dsns_are_refused_without_quoting_them(self, dsn: str) -> None:
        with pytest.raises(DsnProblem) as caught:
            parse_dsn(dsn)
        assert "u:p" not in str(caught.value)
        assert "host" not in str(caught.value).replace("name a host", "")

    def test_a_good_dsn_keeps_its_parts_out_of_its_repr(self) -> None:
        dsn = parse_dsn("postgresql://reader:s3cr%40t@db.example.com:6543/warehouse?sslmode=require")
        assert (dsn.host, dsn.port, dsn.database, dsn.user, dsn.password, dsn.sslmode) == (
            "db.example.com",
            6543,
            "warehouse",
            "reader",
            "s3cr@t",
            "require",
        )
        assert "s3cr" not in repr(dsn)
