"""Outbound webhooks: endpoints, the outbox written with state changes, deliveries."""
