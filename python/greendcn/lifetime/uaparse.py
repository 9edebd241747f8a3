"""One parse per distinct User-Agent string with ua-parser 1.0.2: the ua-parser-rs resolver when installed
(the `ua-parser[regex]` extra), else ua-parser's pure-`re` resolver with a warning (about 20x slower)."""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

__all__ = ["Parsed", "make_resolver", "parse"]


@dataclass(frozen=True)
class Parsed:
    """What ua-parser says about one string; versions as tuples of ints, empty when absent."""

    family: str
    version: tuple[int, ...]
    os_family: str
    os_version: tuple[int, ...]
    device_family: str
    brand: str
    model: str


def make_resolver(kind: str = "auto"):
    """A ua-parser resolver: "rs" (ua-parser-rs), "re" (pure Python) or "auto" (rs, else re with a warning)."""
    from ua_parser import Domain, load_builtins

    if kind in ("auto", "rs"):
        try:
            from ua_parser.regex import Resolver
        except ImportError:
            if kind == "rs":
                raise
            warnings.warn(
                "ua-parser-rs is not installed: parsing with the pure-re resolver (slow); "
                "install ua-parser[regex]",
                RuntimeWarning,
                stacklevel=2,
            )
        else:
            return Resolver(load_builtins()), Domain.ALL
    from ua_parser.basic import Resolver as BasicResolver

    return BasicResolver(load_builtins()), Domain.ALL


@functools.lru_cache(maxsize=1)
def _default():
    return make_resolver("auto")


def _ints(*parts) -> tuple[int, ...]:
    out = []
    for p in parts:
        if p is None or not str(p).isdigit():
            break
        out.append(int(p))
    return tuple(out)


def parse(ua: str, resolver=None) -> Parsed:
    res, domains = resolver or _default()
    r = res(ua, domains)
    u, o, d = r.user_agent, r.os, r.device
    return Parsed(
        family=u.family if u else "",
        version=_ints(u.major, u.minor, u.patch) if u else (),
        os_family=o.family if o else "",
        os_version=_ints(o.major, o.minor, o.patch) if o else (),
        device_family=d.family if d else "",
        brand=(d.brand or "") if d else "",
        model=(d.model or "") if d else "",
    )
