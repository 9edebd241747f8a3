"""The `[power]` table of a scenario: which power models price a simulated run (defaults: the shipped table).

```toml
[power]
switch = "sn2700"              # every switch draws this table entry's power (our default, seed 001 Table 2.1)
switch_table = "my.toml"       # optional: your own entries (TOML or CSV; relative to the scenario)
nodes = { "core*" = 276.9 }    # optional: constant W by node name or name prefix, over the rule above
# host_w = 30.0                # optional: constant W per host instead of the host models below (not both)
link_port_w = 0.0              # optional: W per link end; with link_pj_per_bit, links get a LinearPower
link_pj_per_bit = 0.0
window = "1ms"                 # optional: a power series in windows of this width (the engine's byte counts)

[power.ports]                  # optional: switches priced port by port (chassis + ports by state; on
port_share = 0.25              # by default when [eee] is on; docs/models.md, power/ports.py)

[power.hosts]                  # optional: how hosts are priced (sim/host_power.py, docs/host-energy.md);
policy = "affcon"              # omitted: every host is priced with the documented defaults, and the output
                               # says so; enabled = false leaves hosts out (seed 001's convention)
```"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..core.errors import FieldError, InputError
from ..core.units import parse_time_ps
from ..power.models import ConstantPower, LinearPower, from_switch
from ..power.ports import port_model
from ..power.switches import get_switch, load_switch_table
from .eee import PortsConfig
from .host_power import DEFAULT_WINDOW_PS, MAX_WINDOWS, HostPowerConfig, HostPricer
from .ledger import DEFAULT_SWITCH, EnergyModels

__all__ = ["COUNTERS_PER_WINDOW", "PowerConfig"]

COUNTERS_PER_WINDOW = 100_000  # our choice: the default window widens beyond this many counters per window


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
    # How hosts are priced; None (no [power.hosts] table) prices them with the defaults, said in the output.
    hosts: HostPowerConfig | None = None
    # Switches priced port by port; None: constant table power, or the port model's defaults when EEE is on.
    ports: PortsConfig | None = None

    @model_validator(mode="after")
    def _one_host_model(self) -> PowerConfig:
        if self.host_w is not None and self.hosts is not None:
            raise FieldError(
                "host_w",
                "give either a constant host_w or a [power.hosts] table, not both",
                hint="drop power.host_w to use the host models",
            )
        return self

    def host_pricer(self, base_dir: str | None = None) -> HostPricer | None:
        """The host models of the run, or None when hosts are a constant host_w or left out."""
        if self.host_w is not None:
            return None
        cfg = self.hosts if self.hosts is not None else HostPowerConfig()
        if not cfg.enabled:
            return None
        pricer = cfg.pricer(base_dir)
        pricer.defaults = self.hosts is None
        return pricer

    def engine_window_ps(self, stop_ps: int | None, counters: int = 0) -> int | None:
        """The engine's stats window: power.window when given; else, when hosts are priced, our default
        (DEFAULT_WINDOW_PS), widened so that a run bounded by stop_ps stays within the engine's window cap.
        `counters` (4 per host + 1 per link direction) widens it on large fabrics: at most
        COUNTERS_PER_WINDOW counters per window (our choice), so a k=48 fat-tree gets 3 ms windows and its
        series stays a few times smaller than its flow table rather than growing with every millisecond."""
        if self.window:
            return self.window
        if self.host_w is not None or (self.hosts is not None and not self.hosts.enabled):
            return None
        w = DEFAULT_WINDOW_PS * max(1, -(-counters // COUNTERS_PER_WINDOW))
        if stop_ps:
            w = max(w, -(-stop_ps // (MAX_WINDOWS - 1)))
        return w

    def models(self, base_dir: str | None = None, eee: bool = False) -> EnergyModels:
        """The device models this table describes; an unknown switch id is an InputError with a hint.
        A relative `switch_table` is read from `base_dir` (the scenario file's folder) when given. Switches
        are priced port by port with [power.ports], or with its defaults when `eee` is on and no table says
        otherwise."""
        path = self.switch_table
        if path is not None and base_dir is not None and not Path(path).is_absolute():
            path = str(Path(base_dir) / path)
        table = load_switch_table(path)
        if self.switch not in table:
            raise InputError(
                f"power.switch: unknown switch '{self.switch}'",
                hint=f"known switches: {', '.join(sorted(table))}; add your own with power.switch_table",
            )
        entry = get_switch(self.switch, table)
        nodes: dict = {"switch": from_switch(entry)}
        ports = self.ports if self.ports is not None else (PortsConfig() if eee else None)
        if ports is not None and ports.enabled:
            nodes["switch"] = port_model(entry, **ports.model_dump(exclude={"enabled"}))
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
