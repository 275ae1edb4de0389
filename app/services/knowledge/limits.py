"""The operator's knowledge settings, as one value the API, the indexer and the search hand around."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings

# Characters of a document's text one read answers by default, and at most.
DEFAULT_READ_CHARS = 20_000
MAX_READ_CHARS = 100_000
MAX_TOP_K = 50
MAX_TAGS = 50
MAX_TAG_CHARS = 100
MAX_TITLE_CHARS = 500
MAX_METADATA_BYTES = 16 * 1024
MAX_QUERY_CHARS = 1000
INDEX_TASK = "system.index_document"
SYSTEM_QUEUE = "system"


@dataclass(frozen=True)
class KnowledgeLimits:
    max_upload_bytes: int = 20 * 1024**2
    max_documents: int = 10_000
    max_space_bytes: int = 1024**3
    max_text_chars: int = 2_000_000
    language: str = "english"
    embedding_model: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> KnowledgeLimits:
        return cls(
            max_upload_bytes=settings.knowledge_max_upload_bytes,
            max_documents=settings.knowledge_max_documents,
            max_space_bytes=settings.knowledge_max_space_bytes,
            max_text_chars=settings.knowledge_max_text_chars,
            language=settings.knowledge_language,
            embedding_model=settings.knowledge_embedding_model,
        )
