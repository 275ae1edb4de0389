"""Repositories: all SQL of the application lives in this package."""
