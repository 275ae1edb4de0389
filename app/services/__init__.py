"""Use-cases: repositories + engine + jobs. Services flush, never commit."""
