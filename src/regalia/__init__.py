"""Regalia: exact rules engines, tables and bots for Regicide and Le Roy des Ribauds."""

__version__ = "0.1.0"
