"""access changes: NOTIFY access_changes when a token or a membership ends; who started an OAuth flow

Open run event streams hold their caller's access for as long as they stay open. A token revoked, its
expiry moved, or a membership removed or changed now sends `NOTIFY access_changes` at commit (from any
process: the API, the CLI, a cascade), so each API process re-checks the streams it concerns at once.

`mcp_connections.oauth_started_by`: the user who started the OAuth authorization in progress; only
they can complete it.

Revision ID: 5b8e2d7f4c19
Revises: 9e4b7a2c6d15
Create Date: 2026-11-26 10:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "5b8e2d7f4c19"
down_revision: str | None = "9e4b7a2c6d15"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Ids only in the payload; like run changes, NOTIFY is sent at commit and never for a rollback.
    op.execute(
        """
        CREATE FUNCTION notify_token_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('access_changes', json_build_object('token_id', OLD.id)::text);
          RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER api_tokens_notify_access_change
        AFTER UPDATE OF revoked_at, expires_at OR DELETE ON api_tokens
        FOR EACH ROW
        EXECUTE FUNCTION notify_token_access_change()
        """
    )
    op.execute(
        """
        CREATE FUNCTION notify_membership_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('access_changes', json_build_object(
            'space_id', OLD.space_id, 'user_id', OLD.user_id
          )::text);
          RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER memberships_notify_access_change
        AFTER UPDATE OR DELETE ON memberships
        FOR EACH ROW
        EXECUTE FUNCTION notify_membership_access_change()
        """
    )
    op.add_column(
        "mcp_connections",
        sa.Column(
            "oauth_started_by",
            sa.Uuid(),
            sa.ForeignKey("users.id", name="fk_mcp_connections_oauth_started_by_users", ondelete="SET NULL"),
            nullable=True,
            comment="The user who started the authorization in progress; only they may complete it.",
        ),
    )


def downgrade() -> None:
    op.drop_column("mcp_connections", "oauth_started_by")
    op.execute("DROP TRIGGER memberships_notify_access_change ON memberships")
    op.execute("DROP FUNCTION notify_membership_access_change()")
    op.execute("DROP TRIGGER api_tokens_notify_access_change ON api_tokens")
    op.execute("DROP FUNCTION notify_token_access_change()")
