"""Trigger tests reuse the run tests' loopback server and service processes."""

from tests.runs.conftest import loopback, stack

__all__ = ["loopback", "stack"]
