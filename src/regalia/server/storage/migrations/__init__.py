"""Alembic migrations of the tables database (run by ``regalia.server.storage.store.migrate``)."""
