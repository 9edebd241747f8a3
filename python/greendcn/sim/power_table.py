"""The `[power]` table of a scenario: which power models price a simulated run (defaults: the shipped table).

```toml
[power]
switch = "sn2700"              # every switch draws this table entry's power (our default, seed 001 Table 2.1)
switch_table = "my.toml"       # optional: your own entries (TOML or CSV; relative to the scenario)
nodes = { "core*" = 276.9 }    # optional: constant W by node name or name prefix, over the rule above
host_w = 0.0                   # optional: constant W per host (omitted: hosts are left out, as in seed 001)
link_port_w = 0.0              # optional: W per link end; with link_pj_per_bit, links get a LinearPower
link_pj_per_bit = 0.0
window = "1ms"                 # optional: a power series in windows of this width (the engine's byte counts)
```"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..core.errors import InputError
from ..core.units import parse_time_ps
from ..power.models import ConstantPower, LinearPower, from_switch
from ..power.switches import get_switch, load_switch_table
from .ledger import DEFAULT_SWITCH, EnergyModels

__all__ = ["PowerConfig"]


def _window(value: Any) -> Any:
    if value is None:
        return None
    ps = -1 if isinstance(value, str) and value.strip().startswith("-") else parse_time_ps(value, "value")
    if ps <= 0:
        raise InputError(f"must be a positive time, got {value!r}", hint='e.g. window = "1ms"')
    return ps


class PowerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    switch: str = DEFAULT_SWITCH
    switch_table: str | None = None
    nodes: dict[str, float] = Field(default_factory=dict)
    host_w: float | None = Field(None, ge=0)
    link_port_w: float = Field(0.0, ge=0)
    link_pj_per_bit: float = Field(0.0, ge=0)
    # Width of the power series in picoseconds; the run asks the engine for byte counts per window of it.
    window: Annotated[int | None, BeforeValidator(_window)] = None

    def models(self, base_dir: str | None = None) -> EnergyModels:
        """The device models this table describes; an unknown switch id is an InputError with a hint.
        A relative `switch_table` is read from `base_dir` (the scenario file's folder) when given."""
        path = self.switch_table
        if path is not None and base_dir is not None and not Path(path).is_absolute():
            path = str(Path(base_dir) / path)
        table = load_switch_table(path)
        if self.switch not in table:
            raise InputError(
                f"power.switch: unknown switch '{self.switch}'",
                hint=f"known switches: {', '.join(sorted(table))}; add your own with power.switch_table",
            )
        nodes = {"switch": from_switch(get_switch(self.switch, table))}
        if self.host_w is not None:
            nodes["host"] = ConstantPower(self.host_w, label="host")
        for key, watts in self.nodes.items():
            nodes[key] = ConstantPower(watts, label=key)
        links = {}
        if self.link_port_w or self.link_pj_per_bit:
            links["*"] = LinearPower(
                per_port_w=self.link_port_w, joules_per_bit=self.link_pj_per_bit * 1e-12, label="link"
            )
        return EnergyModels(nodes=nodes, links=links)
