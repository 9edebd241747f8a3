"""Port states in the ledger: seconds per state from the engine's EEE counters, and a switch's energy split by
port and by state (docs/energy-saving.md).

The engine counts, per link direction with EEE on, the picoseconds spent going to sleep (sleep_ps), in
low-power idle (lpi_ps) and waking (wake_ps) over the whole run; the rest of the run the port is active
(sending, or awake and idle). A switch port's state is its transmit direction's (our choice: the engine keeps
one direction's states; the receive side is priced at the sending node)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..power.models import Counters
from ..power.ports import PortPowerModel
from .ledger_columns import dir_columns, node_columns

__all__ = ["LOW_STATES", "port_breakdown", "port_states", "to_off"]

# The engine's per-direction counters of the states besides active, in ps. The engine counts no "off" time:
# the time ElasticTree turns ports off is moved into state "off" by its pricing (to_off,
# sim/elastictree/pricing.py).
LOW_STATES = {"sleep": "sleep_ps", "lpi": "lpi_ps", "wake": "wake_ps"}

# The order in which off time is taken out of the engine's states (our choice): an off port carries nothing,
# so EEE saw its off time as idle, mostly low-power idle, then the transitions around it; active last.
_OFF_FROM = ("lpi", "sleep", "wake", "active")


def to_off(states: dict[str, float], off_s: float) -> dict[str, float]:
    """`states` (seconds per state, summed over ports) with `off_s` port-seconds moved into "off", taken from
    LPI first, then sleep, wake and active; never more than the states hold."""
    out = dict(states)
    left = off_s
    for s in _OFF_FROM:
        take = min(left, float(out.get(s, 0.0)))
        if take > 0:
            out[s] = float(out[s]) - take
            left -= take
    out["off"] = float(out.get("off", 0.0)) + (off_s - max(left, 0.0))
    return out


def port_states(dirs: Any, ks: Any, duration_s: Any, sim_s: float) -> dict[str, Any]:
    """Seconds the ports `ks` spent in each state over `duration_s`, summed over the ports; {} when the engine
    counted no states (every port active). For an interval other than the run (an observation window, a
    window of the power series) the run's low-power times are taken in proportion to its length (our
    approximation: the engine counts states over the whole run only). `dirs`: the results' link directions
    (records or their columns, sim/ledger_columns.py)."""
    cols = dir_columns(dirs)
    if not cols.any_low:
        return {}
    idx = np.asarray(ks, dtype=np.int64)
    if not any(has[idx].any() for _v, has in cols.low.values()):
        return {}
    scale = duration_s / sim_s if sim_s > 0 else 0.0
    out: dict[str, Any] = {}
    low_total = 0.0
    for state, key in LOW_STATES.items():
        t = int(cols.low[key][0][idx].sum()) * 1e-12 if key in cols.low else 0.0
        if t:
            out[state] = t * scale
            low_total += t
    out["active"] = np.maximum(len(idx) * duration_s - low_total * scale, 0.0)
    if np.ndim(out["active"]) == 0:
        out["active"] = float(out["active"])
    return out


def port_breakdown(model: PortPowerModel, results: dict, ks: list[int], sim_s: float) -> dict[str, Any]:
    """A switch row's extra columns over the run: seconds and joules per state, and one entry per port
    (towards which node, seconds per state, joules)."""
    cols = dir_columns(results["links"])
    names = node_columns(results["nodes"]).names
    total = port_states(cols, ks, sim_s, sim_s)
    ports = []
    for k in ks:
        s = port_states(cols, [k], sim_s, sim_s) or {"active": sim_s}
        ports.append(
            {
                "to": names[cols.dst[k]],
                **{f"{state}_s": t for state, t in s.items()},
                "energy_j": sum(model.watts(state) * t for state, t in s.items()),
            }
        )
    fixed = model.energy_j(Counters(duration_s=sim_s, ports=len(ks), state_s={"active": 0.0}))
    return {
        "states_s": total,
        "energy_by_state_j": {state: model.watts(state) * t for state, t in total.items()},
        "fixed_energy_j": fixed,  # the chassis and the table's ports this switch does not use
        "ports": ports,
    }
