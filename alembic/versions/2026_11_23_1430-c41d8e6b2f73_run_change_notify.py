"""run changes: NOTIFY run_changes on every new run and status change (the live runs page)

Revision ID: c41d8e6b2f73
Revises: a7c3e91f5d20
Create Date: 2026-11-23 13:50:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "c41d8e6b2f73"
down_revision: str | None = "a7c3e91f5d20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # NOTIFY is delivered at commit and never for a rolled-back change, so listeners only hear of rows
    # other sessions can read. The payload is ids and the status only (well under NOTIFY's 8000 bytes).
    op.execute(
        """
        CREATE FUNCTION notify_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('run_changes', json_build_object(
            'space_id', NEW.space_id,
            'run_id', NEW.id,
            'automation_id', NEW.automation_id,
            'status', NEW.status,
            'at', floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint
          )::text);
          RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER runs_notify_change
        AFTER INSERT OR UPDATE OF status ON runs
        FOR EACH ROW
        EXECUTE FUNCTION notify_run_change()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER runs_notify_change ON runs")
    op.execute("DROP FUNCTION notify_run_change()")
