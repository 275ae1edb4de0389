"""The pure parts of the database guard: which command a statement starts with, and which role findings
stop a registration of each access."""

from __future__ import annotations

import pytest

from app.integrations.database_roles import RoleFinding, role_error
from app.integrations.sql_statements import first_keyword, other_command


class TestFirstKeyword:
    @pytest.mark.parametrize(
        ("sql", "keyword"),
        [
            ("SELECT 1", "select"),
            ("  \n\twith x AS (SELECT 1) SELECT * FROM x", "with"),
            ("((VALUES (1)))", "values"),
            ("-- a note\nTABLE people", "table"),
            ("/* outer /* inner */ still a comment */ notify x", "notify"),
            ("/* never closed", ""),
            ("-- only a comment", ""),
            ("", ""),
            ("$$ SELECT 1 $$", ""),
        ],
    )
    def test_blanks_comments_and_parentheses_are_skipped(self, sql: str, keyword: str) -> None:
        assert first_keyword(sql) == keyword

    def test_only_commands_other_than_reads_are_named(self) -> None:
        assert other_command("insert into t values (1)") == "INSERT"
        assert other_command("(DELETE FROM t)") == "DELETE"
        for read in ("SELECT 1", "WITH x AS (SELECT 1) SELECT 1", "VALUES (1)", "TABLE t"):
            assert other_command(read) is None
        # A typo is left to the server, whose syntax error names it.
        assert other_command("SELEKT 1") is None


class TestRoleError:
    unsafe = RoleFinding("unsafe", "member of pg_signal_backend")
    writes = RoleFinding("write", "INSERT, UPDATE, DELETE or TRUNCATE on notes")

    def test_no_finding_is_no_error(self) -> None:
        assert role_error([], "read") is None
        assert role_error([self.writes], "write") is None

    def test_a_write_stops_read_only(self) -> None:
        error = role_error([self.writes], "read")
        assert error is not None
        assert (error.code, error.retryable) == ("database_role_unsafe", False)
        assert "notes" in error.message
        assert "`write`" in error.message
        assert error.details == [{"severity": "write", "what": self.writes.what}]

    def test_unsafe_stops_both_and_repeats_are_named_once(self) -> None:
        for access in ("read", "write"):
            error = role_error([self.unsafe, self.unsafe, self.writes], access)
            assert error is not None
            assert error.message.count("pg_signal_backend") == 1
            assert ("notes" in error.message) is (access == "read")
