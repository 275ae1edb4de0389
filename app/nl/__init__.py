"""Natural-language authoring: a plain request becomes a validated, reviewed draft a human may save.

Drafts live in Redis with a TTL (`store`); the generator (`generator`) proposes definitions through the
LLM port and re-prompts with the validator's problems; `review` summarises and `flags` points out what
deserves a look; `service` ties the passes together. Nothing here saves or activates an automation on
its own: saving is always the user's explicit call.
"""
