"""Rule options shared machinery: each game's options are a frozen dataclass of this kind."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from regalia.core.errors import InvalidPosition


@dataclass(frozen=True)
class RuleOptions:
    """Base of a game's rule options (rules pages, "Rule options"): the field defaults are
    the rules as stated; subclasses add fields and ``problem`` checks of their values."""

    @classmethod
    def problem(cls, key: str, value: Any, players: int | None) -> str | None:
        """Why ``value`` is not allowed for option ``key``, or ``None``."""
        return None

    @classmethod
    def from_dict(cls, obj: Any, players: int | None = None):
        """Options from a JSON object; raises ``InvalidPosition`` naming a bad key or value."""
        if obj is None:
            return cls()
        if not isinstance(obj, dict):
            raise InvalidPosition("options: must be an object")
        known = {f.name for f in fields(cls)}
        for key, value in obj.items():
            if key not in known:
                raise InvalidPosition(
                    f"options.{key}: unknown option; the options are {', '.join(sorted(known))}")
            why = cls.problem(key, value, players)
            if why:
                raise InvalidPosition(f"options.{key}: {why}")
        return cls(**obj)

    def to_dict(self) -> dict[str, Any]:
        """Only the options that differ from the defaults (a new dict at each call)."""
        return dict(_changed(self))


@lru_cache(maxsize=256)
def _changed(options: RuleOptions) -> tuple[tuple[str, Any], ...]:
    """``(name, value)`` of the options that differ from the defaults: views ask at every
    move, and options never change (frozen)."""
    default = type(options)()
    return tuple((f.name, getattr(options, f.name)) for f in fields(options)
                 if getattr(options, f.name) != getattr(default, f.name))
