"""Security primitives: token hashing, and later crypto, egress guard, redaction."""
