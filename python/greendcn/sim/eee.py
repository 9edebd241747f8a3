"""Scenario keys for Energy-Efficient Ethernet (`[eee]`) and the port power model (`[power.ports]`), and the
engine's EEE settings built from them (docs/energy-saving.md, docs/scenario-format.md).

```toml
[eee]
enabled = true
phy = "auto"          # each link takes the 802.3az PHY of its rate; or "10GBASE-T" etc. for every link
# sleep = "2.88us"    # optional: Ts and Tw for every link instead of the PHY's
# wake = "4.48us"
hold_off = "0us"      # awake this long after the queue empties before sleeping
coalesce = "0us"      # in LPI, wait this long after the first packet before waking
coalesce_bytes = 0    # or wake as soon as this many bytes wait, if sooner (e.g. "9KB"; needs coalesce)
```"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ..core.errors import FieldError, InputError
from ..core.units import parse_size_bytes, parse_time_ps

__all__ = ["MAX_EEE_TIME_PS", "PHYS", "EeeConfig", "PortsConfig", "eee_spec"]

# 802.3az's minimum wake time Tw and sleep time Ts per PHY, as tabulated by Reviriego et al. 2009
# ("Performance evaluation of Energy Efficient Ethernet", IEEE Communications Letters, Table I) and
# Christensen et al. 2010 (IEEE Communications Magazine): (rate in b/s, Ts in ps, Tw in ps).
PHYS: dict[str, tuple[int, int, int]] = {
    "100BASE-TX": (100_000_000, 200_000_000, 30_500_000),
    "1000BASE-T": (1_000_000_000, 182_000_000, 16_500_000),
    "10GBASE-T": (10_000_000_000, 2_880_000, 4_480_000),
}
# Longest sleep or wake time taken (our choice: 10 ms, 50 times the standard's longest, 100BASE-TX's Ts, so
# that only a unit mistake is refused); hold-off and coalescing up to 100 ms.
MAX_EEE_TIME_PS = 10_000_000_000
MAX_WAIT_PS = 100_000_000_000


def _time(value: Any) -> Any:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value == 0):
        return value
    if isinstance(value, str) and value.strip().startswith("-"):
        raise InputError(f"must not be negative, got {value!r}", hint='write a time such as "4.48us"')
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise InputError(f"must not be negative, got {value!r}", hint='write a time such as "4.48us"')
    return parse_time_ps(value, "value")


Time = Annotated[int, BeforeValidator(_time), Field(ge=0)]


def _size(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        if value < 0:
            raise InputError(f"must not be negative, got {value!r}", hint='write a size such as "9KB"')
        return value
    if isinstance(value, str) and value.strip().startswith("-"):
        raise InputError(f"must not be negative, got {value!r}", hint='write a size such as "9KB"')
    return parse_size_bytes(value, "value")


Size = Annotated[int, BeforeValidator(_size), Field(ge=0)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, validate_default=True)


class EeeConfig(_Model):
    enabled: bool = False
    phy: str = "auto"
    sleep: Time | None = None
    wake: Time | None = None
    hold_off: Time = 0
    coalesce: Time = 0
    coalesce_bytes: Size = 0

    @model_validator(mode="after")
    def _bounds(self) -> EeeConfig:
        if self.phy != "auto" and self.phy not in PHYS:
            raise FieldError("phy", f"unknown PHY {self.phy!r}", hint=f"one of auto, {', '.join(PHYS)}")
        for key, bound in (("sleep", MAX_EEE_TIME_PS), ("wake", MAX_EEE_TIME_PS)):
            v = getattr(self, key)
            if v is not None and v > bound:
                raise FieldError(
                    key,
                    f"{v / 1e6:g} us is longer than the bound of {bound / 1e9:g} ms",
                    hint="802.3az's are us",
                )
        for key in ("hold_off", "coalesce"):
            if getattr(self, key) > MAX_WAIT_PS:
                raise FieldError(
                    key, f"longer than the bound of {MAX_WAIT_PS / 1e9:g} ms", hint="use us or ms"
                )
        if self.coalesce_bytes > 0 and self.coalesce == 0:
            raise FieldError(
                "coalesce_bytes",
                "a byte count needs a coalescing delay: without one the port wakes at the first packet",
                hint='set eee.coalesce too, e.g. coalesce = "20us" (the longest a packet waits)',
            )
        if (self.sleep is None) != (self.wake is None):
            raise FieldError(
                "wake" if self.wake is None else "sleep",
                "give both sleep and wake, or neither (the PHY's)",
                hint='e.g. sleep = "2.88us", wake = "4.48us"',
            )
        return self


class PortsConfig(_Model):
    """[power.ports]: price switches port by port (greendcn.power.ports)."""

    enabled: bool = True
    port_share: float = Field(0.25, gt=0.0, lt=1.0)
    chassis_w: float | None = Field(None, ge=0)
    port_active_w: float | None = Field(None, ge=0)
    lpi_fraction: float = Field(0.1, ge=0.0, le=1.0)
    port_lpi_w: float | None = Field(None, ge=0)
    port_off_w: float = Field(0.0, ge=0)
    tolerance: float = Field(0.01, ge=0.0, lt=1.0)
    unused: Literal["active", "off"] = "active"


def eee_spec(cfg: EeeConfig, rates_bps: set[int]) -> dict[str, Any] | None:
    """The engine's `eee` document for links of these rates, or None when EEE is off."""
    if not cfg.enabled:
        return None
    phys = []
    for rate in sorted(rates_bps):
        if cfg.sleep is not None and cfg.wake is not None:
            ts, tw = cfg.sleep, cfg.wake
        elif cfg.phy != "auto":
            _, ts, tw = PHYS[cfg.phy]
        else:
            found = [p for p in PHYS.values() if p[0] == rate]
            if not found:
                raise InputError(
                    f"eee.phy: no 802.3az PHY in the table runs at {rate / 1e9:g} Gbps, the rate of some links",
                    hint=f'name one for every link (eee.phy = "10GBASE-T"), or give eee.sleep and eee.wake; '
                    f"table: {', '.join(PHYS)}",
                    loc=("eee", "phy"),
                )
            _, ts, tw = found[0]
        phys.append({"rate_bps": rate, "sleep_ps": ts, "wake_ps": tw})
    spec: dict[str, Any] = {"hold_off_ps": cfg.hold_off, "coalesce_ps": cfg.coalesce, "phys": phys}
    if cfg.coalesce_bytes:
        spec["coalesce_bytes"] = cfg.coalesce_bytes
    return spec
