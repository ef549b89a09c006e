"""Checks shared by every game's position reader (formats.md, general conventions)."""

from __future__ import annotations

from typing import Any

from regalia.core.errors import InvalidPosition


def check_fields(obj: Any, game: str, fields: tuple[str, ...], required: tuple[str, ...]) -> None:
    """Refuse a position that is not an object of ``game`` with only known ``fields`` and
    every ``required`` one; raises ``InvalidPosition`` naming the field."""
    if not isinstance(obj, dict):
        raise InvalidPosition("position: must be a JSON object")
    for key in obj:
        if key not in fields:
            raise InvalidPosition(f"{key}: unknown field; the fields are {', '.join(fields)}")
    for key in required:
        if key not in obj:
            raise InvalidPosition(f"{key}: missing (required)")
    if obj["game"] != game:
        raise InvalidPosition(f"game: {obj['game']!r} is not {game!r}")
