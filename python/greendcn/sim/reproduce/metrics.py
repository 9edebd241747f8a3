"""Seed 003's per-run metrics, computed from a run's flow table (issue 7's definitions).

- long-flow throughput: 8 x size_bytes / FCT per long flow, averaged over the long flows of the run;
- short-flow FCT: averaged over the short flows of the run;
- out-of-order %: out-of-order packets / data packets received, summed over the short flows of the run.
Averaging over runs is done by the caller. A flow that never completed has no FCT: the run is marked
incomplete (never silently averaged as if it had finished)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

__all__ = ["run_metrics"]


def run_metrics(flows: pd.DataFrame) -> dict[str, Any]:
    long = flows[flows["class"] == "long"]
    short = flows[flows["class"] == "short"]
    received = short["packets_received"].sum()
    return {
        "long_flows": len(long),
        "short_flows": len(short),
        "long_throughput_bps": float(long["throughput_bps"].mean()) if len(long) else math.nan,
        "short_fct_s": float(short["fct_s"].mean()) if len(short) else math.nan,
        "ooo_pct": 100.0 * float(short["ooo_packets"].sum()) / float(received) if received else math.nan,
        "short_ooo_packets": int(short["ooo_packets"].sum()),
        "short_packets_received": int(received),
        "retransmits": int(flows["retransmits"].sum()),
        "spurious_retransmits": int(flows["spurious_retransmits"].sum()),
        "all_completed": bool(flows["fct_s"].notna().all()),
    }
