# Type stubs of the compiled engine module (crates/py). Use it through greendcn.sim.engine, not directly.
from collections.abc import Callable
from typing import Any

def run(spec_json: str) -> str: ...
def version() -> str: ...

class EngineInputError(ValueError): ...
class EngineCrash(RuntimeError): ...
def _panic_for_tests() -> str: ...

# Access-log scanner (crates/logscan via crates/py/src/logscan.rs). Use it through greendcn.lifetime.scan.
class LogScanError(ValueError): ...  # args: (kind: "io" | "header" | "config", where: str, message: str)

def scan_logs(
    paths: list[str],
    fmt: str = "auto",
    columns: list[tuple[str, str]] = ...,
    events: list[str] | None = None,
    statuses: list[str] | None = None,
    max_line_bytes: int = 65536,
    progress: Callable[[int], object] | None = None,
) -> dict[str, Any]: ...
