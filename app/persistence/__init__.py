"""Persistence: SQLAlchemy models, sessions and repositories."""
