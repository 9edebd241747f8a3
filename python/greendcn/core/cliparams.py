"""Command-line values of the plain kinds (int, float, str, paths, lists of them) converted without pydantic.

typer (0.29) converts every option's value through a pydantic `TypeAdapter` that it builds the first time the
option is parsed, even when the option was not given: a one-flow `greendcn simulate` built nine of them, and
importing pydantic's adapter machinery with them, before any work (BENCHMARKS.md). Values those adapters would
accept unchanged or parse by one unambiguous rule (digits to int, a decimal number to float, text to a path) are
converted here with the same result; anything else (a bad value, an option with bounds, choices, a parser, a
file) goes to typer's own adapter, built then, so results and error messages stay typer's. If typer's internals
are not what this module expects, commands keep typer's conversion throughout."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, get_args, get_origin

__all__ = ["plain_coercion"]

_NUMBER = {int: r"[+-]?[0-9]{1,18}", float: r"[+-]?[0-9]{1,18}(\.[0-9]{0,18})?([eE][+-]?[0-9]{1,3})?"}
_NO = object()  # a value this module does not convert: typer's adapter does


@cache
def _number(kind: type) -> Any:
    """The pattern of a number this module converts (compiled when a command first has such an option)."""
    import re

    return re.compile(_NUMBER[kind]).fullmatch


def _leaf(annotation: Any, info: Any, coerce_path: Any, routes_to_path: Any) -> Any:
    """A converter `(value, param, ctx)` for one value of `annotation`, taken in typer's order (its
    `build_leaf_adapter`), or None where typer's own adapter is needed for every value."""
    if info.parser is not None or get_origin(annotation) is not None:
        return None
    if annotation is int or annotation is float:
        if info.min is not None or info.max is not None or info.clamp:
            return None
        match = _number(annotation)

        def number(v: Any, p: Any, c: Any) -> Any:
            if isinstance(v, str):
                return annotation(v) if match(v) else _NO
            if type(v) is annotation:  # a default: pydantic returns it as it is
                return v
            if annotation is float and type(v) is int and abs(v) < 2**53:
                return float(v)  # as pydantic widens a whole number
            return _NO

        return number
    if annotation is str:
        return lambda v, p, c: v if isinstance(v, str) else _NO
    if annotation is bool:
        # a flag's value is a bool already (typer skips converting it); text like "yes" goes to typer
        return lambda v, p, c: v if isinstance(v, bool) else _NO
    if routes_to_path(annotation, info):
        path_type = info.path_type
        if path_type is None and isinstance(annotation, type) and issubclass(annotation, Path):
            path_type = annotation
        if path_type not in (Path, str, None):
            return None
        # pydantic makes a Path of any text as Path() does; typer's own check of the path's flags follows
        make = Path if path_type is Path else str

        def path(v: Any, p: Any, c: Any) -> Any:
            if isinstance(v, str):
                v = make(v)
            elif not (path_type is Path and isinstance(v, Path)):  # a default Path is taken as it is
                return _NO
            return coerce_path(v, info, path_type=path_type, param=p, ctx=c)

        return path
    return None


def _converter(descriptor: Any, coerce_path: Any, routes_to_path: Any) -> Any:
    annotation, info = descriptor.annotation, descriptor.parameter_info
    if descriptor.file_annotation is not None:
        return None
    if get_origin(annotation) is list:
        args = get_args(annotation)
        one = _leaf(args[0], info, coerce_path, routes_to_path) if len(args) == 1 else None
        if one is None:
            return None

        def many(value: Any, p: Any, c: Any) -> Any:
            values = value if isinstance(value, (list, tuple)) else [value]
            if not all(isinstance(v, str) for v in values):
                return _NO
            out = [one(v, p, c) for v in values]
            return _NO if any(v is _NO for v in out) else out

        return many
    return _leaf(annotation, info, coerce_path, routes_to_path)


def plain_coercion() -> None:
    """Convert plain values of every typer parameter (options, arguments, help flags) here from now on; typer's
    adapter for the rest. Idempotent."""
    try:
        import typer.core as typer_core
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_path, routes_to_path
    except ImportError:
        return
    typers = getattr(typer_core, "build_runtime_param", None)
    if typers is None or getattr(typers, "plain", False):
        return

    def build(descriptor: Any) -> Any:
        convert = _converter(descriptor, coerce_cli_path, routes_to_path)
        if convert is None:
            return typers(descriptor)
        return _plain_class(RuntimeParam, typers)(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            convert=convert,
            descriptor=descriptor,
        )

    build.plain = True  # type: ignore[attr-defined]
    typer_core.build_runtime_param = build


@cache
def _plain_class(base: type, typers: Any) -> Any:
    """typer's `RuntimeParam` with the plain conversion, made when a command first parses a plain value."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Plain(base):  # type: ignore[misc,valid-type]
        """typer's conversion of one parameter with a plain path for plain values; typer's adapter for the rest."""

        convert: Any = None
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            out = self.convert(value, param, ctx)
            if out is _NO:
                return typers(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return out

    return Plain
