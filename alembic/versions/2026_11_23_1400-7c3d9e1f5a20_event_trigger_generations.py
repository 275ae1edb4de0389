"""event trigger generations: a per-space counter the database bumps when an event trigger changes

Revision ID: 7c3d9e1f5a20
Revises: 3f9a6c2e8d17
Create Date: 2026-11-23 14:00:00.000000+00:00

Event dispatch keeps an in-memory index of a space's event filters and rebuilds it only when this
counter moves. Row triggers bump it on every insert or delete of an event trigger row and on every
update of the columns matching reads (type, event type, config, enabled); `last_fired_at` and
`updated_at` writes leave it alone, so a dispatch never invalidates its own index.
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "7c3d9e1f5a20"
down_revision: str | None = "3f9a6c2e8d17"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BUMP = """
CREATE FUNCTION bump_event_trigger_generation() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed_space uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.space_id ELSE NEW.space_id END;
BEGIN
    INSERT INTO event_trigger_generations AS g (space_id, generation) VALUES (changed_space, 1)
    ON CONFLICT (space_id) DO UPDATE SET generation = g.generation + 1;
    IF TG_OP = 'UPDATE' AND OLD.space_id IS DISTINCT FROM NEW.space_id THEN
        INSERT INTO event_trigger_generations AS g (space_id, generation) VALUES (OLD.space_id, 1)
        ON CONFLICT (space_id) DO UPDATE SET generation = g.generation + 1;
    END IF;
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    # No foreign key: a space's deletion cascades to its trigger rows, whose row triggers write here.
    op.create_table(
        "event_trigger_generations",
        sa.Column("space_id", sa.Uuid(), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("space_id", name=op.f("pk_event_trigger_generations")),
        comment="Moves whenever an event trigger of the space changes: the event index's version.",
    )
    op.execute(_BUMP)
    op.execute(
        "CREATE TRIGGER automation_triggers_event_insert AFTER INSERT ON automation_triggers "
        "FOR EACH ROW WHEN (NEW.type = 'event') EXECUTE FUNCTION bump_event_trigger_generation()"
    )
    op.execute(
        "CREATE TRIGGER automation_triggers_event_delete AFTER DELETE ON automation_triggers "
        "FOR EACH ROW WHEN (OLD.type = 'event') EXECUTE FUNCTION bump_event_trigger_generation()"
    )
    op.execute(
        "CREATE TRIGGER automation_triggers_event_update "
        "AFTER UPDATE OF type, event_type, config, enabled, space_id ON automation_triggers "
        "FOR EACH ROW WHEN ((OLD.type = 'event' OR NEW.type = 'event') AND ("
        "OLD.type IS DISTINCT FROM NEW.type OR OLD.event_type IS DISTINCT FROM NEW.event_type "
        "OR OLD.config IS DISTINCT FROM NEW.config OR OLD.enabled IS DISTINCT FROM NEW.enabled "
        "OR OLD.space_id IS DISTINCT FROM NEW.space_id)) "
        "EXECUTE FUNCTION bump_event_trigger_generation()"
    )


def downgrade() -> None:
    for name in ("insert", "delete", "update"):
        op.execute(f"DROP TRIGGER automation_triggers_event_{name} ON automation_triggers")
    op.execute("DROP FUNCTION bump_event_trigger_generation()")
    op.drop_table("event_trigger_generations")
