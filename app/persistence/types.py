"""The database handles and errors other layers name in their signatures.

Everything outside persistence (and the composition roots) imports these from here, never from SQLAlchemy,
so the layer contract can forbid SQLAlchemy elsewhere: a session passes through services, only
repositories write statements on it.
"""

from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

__all__ = [
    "AsyncEngine",
    "AsyncSession",
    "IntegrityError",
    "InterfaceError",
    "OperationalError",
    "async_sessionmaker",
]
