"""The scenario's [elastictree] keys: whether the power manager runs, how often it re-plans, the safety
margin and the wake-up time (docs/scenario-format.md)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ...core.errors import FieldError, InputError
from ...core.units import parse_time_ps

__all__ = ["ElasticTree"]


def _time(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return 0
    if isinstance(value, str) and value.strip().startswith("-"):
        raise InputError(f"must not be negative, got {value!r}", hint="write a time such as '100us'")
    return parse_time_ps(value, "value")


Time = Annotated[int, BeforeValidator(_time), Field(ge=0)]


class ElasticTree(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, validate_default=True)

    enabled: bool = False
    # How often the manager picks a new subset (our choice: 1 ms, a few flow lifetimes at these loads).
    interval: Time = "1ms"  # type: ignore[assignment]
    # The share of each link's rate the plan may fill, in (0, 1] (our choice of meaning and default, 0.8:
    # Heller et al. 2010 also keep spare capacity on the subset, a "safety margin", against surges).
    margin: float = 0.8
    # Time a switch or link takes to wake before it carries traffic (our choice: 100 us; the manager knows
    # its schedule and powers a device on this much before its interval, paying for it).
    wake_time: Time = "100us"  # type: ignore[assignment]
    # Power of a switch while off (W; our choice: 0, fully powered down).
    off_power: float = Field(0.0, ge=0.0)

    @model_validator(mode="after")
    def _check(self) -> ElasticTree:
        if not (0.0 < self.margin <= 1.0):
            raise FieldError("margin", f"must be in (0, 1], got {self.margin}", hint="e.g. margin = 0.8")
        if self.interval <= 0:
            raise FieldError("interval", "must be longer than 0", hint='e.g. interval = "1ms"')
        if self.wake_time > self.interval:
            raise FieldError(
                "wake_time",
                f"{self.wake_time / 1e6:g} us is longer than the interval ({self.interval / 1e6:g} us)",
                hint="a device must be able to wake within one interval: shorten wake_time or lengthen interval",
            )
        return self
