"""The switch table: measured (or projected) device powers with their sources, shipped and user-extensible.

The shipped entries are seed 001's Table 2.1 and the projection next to it (data/switches.toml). A user
file (TOML with the same layout, or CSV with the same fields as columns) adds entries or overrides them."""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from ..core.userfile import read_text

__all__ = ["SHIPPED_TABLE", "SwitchModel", "get_switch", "load_switch_table", "shipped_switches"]

SHIPPED_TABLE = Path(__file__).with_name("data") / "switches.toml"
_FIELDS = ("model", "kind", "ports", "port_rate_gbps", "power_w", "measured", "source")


@dataclass(frozen=True)
class SwitchModel:
    id: str
    model: str
    kind: str  # "packet" or "optical"
    ports: int
    port_rate_gbps: float
    power_w: float
    measured: bool
    source: str


def _entry(where: str, sid: str, raw: dict) -> SwitchModel:
    missing = [f for f in _FIELDS if f not in raw or raw[f] in ("", None)]
    if missing:
        raise InputError(
            f"{where}: switch '{sid}' lacks {missing}",
            hint="every entry needs model, kind, ports, port_rate_gbps, power_w, measured, source",
        )
    try:
        entry = SwitchModel(
            id=sid,
            model=str(raw["model"]),
            kind=str(raw["kind"]),
            ports=int(raw["ports"]),
            port_rate_gbps=float(raw["port_rate_gbps"]),
            power_w=float(raw["power_w"]),
            measured=str(raw["measured"]).strip().lower() in ("true", "1", "yes"),
            source=str(raw["source"]),
        )
    except (TypeError, ValueError) as e:
        raise InputError(
            f"{where}: switch '{sid}' has a bad value ({e})", hint="ports is an integer, powers in W"
        ) from None
    if entry.kind not in ("packet", "optical"):
        raise InputError(
            f"{where}: switch '{sid}'.kind = {entry.kind!r}", hint="kind is 'packet' or 'optical'"
        )
    if entry.ports < 1 or entry.power_w < 0:
        raise InputError(
            f"{where}: switch '{sid}' needs ports >= 1 and power_w >= 0", hint="check the numbers"
        )
    return entry


def _read(path: Path) -> dict[str, SwitchModel]:
    text = read_text(path, "switch table", kind="a TOML or CSV switch table")
    if path.suffix.lower() == ".csv":
        try:
            rows = list(csv.DictReader(text.splitlines()))
        except csv.Error as e:
            raise InputError(
                f"switch table {path}: not a readable CSV ({e})", hint="check the file"
            ) from None
        if rows and "id" not in rows[0]:
            raise InputError(f"{path}: no 'id' column", hint=f"columns: id, {', '.join(_FIELDS)}")
        return {r["id"]: _entry(str(path), r["id"], r) for r in rows}
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise InputError(
            f"switch table {path} is not valid TOML: {e}", hint="fix the syntax, or use CSV"
        ) from None
    return {sid: _entry(str(path), sid, raw) for sid, raw in doc.get("switch", {}).items()}


def shipped_switches() -> dict[str, SwitchModel]:
    return _read(SHIPPED_TABLE)


def load_switch_table(path: str | Path | None = None) -> dict[str, SwitchModel]:
    """The shipped table, with the entries of the user's TOML or CSV file added or overriding by id."""
    table = shipped_switches()
    if path is not None:
        table.update(_read(Path(path)))
    return table


def get_switch(switch_id: str, table: dict[str, SwitchModel] | None = None) -> SwitchModel:
    table = table if table is not None else shipped_switches()
    if switch_id not in table:
        raise InputError(
            f"unknown switch '{switch_id}'",
            hint=f"known switches: {', '.join(sorted(table))}; add your own with --switch-table FILE",
        )
    return table[switch_id]
