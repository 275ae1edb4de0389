"""The REST API: thin routers over the services."""
