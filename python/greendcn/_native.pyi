# Type stubs of the compiled module (crates/py): the Rust engine and the access-log scanner. Use them through
# greendcn.sim.engine and greendcn.lifetime.scan, not directly. tests/test_native_stubs.py checks that this file
# and the compiled module agree.
from collections.abc import Callable
from typing import Any

def run(
    spec_json: str, progress: Callable[[int, int | None, int, int, int], object] | None = None
) -> str: ...
def run_columns(
    spec_json: str,
    progress: Callable[[int, int | None, int, int, int], object] | None = None,
    flows: list[tuple[str, bytes]] | None = None,
) -> tuple[str, dict[str, Any]]: ...  # (results JSON, tables: docs/engine-spec.md "Results as columns")
def run_circuit(
    spec_json: str, progress: Callable[[int, int | None, int, int, int], object] | None = None
) -> str: ...
def run_circuit_columns(
    spec_json: str,
    flows: list[tuple[str, bytes]],
    progress: Callable[[int, int | None, int, int, int], object] | None = None,
) -> tuple[str, list[tuple[str, str, bytes]]]: ...  # (results JSON, per-flow columns: docs/circuit-engine.md)
def version() -> str: ...

class SpecError(ValueError): ...  # args: (message: str, loc: tuple[str | int, ...], msg: str)
class NativePanic(RuntimeError): ...

def _panic_for_tests() -> str: ...
def _opera_listed_paths(
    k: int, racks: int, switches: int, circuits: list[int]
) -> list[list[list[int]]]: ...  # per src * racks + dst: up to k paths, each its switches

# Access-log scanner (crates/logscan via crates/py/src/logscan.rs).
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
