"""``regalia serve``'s setting options, made from ``Settings``' fields: each field
``foo_bar`` is an option ``--foo-bar`` with the field's description as its help, so that a
new field is a new option. A field's ``cli`` metadata (``settings._cli``) keeps the older
names: ``--bot-threads`` (the inverse of ``bot_processes``), ``--allowed-origin`` (given
once per item of ``allowed_origins``), a choice list (``--sqlite-sync``).

An option not given is left to the environment (``REGALIA_FOO_BAR``), then the default;
an option given wins. Imports typer and pydantic only (``--help`` stays fast).
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Any, Callable, Literal, Optional

import typer
from pydantic import ValidationError

from regalia.server.settings import Settings, problem


class Spec(typing.NamedTuple):
    field: str
    param: str          # the command's parameter name
    flag: str           # the option's name, with its dashes
    inverse: bool
    repeat: bool


def specs() -> list[Spec]:
    """One option per ``Settings`` field, in the fields' order."""
    out = []
    for name, f in Settings.model_fields.items():
        how = (f.json_schema_extra or {}).get("cli", {}) if isinstance(f.json_schema_extra, dict) else {}
        flag = "--" + how.get("flag", name.replace("_", "-"))
        out.append(Spec(name, flag[2:].replace("-", "_"), flag, bool(how.get("inverse")),
                        bool(how.get("repeat"))))
    return out


def _option(spec: Spec) -> tuple[Any, Any]:
    """The parameter's annotation and its ``typer.Option``."""
    f = Settings.model_fields[spec.field]
    how = f.json_schema_extra.get("cli", {}) if isinstance(f.json_schema_extra, dict) else {}
    kind = next((a for a in typing.get_args(f.annotation) if a is not type(None)), f.annotation)
    default = f.default
    if spec.repeat:
        return Optional[list[str]], typer.Option(None, spec.flag, help=f.description,
                                                 show_default=False)
    if kind is bool:
        shown = not default if spec.inverse else default
        return Optional[bool], typer.Option(None, f"{spec.flag}/--no-{spec.flag[2:]}",
                                            help=f.description, show_default=str(shown).lower())
    if how.get("choices"):
        kind = Literal[tuple(how["choices"])]  # type: ignore[valid-type]
    return Optional[kind], typer.Option(None, spec.flag, help=f.description,
                                        show_default=str(default))


def settings_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a Typer command whose parameter ``settings`` takes a ``Settings``: the
    command gets one option per field instead, and ``func`` the ``Settings`` they make
    (with the environment's values for the options not given). A bad value exits with
    ``regalia serve: FIELD: what is wrong`` and status 2."""
    sig = inspect.signature(func, eval_str=True)
    own = [p for p in sig.parameters.values() if p.name != "settings"]
    made = specs()
    params, annotations = list(own), {p.name: p.annotation for p in own}
    for spec in made:
        annotation, option = _option(spec)
        params.append(inspect.Parameter(spec.param, inspect.Parameter.KEYWORD_ONLY,
                                        default=option, annotation=annotation))
        annotations[spec.param] = annotation

    @functools.wraps(func)
    def command(**kw: Any) -> Any:
        given: dict[str, Any] = {}
        for spec in made:
            value = kw.pop(spec.param)
            if value is None or (spec.repeat and not value):
                continue
            given[spec.field] = (not value if spec.inverse else
                                 tuple(value) if spec.repeat else value)
        try:
            settings = Settings(**given)
        except ValidationError as e:
            typer.echo(f"regalia serve: {problem(e)}", err=True)
            raise typer.Exit(2) from None
        return func(settings=settings, **kw)

    del command.__wrapped__  # Typer reads the signature below, not func's
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {**annotations, "return": sig.return_annotation}
    return command
