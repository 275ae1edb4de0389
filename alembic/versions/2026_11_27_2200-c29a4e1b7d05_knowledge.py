"""knowledge: documents, their revisions and chunks (full text always, embeddings where pgvector is)

`document_chunks.tsv` is generated from the chunk's text in the chunk's own `regconfig`, indexed with
GIN. `document_embeddings` is created only when the server offers the `vector` extension and this role
may create it; elsewhere knowledge search is full text only.

Revision ID: c29a4e1b7d05
Revises: 5b8e2d4f7a31
Create Date: 2026-11-27 22:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision: str = "c29a4e1b7d05"
down_revision: str | None = "5b8e2d4f7a31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Creates the extension and the embeddings table when pgvector is installed on the server; a role that
# may not create the extension leaves knowledge on full text instead of failing the upgrade.
VECTOR_TABLE = """
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
        BEGIN
            CREATE EXTENSION IF NOT EXISTS vector;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE NOTICE 'pgvector is installed but this role may not create it: full-text search only';
            RETURN;
        END;
        CREATE TABLE IF NOT EXISTS document_embeddings (
            chunk_id bigint PRIMARY KEY REFERENCES document_chunks (id) ON DELETE CASCADE,
            space_id uuid NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
            model varchar(200) NOT NULL,
            embedding vector NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ix_document_embeddings_space_id_model
            ON document_embeddings (space_id, model);
    END IF;
END
$$;
"""


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("space_id", sa.Uuid(), sa.ForeignKey("spaces.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("tags", postgresql.ARRAY(sa.String(100)), server_default="{}", nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("source_url", sa.String(2048)),
        sa.Column("metadata", postgresql.JSONB(), server_default="{}", nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), server_default="pending", nullable=False),
        sa.Column("status_reason", sa.String(1000)),
        sa.Column("revision", sa.Integer(), server_default="1", nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("chunk_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("text", sa.Text(), server_default="", nullable=False),
        sa.Column("content", sa.LargeBinary()),
        sa.Column("indexed_at", sa.DateTime(timezone=True)),
        sa.Column("announced", sa.Boolean(), server_default="false", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.CheckConstraint("status IN ('pending', 'indexed', 'failed')", name=op.f("ck_documents_status")),
        sa.CheckConstraint(
            "format IN ('text', 'markdown', 'html', 'pdf', 'docx')", name=op.f("ck_documents_format")
        ),
    )
    op.create_index("ix_documents_space_id_created_at", "documents", ["space_id", "created_at", "id"])
    op.create_index("ix_documents_space_id_indexed_at", "documents", ["space_id", "indexed_at"])
    op.create_index("ix_documents_tags", "documents", ["tags"], postgresql_using="gin")

    op.create_table(
        "document_revisions",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "document_id", sa.Uuid(), sa.ForeignKey("documents.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("space_id", sa.Uuid(), sa.ForeignKey("spaces.id", ondelete="CASCADE"), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("tags", postgresql.ARRAY(sa.String(100)), nullable=False),
        sa.Column("metadata", postgresql.JSONB(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    op.create_index(
        "uq_document_revisions_document_id_revision",
        "document_revisions",
        ["document_id", "revision"],
        unique=True,
    )

    op.create_table(
        "document_chunks",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column(
            "document_id", sa.Uuid(), sa.ForeignKey("documents.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("space_id", sa.Uuid(), sa.ForeignKey("spaces.id", ondelete="CASCADE"), nullable=False),
        sa.Column("chunk_index", sa.Integer(), nullable=False),
        sa.Column("start_offset", sa.Integer(), nullable=False),
        sa.Column("language", postgresql.REGCONFIG(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tsv", postgresql.TSVECTOR(), sa.Computed("to_tsvector(language, text)", persisted=True)),
    )
    op.create_index(
        "uq_document_chunks_document_id_chunk_index",
        "document_chunks",
        ["document_id", "chunk_index"],
        unique=True,
    )
    op.create_index("ix_document_chunks_space_id", "document_chunks", ["space_id"])
    op.create_index("ix_document_chunks_tsv", "document_chunks", ["tsv"], postgresql_using="gin")
    op.execute(VECTOR_TABLE)


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS document_embeddings")
    op.drop_table("document_chunks")
    op.drop_table("document_revisions")
    op.drop_table("documents")
