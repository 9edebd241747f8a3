"""The LMS app's key-value User-Agent (our format, docs/lifetime.md): `<Name>/<version> (key=value; ...)`
with keys `device_id`, `model`, `os` and `os_version`. The name is a regular expression (a parameter)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = ["AppUA", "DEFAULT_APP_NAME", "parse_app_ua"]

DEFAULT_APP_NAME = r"LMSApp"


@dataclass(frozen=True)
class AppUA:
    name: str
    version: str
    fields: dict[str, str]

    @property
    def device_id(self) -> str:
        return self.fields.get("device_id", "")

    @property
    def model(self) -> str:
        return self.fields.get("model", "")

    @property
    def os(self) -> str:
        return self.fields.get("os", "")

    @property
    def os_version(self) -> str:
        return self.fields.get("os_version", "")


@functools.lru_cache(maxsize=16)
def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"^(?P<name>{name})/(?P<version>[^\s(]+)\s*\((?P<kv>[^()]*)\)\s*$")


def parse_app_ua(ua: str, name: str = DEFAULT_APP_NAME) -> AppUA | None:
    """The app UA's fields, or None when `ua` is not the app's. Unknown keys are kept; a pair without `=`
    is ignored; keys are lower-cased, values stripped."""
    m = _pattern(name).match(ua.strip())
    if not m:
        return None
    fields: dict[str, str] = {}
    for pair in m.group("kv").split(";"):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            fields[key.strip().lower()] = value.strip()
    return AppUA(m.group("name"), m.group("version"), fields)
