"""Module attributes loaded when first used (PEP 562), so importing a package does not pay for pandas and the
simulator until something needs them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["lazy_dir", "lazy_getattr"]


def lazy_getattr(package: str, table: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `table[name]` (a module relative to `package`) on first access, takes
    `name` from it and keeps it in `namespace` (the module's globals), so later accesses cost nothing."""

    def __getattr__(name: str) -> Any:
        if name in table:
            import importlib

            value = getattr(importlib.import_module(table[name], package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def lazy_dir(table: dict[str, str], namespace: dict[str, Any]) -> Callable[[], list[str]]:
    """A module `__dir__` that lists the names `lazy_getattr` loads beside those already in `namespace`."""

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __dir__
