"""Triggers: rows kept with definitions, the schedule tick, webhook fires, the event bus."""
