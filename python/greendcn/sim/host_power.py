"""The hosts of a simulated run in the energy ledger: the `[power.hosts]` table and the pricing of every host
per time window from the engine's per-host counters (docs/host-energy.md gives every formula and source).

```toml
[power.hosts]
policy = "fixed"          # fixed | affcon | optimizer (our default: fixed at the highest frequency)
frequency = "3GHz"        # fixed: one of the platform's frequencies (default: its highest)
cores = 1                 # working cores that carry the host's packets (our default: 1)
platform = "xeon-example" # the shipped example platform, or a TOML file (format: power/data/xeon_example.toml)
nic = "napi:64"           # receive mode and parameter, as `greendcn nic`: interrupt, timer:50us,
                          # watermark:64pkt, napi:64 (our default: Linux's NAPI with its budget of 64)
burst = 1                 # packets arriving back to back at the NIC (our default)
platform_w = 0.0          # constant W per host besides the CPU (memory, disks, fans); our default 0
units = 1024              # optimizer: load quanta of its grid
per_host = { "S15" = { nic = "interrupt" }, "S1*" = { policy = "affcon" } }   # overrides by name or prefix
```

Per host and window of width T: the load is l = (packets sent + packets received) / 2 / T (our reading of
seed 004's r, a forwarding rate: a forwarded packet is received once and sent once), and the host draws
- CPU: seed 004's Eq. 9 (004 line 239) on the working cores, the load split evenly and each core's rate capped
  by Eq. 10 (line 245), plus what the other cores draw under the policy: `fixed` idles them at the same
  frequency (Phi_idle(f), Eq. 5 at r = 0); `affcon` runs the working cores at the highest frequency and idles
  the rest at the lowest (seed 000 line 136: performance on the affinity cores, powersave elsewhere);
  `optimizer` takes the green optimizer's least-power plan for that window's load (seed 004 lines 259-261's
  future work; cores outside the plan draw the platform's `inactive_core_w`);
- receive overhead: the interrupts and polls of the NIC's receive mode at that window's receive rate
  (greendcn.nic.model, seed 002 line 67 for the modes), as CPU work priced at Phi_active - Phi_idle of the
  receiving core's frequency; per-packet delivery work is not counted again (Phi already prices packets);
- the constant `platform_w`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..core.errors import FieldError, InputError
from ..power.router import RouterPlatform, chi, example_platform, load_platform

__all__ = [
    "DEFAULT_WINDOW_PS",
    "HostEnergy",
    "HostOverride",
    "HostPowerConfig",
    "HostPricer",
    "parse_frequency_hz",
]

# Our default width of the engine's per-host windows when hosts are priced and power.window is not given: 1 ms
# resolves seed 003's flows (milliseconds to a second) and the optimizer's plan changes at most once a ms.
DEFAULT_WINDOW_PS = 1_000_000_000
MAX_WINDOWS = 100_000  # the engine refuses runs of more windows (docs/engine-spec.md)
SHIPPED = "xeon-example"
POLICIES = ("fixed", "affcon", "optimizer")


def parse_frequency_hz(value: Any) -> float:
    """3e9, '3GHz', '2333MHz' -> Hz; anything else is an InputError."""
    if isinstance(value, bool):
        raise InputError(f"expected a frequency, got {value!r}", hint="write it like '3GHz'")
    if isinstance(value, (int, float)):
        f = float(value)
    else:
        text = str(value).strip()
        scale = 1.0
        for suffix, s in (("ghz", 1e9), ("mhz", 1e6), ("khz", 1e3), ("hz", 1.0)):
            if text.lower().endswith(suffix):
                text, scale = text[: -len(suffix)].strip(), s
                break
        try:
            f = float(text) * scale
        except ValueError:
            raise InputError(f"cannot read frequency {value!r}", hint="write it like '3GHz'") from None
    if not math.isfinite(f) or f <= 0:
        raise InputError(f"must be a positive frequency, got {value!r}", hint="write it like '3GHz'")
    return f


def _nic(value: Any) -> str:
    from ..nic.params import parse_setting

    parse_setting(str(value))  # refuses unknown modes and bad parameters with a hint
    return str(value).strip()


# A frequency written with its unit ("3GHz"), in Hz; a receive mode with its parameter ("napi:64").
FrequencyHz = Annotated[float | None, BeforeValidator(lambda v: None if v is None else parse_frequency_hz(v))]
NicMode = Annotated[str, BeforeValidator(_nic)]


class HostOverride(BaseModel):
    """Settings of the hosts whose name matches a `per_host` key (exact, or a prefix ending in '*')."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: Literal["fixed", "affcon", "optimizer"] | None = None
    frequency: FrequencyHz = None
    cores: int | None = Field(None, ge=1)
    nic: NicMode | None = None
    platform_w: float | None = Field(None, ge=0)


class HostPowerConfig(BaseModel):
    """The `[power.hosts]` table (module doc); every default is our choice, listed in docs/host-energy.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True  # false: hosts are left out of the ledger (seed 001's convention)
    policy: Literal["fixed", "affcon", "optimizer"] = "fixed"
    frequency: FrequencyHz = None  # None: the platform's highest (seed 000 line 130: the default governor)
    cores: int = Field(1, ge=1)
    platform: str = SHIPPED
    nic: NicMode = "napi:64"
    burst: int = Field(1, ge=1)
    platform_w: float = Field(0.0, ge=0)
    units: int = Field(1024, ge=16, le=4096)
    per_host: dict[str, HostOverride] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _against_platform(self) -> HostPowerConfig:
        # The shipped platform needs no file, so its frequencies and core count are checked here, when the
        # scenario is read; a platform file is checked when the run loads it (`pricer`).
        if self.platform == SHIPPED:
            _check_against(self, example_platform())
        return self

    def pricer(self, base_dir: str | None = None) -> HostPricer:
        """The resolved models: the platform loaded and every setting checked against it."""
        if self.platform == SHIPPED:
            plat = example_platform()
        else:
            path = Path(self.platform)
            if base_dir is not None and not path.is_absolute():
                path = Path(base_dir) / path
            try:
                plat = load_platform(path)
            except InputError as e:
                raise InputError(
                    f"power.hosts.platform: {str(e).removeprefix('--platform: ')}",
                    hint=e.hint,
                    loc=("power", "hosts", "platform"),
                ) from None
            try:
                _check_against(self, plat)
            except FieldError as e:
                raise InputError(
                    f"power.hosts.{e.field}: {e}", hint=e.hint, loc=("power", "hosts", *e.field.split("."))
                ) from None
        return HostPricer(self, plat)


def _check_against(cfg: HostPowerConfig, plat: RouterPlatform) -> None:
    def freq(f: float | None, field_name: str) -> None:
        if f is not None and not any(math.isclose(f, x, rel_tol=1e-6) for x in plat.frequencies_hz):
            known = ", ".join(f"{x / 1e9:g}GHz" for x in plat.frequencies_hz)
            raise FieldError(
                field_name,
                f"{f / 1e9:g} GHz is not a frequency of platform '{plat.name}'",
                hint=f"choose one of {known}",
            )

    def cores(n: int | None, field_name: str) -> None:
        if n is not None and n > plat.cores:
            raise FieldError(
                field_name,
                f"{n} working cores on the {plat.cores}-core platform '{plat.name}'",
                hint=f"use 1..{plat.cores} cores, or a platform with more (power.hosts.platform)",
            )

    freq(cfg.frequency, "frequency")
    cores(cfg.cores, "cores")
    for key, o in cfg.per_host.items():
        freq(o.frequency, f"per_host.{key}.frequency")
        cores(o.cores, f"per_host.{key}.cores")


@dataclass(frozen=True)
class _Setting:
    policy: str
    f_hz: float
    cores: int
    nic: str
    platform_w: float


@dataclass
class HostEnergy:
    """What the hosts drew: per host (arrays in host order) and per window (summed over hosts)."""

    names: list[str]
    settings: list[str]
    energy_j: np.ndarray
    cpu_j: np.ndarray
    nic_j: np.ndarray
    platform_j: np.ndarray
    interrupts: np.ndarray
    packets_sent: np.ndarray  # per host over the run (the engine's windows summed)
    packets_received: np.ndarray
    bytes_sent: np.ndarray  # wire bytes
    bytes_received: np.ndarray
    saturated_windows: np.ndarray  # windows where the load exceeded what the working cores forward
    window_s: float
    durations_s: np.ndarray
    power_w: np.ndarray  # hosts x windows
    defaults: bool
    description: dict[str, Any] = field(default_factory=dict)

    @property
    def total_j(self) -> float:
        return float(self.energy_j.sum())


@lru_cache(maxsize=8)
def _optimizer_curve(plat: RouterPlatform, units: int) -> tuple[float, np.ndarray]:
    from ..power.optimizer import power_curve

    return power_curve(plat, units)


class HostPricer:
    """Prices the hosts of one run from the engine's per-host series (see the module doc)."""

    def __init__(self, cfg: HostPowerConfig, platform: RouterPlatform, defaults: bool = False) -> None:
        self.cfg = cfg
        self.platform = platform
        self.defaults = defaults

    def setting_for(self, name: str) -> _Setting:
        c = self.cfg
        s = {
            "policy": c.policy,
            "f_hz": c.frequency,
            "cores": c.cores,
            "nic": c.nic,
            "platform_w": c.platform_w,
        }
        exact = c.per_host.get(name)
        prefixes = [k for k in c.per_host if k.endswith("*") and name.startswith(k[:-1])]
        for o in [c.per_host[k] for k in sorted(prefixes, key=len)] + ([exact] if exact else []):
            for key, value in (
                ("policy", o.policy),
                ("f_hz", o.frequency),
                ("cores", o.cores),
                ("nic", o.nic),
                ("platform_w", o.platform_w),
            ):
                if value is not None:
                    s[key] = value
        if s["f_hz"] is None:
            s["f_hz"] = self.platform.frequencies_hz[-1]
        return _Setting(**s)

    def describe(self) -> dict[str, Any]:
        c, p = self.cfg, self.platform
        return {
            "policy": c.policy,
            "frequency_hz": c.frequency if c.frequency is not None else p.frequencies_hz[-1],
            "cores": c.cores,
            "platform": p.name,
            "platform_cores": p.cores,
            "nic": c.nic,
            "burst_packets": c.burst,
            "platform_w": c.platform_w,
            "optimizer_units": c.units,
            "per_host": {k: v.model_dump(exclude_none=True) for k, v in c.per_host.items()},
            "defaults": self.defaults,
        }

    def price(self, results: dict[str, Any], interval_ps: tuple[int, int] | None = None) -> HostEnergy:
        """Every host per engine window over the run, or over `interval_ps` = (start, end) (run.window): the
        windows it touches, each for its overlap with it, past the run's end too (idle hosts draw power)."""
        series = results.get("series") or {}
        if "host_packets_sent" not in series:
            raise InputError(
                "pricing hosts needs the engine's per-host series",
                hint="run with stats_window_ps set (simulate sets it when hosts are priced)",
            )
        from .ledger_columns import node_columns

        nodes = node_columns(results["nodes"])
        names = [n for n, kind in zip(nodes.names, nodes.kinds) if kind == "host"]
        sim_s = results["summary"]["sim_time_ps"] * 1e-12
        w_s = series["window_ps"] * 1e-12
        hosts = len(names)
        if interval_ps is None:
            windows = max(1, math.ceil(sim_s / w_s - 1e-9)) if sim_s > 0 else 1
            starts = np.arange(windows) * w_s
            dur = np.clip(sim_s - starts, 0.0, w_s)

            def counts(key: str) -> np.ndarray:
                return fold_windows(series[key], hosts, windows)
        else:
            from .ledger import in_interval, interval_weights

            idx, frac = interval_weights(series["window_ps"], interval_ps)
            dur = frac * w_s

            def counts(key: str) -> np.ndarray:
                return in_interval(series[key], idx, frac)

        # Hosts x windows as few at a time as the figures allow (each is 8 bytes a cell): the counts are read one
        # series at a time and kept only while a per-cell figure needs them.
        safe = np.where(dur > 0, dur, 1.0)
        sent = counts("host_packets_sent")
        packets_sent = sent.sum(axis=1)
        recv = counts("host_packets_received")
        packets_received = recv.sum(axis=1)
        load = (sent + recv) / 2.0 / safe  # forwarding-equivalent packets per second
        del sent
        rx_pps = recv / safe
        rbytes = counts("host_bytes_received")
        bytes_received = rbytes.sum(axis=1)
        settings = [self.setting_for(n) for n in names]
        pkt_bytes = None
        if any(_sized_watermark(s.nic) for s in settings):  # the only setting that reads the packet size
            pkt_bytes = np.where(recv > 0, rbytes / np.maximum(recv, 1), 1500.0)
        del recv, rbytes
        bytes_sent = counts("host_bytes_sent").sum(axis=1)

        cpu = np.empty_like(load)
        nicw = np.empty_like(load)
        irq = np.empty_like(load)
        sat = np.zeros(hosts, dtype=np.int64)
        plat_w = np.array([s.platform_w for s in settings])
        groups: dict[_Setting, list[int]] = {}
        for i, s in enumerate(settings):
            groups.setdefault(s, []).append(i)
        for s, rows in groups.items():
            sel = slice(None) if len(rows) == hosts else np.array(rows)
            c, saturated, f_rx = self._cpu_cells(s, load[sel])
            cpu[sel] = c
            sat[sel] = saturated.sum(axis=1)
            nicw[sel], ips = self._nic_cells(
                s, f_rx, rx_pps[sel], None if pkt_bytes is None else pkt_bytes[sel]
            )
            irq[sel] = ips * dur
        del load, rx_pps, pkt_bytes
        power = cpu + nicw + plat_w[:, None]
        power[:, dur <= 0] = 0.0
        return HostEnergy(
            names=names,
            settings=[_label(s) for s in settings],
            energy_j=power @ dur,
            cpu_j=cpu @ dur,
            nic_j=nicw @ dur,
            platform_j=plat_w * float(dur.sum()),
            interrupts=irq.sum(axis=1),
            packets_sent=packets_sent,
            packets_received=packets_received,
            bytes_sent=bytes_sent,
            bytes_received=bytes_received,
            saturated_windows=sat,
            window_s=w_s,
            durations_s=dur,
            power_w=power,
            defaults=self.defaults,
            description=self.describe(),
        )

    def _cpu_w(self, s: _Setting, load: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """CPU power (W) per host and window, the windows whose load exceeds the cores, and the frequency of
        the receiving core."""
        p = self.platform
        fs = p.frequencies_hz
        if s.policy == "optimizer":
            delta, curve = _optimizer_curve(p, self.cfg.units)
            u = np.ceil(load / delta - 1e-9).astype(np.int64)  # the plan must carry at least the load
            saturated = u > self.cfg.units
            # Interrupt work is priced at the highest frequency under this policy (our choice: the plan is
            # made for the packet load; the swing per unit of work, (Phi_active - Phi_idle) / speed, varies
            # by under 3 % across the example platform's frequencies).
            return curve[np.minimum(u, self.cfg.units)], saturated, fs[-1]
        work = p.freq_index(s.f_hz) if s.policy == "fixed" else len(fs) - 1
        rest = p.freq_index(s.f_hz) if s.policy == "fixed" else 0
        n = s.cores
        cap = p.gamma[n - 1] / n * p.r_max_pps[work]
        per_core = load / n
        saturated = per_core > cap * (1 + 1e-9)
        t = np.minimum(per_core, cap) / cap
        swing = p.phi_active_w[work] - p.phi_idle_w[work]
        dynamic = n * swing * chi(t, p.chi_coeffs)
        if p.idle_per_core:
            idle = n * p.phi_idle_w[work] + (p.cores - n) * p.phi_idle_w[rest]
        else:
            idle = p.phi_idle_w[max(work, rest)]  # a platform-wide idle, at the highest frequency in use
        return idle + dynamic, saturated, fs[work]

    def _cpu_cells(self, s: _Setting, load: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """`_cpu_w` per cell of `load` (hosts x windows), worked out once per distinct load."""
        (values,), index = _distinct(load)
        c, saturated, f_rx = self._cpu_w(s, values)
        return c[index], saturated[index], f_rx

    def _nic_cells(
        self, s: _Setting, f_hz: float, rx_pps: np.ndarray, pkt_bytes: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """`_nic_w` per cell of `rx_pps` (hosts x windows), worked out once per distinct receive rate (and packet
        size, for a watermark in bytes)."""
        if _sized_watermark(s.nic):
            (rx, size), index = _distinct(rx_pps, pkt_bytes)
        else:
            (rx,), index = _distinct(rx_pps)
            size = None
        watts, ips = self._nic_w(s, f_hz, rx, size)
        return watts[index], ips[index]

    def _nic_w(
        self, s: _Setting, f_hz: float, rx_pps: np.ndarray, pkt_bytes: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Receive overhead power (W) and interrupts per second at these receive rates (greendcn.nic.model);
        `pkt_bytes` is read only by a watermark in bytes."""
        from ..nic.cpupower import CpuPower
        from ..nic.model import evaluate
        from ..nic.params import DEFAULT_HOST, parse_setting

        setting = parse_setting(s.nic)
        cpu = CpuPower.from_platform(self.platform, f_hz)
        host = cpu.host_at_frequency(DEFAULT_HOST)
        if setting.mode == "watermark" and setting.unit == "B":
            param = np.maximum(1.0, np.ceil(setting.value / pkt_bytes))
        else:
            param = setting.param(1500)
        r = evaluate(setting.code, param, rx_pps, self.cfg.burst, host, cores=s.cores)
        overhead = r.interrupts_per_s * host.irq_cost_s + r.polls_per_s * host.poll_cost_s
        overhead = np.minimum(overhead, s.cores)
        watts = (cpu.phi_active_w - cpu.phi_idle_w) * overhead
        return np.where(rx_pps > 0, watts, 0.0), np.where(rx_pps > 0, r.interrupts_per_s, 0.0)


@lru_cache(maxsize=64)
def _sized_watermark(nic: str) -> bool:
    """Whether a receive mode's parameter depends on the packet size (a watermark in bytes)."""
    from ..nic.params import parse_setting

    setting = parse_setting(nic)
    return setting.mode == "watermark" and setting.unit == "B"


def _distinct(x: np.ndarray, y: np.ndarray | None = None) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The distinct values of `x` (with `y`: of the pairs (x, y)) as 1-D arrays, zero first, and per cell of `x`
    the place of its value among them. Pricing is elementwise arithmetic, so a figure worked out on these values
    and gathered back is the figure worked out cell by cell, bit for bit, at the cost of the distinct values:
    a run's windows hold few distinct packet counts (most are empty when the windows are narrow). Where x is
    zero, y is taken as 1500 (the packet size the pricing assumes where nothing was received)."""
    flat = x.reshape(-1)
    nz = np.flatnonzero(flat)
    index = np.zeros(flat.size, dtype=np.intp)
    if y is None:
        u, inv = np.unique(flat[nz], return_inverse=True)
        values: tuple[np.ndarray, ...] = (np.concatenate(([0.0], u)),)
    else:
        pairs = np.stack([flat[nz], y.reshape(-1)[nz]], axis=1)
        u, inv = np.unique(pairs, axis=0, return_inverse=True)
        values = (np.concatenate(([0.0], u[:, 0])), np.concatenate(([1500.0], u[:, 1])))
    index[nz] = inv.reshape(-1) + 1
    return values, index.reshape(x.shape)


def _label(s: _Setting) -> str:
    f = f" {s.f_hz / 1e9:g} GHz" if s.policy == "fixed" else ""
    extra = f", +{s.platform_w:g} W" if s.platform_w else ""
    return f"host {s.policy}{f}, {s.cores} core(s), {s.nic}{extra}"


def fold_windows(rows: list[list[int]], hosts: int, windows: int) -> np.ndarray:
    """Ragged per-host (or per-link) rows (the engine stops a row at its last packet) as rows x windows; counts
    past the last window (a packet at the very end of the run) are kept in the last one."""
    out = np.zeros((hosts, windows), dtype=float)
    if not (isinstance(rows, np.ndarray) and rows.ndim == 2):  # lists of whole numbers (a results document)
        rows = int_rows(rows)
    # the engine's columns (sim.engine.run_spec_columns); whole numbers, so the folded sums are exact
    a = rows.astype(float)
    if a.shape[1] > windows:
        a = np.concatenate([a[:, : windows - 1], a[:, windows - 1 :].sum(axis=1, keepdims=True)], axis=1)
    out[: len(a), : a.shape[1]] = a
    return out


def int_rows(rows: list[list[int]]) -> np.ndarray:
    """Ragged lists of whole numbers as one int64 matrix, zeros after a row's end (one conversion of every
    number, not one array per row)."""
    import itertools

    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum()))
    width = int(lengths.max()) if len(rows) else 0
    if (lengths == width).all():
        return flat.reshape(len(rows), width)
    out = np.zeros((len(rows), width), dtype=np.int64)
    out[np.arange(width) < lengths[:, None]] = flat  # row by row, in order
    return out
