"""A TDMA schedule as the host probe runs it: period, uptime, guard, preallocation, slots and destinations.

Times are integer nanoseconds (`_ns`): the kernel stamps packets in ns and the sender reads the same
CLOCK_REALTIME, so the probe never needs finer units. The sender emits during
[start + kP - prealloc, start + kP + uptime - prealloc - guard): preallocation moves the whole window early to
cancel the fixed lag, the guard trims its end (seed 001, Fig 3.3 and lines 1203-1205; the same arithmetic as
crates/tdma-probe/src/schedule.rs)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...core.errors import InputError

__all__ = ["Schedule"]


@dataclass(frozen=True)
class Schedule:
    period_ns: int
    uptime_ns: int
    guard_ns: int = 0
    prealloc_ns: int = 0
    slots: int = 100
    start_ns: int = 0
    destinations: int = 1  # per virtual host; slot k goes to destination k % destinations

    def __post_init__(self) -> None:
        if self.period_ns <= 0:
            raise InputError(
                f"period: must be positive, got {self.period_ns} ns", hint="for example --period 500us"
            )
        if not 0 < self.uptime_ns <= self.period_ns:
            raise InputError(
                f"duty: uptime {self.uptime_ns} ns must lie in (0, period {self.period_ns} ns]",
                hint="use a duty cycle in (0, 1], for example --duty 0.5",
            )
        if not 0 <= self.guard_ns < self.uptime_ns:
            raise InputError(
                f"guard: {self.guard_ns} ns must be shorter than the uptime ({self.uptime_ns} ns)",
                hint="lower --guard or raise --duty/--period",
            )
        if self.prealloc_ns < 0:
            raise InputError("prealloc: must not be negative", hint="for example --prealloc 0us")
        if self.slots < 1:
            raise InputError(f"slots: need at least one period, got {self.slots}", hint="raise --duration")
        if self.destinations < 1:
            raise InputError("destinations: need at least one", hint="for example --destinations 1")

    @classmethod
    def from_duty(cls, period_ns: int, duty: float, **kw: int) -> Schedule:
        if not 0 < duty <= 1:
            raise InputError(f"duty: must lie in (0, 1], got {duty}", hint="for example --duty 0.5")
        return cls(period_ns=period_ns, uptime_ns=round(period_ns * duty), **kw)

    @property
    def duty(self) -> float:
        return self.uptime_ns / self.period_ns

    def up_start_ns(self, k: int) -> int:
        return self.start_ns + k * self.period_ns

    def window_ns(self, k: int) -> tuple[int, int]:
        """The sender's window of slot k, [open, close) in ns."""
        up = self.up_start_ns(k)
        return up - self.prealloc_ns, up + self.uptime_ns - self.prealloc_ns - self.guard_ns

    def with_(self, **changes: int) -> Schedule:
        return replace(self, **changes)
