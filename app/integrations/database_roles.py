"""What the role behind a registered database may do, read from that server's catalogs.

A `READ ONLY` transaction stops writes to tables, but not what a role's attributes and memberships
allow: a superuser runs `COPY … TO PROGRAM` (a shell on the database host) and reads server files, a
member of `pg_signal_backend` terminates other sessions, and a role that can write a table can do so
through `dblink` or a function of its own. The role is the wall, so it is checked at registration and
before each claim's first query; the transaction's read-only mode only backs it up.

What is refused:
- always (`unsafe`): superuser, `REPLICATION` (streams the cluster's WAL, manages slots), `CREATEROLE`
  (administers roles; before PostgreSQL 16 it could grant itself any non-superuser role, the ones
  below included), and membership in the predefined roles that reach the host or other sessions;
- unless the registration is `write` (`write`): `CREATEDB`, membership in `pg_write_all_data` or
  `pg_maintain`, INSERT, UPDATE, DELETE or TRUNCATE on any table, view or foreign table (on some
  columns too), USAGE or UPDATE on a sequence, owning a relation or a function, CREATE on any schema
  or on the database.
- accepted: `BYPASSRLS` (it widens what the role reads, never what it changes or reaches).

Every check counts a role the login role is a member of, directly or not, as the role itself: a member
can take it on with `SET ROLE` (or `set_config('role', …)` from inside a SELECT).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from app.definitions.signals import StepError

Severity = Literal["unsafe", "write"]
ACCESS_LEVELS = ("read", "write")

# Members reach the database host's programs and files, or other sessions: never accepted.
HOST_ROLES = (
    "pg_execute_server_program",
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_signal_backend",
    "pg_signal_autovacuum_worker",
    "pg_checkpoint",
    "pg_create_subscription",
)
# Members change any table's data: a `write` registration only.
WRITING_ROLES = ("pg_write_all_data", "pg_maintain")
# How many findings of each severity an answer names (a role that owns a schema owns many tables).
MAX_NAMED = 5

# One round trip. Findings name predefined roles and objects, never the login role or other roles (a
# step's error is shown to every member). `pg_has_role(…, 'MEMBER')` counts indirect memberships and
# the role itself; roles missing from an older server (pg_maintain) simply match no row. Temporary
# schemas are other sessions' (or this one's) scratch space, not the database's data; the system
# catalogs are written only by superusers (refused above), except `pg_settings`, whose UPDATE by
# anyone is a session SET.
ROLE_FINDINGS_SQL = """
WITH member_of AS (
    SELECT r.oid, r.rolname, r.rolsuper, r.rolreplication, r.rolcreaterole, r.rolcreatedb,
           CASE WHEN r.rolname = current_user THEN 'the role' ELSE 'a role it is a member of' END AS who
    FROM pg_roles r
    WHERE pg_has_role(current_user, r.oid, 'MEMBER')
),
relations AS (
    SELECT c.oid, c.relkind, c.relowner
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
)
SELECT 'unsafe', who || ': superuser' FROM member_of WHERE rolsuper
UNION ALL SELECT 'unsafe', who || ': REPLICATION' FROM member_of WHERE rolreplication
UNION ALL SELECT 'unsafe', who || ': CREATEROLE' FROM member_of WHERE rolcreaterole
UNION ALL SELECT 'unsafe', 'member of ' || rolname FROM member_of WHERE rolname = ANY($1::text[])
UNION ALL SELECT 'write', who || ': CREATEDB' FROM member_of WHERE rolcreatedb
UNION ALL SELECT 'write', 'member of ' || rolname FROM member_of WHERE rolname = ANY($2::text[])
UNION ALL SELECT 'write', 'CREATE on the database'
    WHERE has_database_privilege(current_database(), 'CREATE')
UNION ALL (
    SELECT 'write', 'CREATE on schema ' || quote_ident(n.nspname)
    FROM pg_namespace n
    WHERE has_schema_privilege(n.oid, 'CREATE')
      AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
    ORDER BY n.nspname LIMIT $3
)
UNION ALL (
    SELECT 'write',
        CASE WHEN pg_has_role(current_user, relowner, 'MEMBER') THEN 'owns '
             WHEN relkind = 'S' THEN 'USAGE or UPDATE (nextval, setval) on sequence '
             WHEN has_table_privilege(oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
                 THEN 'INSERT, UPDATE, DELETE or TRUNCATE on '
             ELSE 'INSERT or UPDATE on columns of '
        END || oid::regclass::text
    FROM relations
    WHERE pg_has_role(current_user, relowner, 'MEMBER')
       OR (relkind = 'S' AND has_sequence_privilege(oid, 'USAGE, UPDATE'))
       OR (relkind <> 'S' AND (has_table_privilege(oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
                               OR has_any_column_privilege(oid, 'INSERT, UPDATE')))
    ORDER BY oid LIMIT $3
)
UNION ALL (
    SELECT 'write', 'owns function ' || p.oid::regprocedure::text
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE pg_has_role(current_user, p.proowner, 'MEMBER')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema')
    ORDER BY p.oid LIMIT $3
)
"""


@dataclass(frozen=True)
class RoleFinding:
    """One thing the role may do beyond reading: `unsafe` is never accepted, `write` only for `write`."""

    severity: Severity
    what: str

    def as_dict(self) -> dict[str, str]:
        return {"severity": self.severity, "what": self.what}


def role_findings_args() -> tuple[list[str], list[str], int]:
    """The bound values of `ROLE_FINDINGS_SQL` ($1, $2, $3)."""
    return list(HOST_ROLES), list(WRITING_ROLES), MAX_NAMED


def refused(findings: list[RoleFinding], access: str) -> list[RoleFinding]:
    """The findings that stop a registration of this access: all of them for `read`, `unsafe` for `write`."""
    return [f for f in findings if f.severity == "unsafe" or access != "write"]


def role_error(findings: list[RoleFinding], access: str) -> StepError | None:
    """The step error of a role this registration may not use (never retried), or None when it may."""
    stopping = list(dict.fromkeys(refused(findings, access)))  # two member roles may say the same
    if not stopping:
        return None
    unsafe = [f.what for f in stopping if f.severity == "unsafe"]
    writes = [f.what for f in stopping if f.severity == "write"]
    reasons: list[str] = []
    if unsafe:
        reasons.append("it reaches beyond the database (" + "; ".join(unsafe) + ")")
    if writes:
        reasons.append(
            "it can change data (" + "; ".join(writes) + "); register the database with access `write` "
            "to accept that"
        )
    details: Any = [finding.as_dict() for finding in stopping]
    return StepError(
        "database_role_unsafe",
        f"the DSN's role may not be used for {access} queries: " + ", and ".join(reasons),
        retryable=False,
        details=details,
    )
