"""The only door to the compiled engine: a spec dict in (docs/engine-spec.md), a results dict out."""

from __future__ import annotations

import json
from typing import Any

from .. import _native
from ..core.errors import EngineCrash, EngineInputError

__all__ = ["run_spec", "engine_version"]


def run_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one simulation. Raises EngineInputError for a spec the engine refuses, EngineCrash for an engine bug."""
    try:
        text = _native.run(json.dumps(spec))
    except _native.EngineInputError as e:
        raise EngineInputError(str(e), hint="see docs/engine-spec.md for the fields the engine accepts") from None
    except _native.EngineCrash as e:
        raise EngineCrash(str(e), hint="this is a bug in greendcn; please report it with the scenario") from None
    return json.loads(text)


def engine_version() -> str:
    return _native.version()
