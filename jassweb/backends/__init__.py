"""Database backends: Django's, without its per-query logging under ``DEBUG`` (see ``queries_logged``)."""
