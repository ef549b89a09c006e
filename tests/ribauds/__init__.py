"""Tests of the Le Roy des Ribauds engine (rules/ribauds.md)."""
