"""How many runs of each space waited on each worker queue, sampled once a minute, for the queue chart."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.base import Base


class QueueSample(Base):
    __tablename__ = "queue_samples"
    __table_args__ = (Index("ix_queue_samples_sampled_at", "sampled_at"),)

    space_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spaces.id", ondelete="CASCADE"), primary_key=True)
    sampled_at: Mapped[datetime] = mapped_column(primary_key=True, comment="The minute sampled (UTC).")
    queue: Mapped[str] = mapped_column(String(32), primary_key=True)
    queued: Mapped[int] = mapped_column(Integer, comment="Runs held back (status queued).")
    pending: Mapped[int] = mapped_column(Integer, comment="Runs admitted and waiting for a worker.")
