"""Security primitives: token hashing, the AES-256-GCM keyring, the egress guard, redaction, truncation."""
