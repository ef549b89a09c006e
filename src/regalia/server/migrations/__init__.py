"""Alembic migrations of the tables database (run by ``regalia.server.store.migrate``)."""
