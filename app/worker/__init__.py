"""Celery worker and beat: the app, per-process runtime and thin tasks."""
