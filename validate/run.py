"""`make validate`: seed 003's scenarios in greendcn and in ns-3 on identical networks and flows, side by side.

For each scenario (static, random), long-flow count N, seed and routing (single path, spraying), greendcn builds
the k=4 fat-tree and the flows; the same network (nodes and links in greendcn's order) and flows go to ns-3
through validate/ns3_network.cc, compiled against the `ns3` wheel. Printed per (scenario, routing, N): mean
short-flow FCT and mean long-flow throughput in both simulators and their ratio, and the runs' retransmissions
and out-of-order arrivals in both; `--json` writes every flow of every run (FCT, retransmissions, reordering).

Usage: python validate/run.py --ns3-binary BIN [--seeds 10] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from greendcn.sim import scenario_from_dict
from greendcn.sim.reproduce.rps import seed003_scenario
from greendcn.sim.run import simulate
from greendcn.sim.topology import build_topology
from greendcn.sim.workload import build_workload


def write_network(net, path: Path) -> None:
    spec = net.to_spec()
    lines = [f"node {n['name']} {n['kind']}" for n in spec["nodes"]]
    for link in spec["links"]:
        queue = (link.get("queue_a") or {}).get("packets", 1000)
        lines.append(f"link {link['a']} {link['b']} {link['rate_bps']} {link['delay_ps']} {queue}")
    path.write_text("\n".join(lines) + "\n")


def write_flows(net, flows, path: Path) -> None:
    names = [n.name for n in net.nodes]
    rows = ["id,src,dst,size_bytes,start_s"]
    rows += [f"{f.id},{names[f.src]},{names[f.dst]},{f.size_bytes},{f.start_ps / 1e12}" for f in flows]
    path.write_text("\n".join(rows) + "\n")


def run_ns3(binary: str, network: Path, flows: Path, routing: str, seed: int, sc) -> dict[int, dict]:
    t = sc.tcp
    args = [
        binary,
        f"--network={network}",
        f"--flows={flows}",
        f"--routing={routing}",
        f"--mss={t.mss}",
        f"--iw={t.initial_window}",
        f"--window={t.max_window}",
        f"--dupacks={t.dupack_threshold}",
        f"--minrto={t.min_rto / 1e12}",
        f"--delack={'true' if t.delayed_ack else 'false'}",
        f"--seed={seed}",
    ]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=3600).stdout
    result: dict[int, dict] = {}
    for line in out.strip().splitlines()[1:]:
        fid, f, _rx, retx, ooo = line.split(",")
        result[int(fid)] = {"fct_s": float(f) if f else None, "retransmits": int(retx), "ooo": int(ooo)}
    return result


def one(
    binary: str,
    kind: str,
    n_long: int,
    seed: int,
    scheme: str,
    long_size: str,
    tmp: Path,
    handshake: bool = True,
) -> dict:
    raw = seed003_scenario(kind, long_flows=n_long, long_size=long_size)
    raw["routing"] = {"scheme": scheme, "single_path": "first"}
    raw["tcp"]["handshake"] = handshake  # ns-3 opens every connection with one
    raw["tcp"]["slow_start_segments_per_ack"] = 1  # ns-3's NewReno grows one segment per ACK
    sc = scenario_from_dict(raw)
    net = build_topology(sc.topology)
    flows = build_workload(sc, net, seed)
    ours = simulate(sc, seed=seed, flows=flows, progress=False)
    write_network(net, tmp / "network.txt")
    write_flows(net, flows, tmp / "flows.csv")
    theirs = run_ns3(binary, tmp / "network.txt", tmp / "flows.csv", scheme, seed, sc)
    rows = []
    for f, r in zip(flows, ours.flows.sort_values("id").itertuples()):
        t = theirs.get(f.id, {})
        rows.append(
            {
                "id": f.id,
                "class": f.cls,
                "size_bytes": f.size_bytes,
                "greendcn_fct_s": r.fct_s,
                "ns3_fct_s": t.get("fct_s"),
                "greendcn_retransmits": int(r.retransmits),
                "ns3_retransmits": t.get("retransmits"),
                "greendcn_ooo_packets": int(r.ooo_packets),
                "ns3_ooo_arrivals": t.get("ooo"),
            }
        )
    return {"scenario": kind, "routing": scheme, "n_long": n_long, "seed": seed, "flows": rows}


def summarize(runs: list[dict]) -> list[dict]:
    table = []
    keys = sorted({(r["scenario"], r["routing"], r["n_long"]) for r in runs})
    for kind, scheme, n in keys:
        sel = [r for r in runs if (r["scenario"], r["routing"], r["n_long"]) == (kind, scheme, n)]
        short = [
            (f["greendcn_fct_s"], f["ns3_fct_s"]) for r in sel for f in r["flows"] if f["class"] == "short"
        ]
        long_ = [
            (
                f["size_bytes"] * 8 / f["greendcn_fct_s"] if f["greendcn_fct_s"] else np.nan,
                f["size_bytes"] * 8 / f["ns3_fct_s"] if f["ns3_fct_s"] else np.nan,
            )
            for r in sel
            for f in r["flows"]
            if f["class"] == "long"
        ]
        ours_s, ns3_s = (np.nanmean([x[i] if x[i] is not None else np.nan for x in short]) for i in (0, 1))
        row = {
            "scenario": kind,
            "routing": scheme,
            "N": n,
            "seeds": len(sel),
            "short_fct_ms_greendcn": ours_s * 1e3,
            "short_fct_ms_ns3": ns3_s * 1e3,
            "short_fct_ratio": ours_s / ns3_s,
        }
        if long_:
            ours_l, ns3_l = (np.nanmean([x[i] for x in long_]) for i in (0, 1))
            row.update(
                {
                    "long_Mbps_greendcn": ours_l / 1e6,
                    "long_Mbps_ns3": ns3_l / 1e6,
                    "long_ratio": ours_l / ns3_l,
                }
            )
        fl = [f for r in sel for f in r["flows"]]
        row.update(
            {
                "retx_greendcn": sum(f["greendcn_retransmits"] for f in fl),
                "retx_ns3": sum(f["ns3_retransmits"] or 0 for f in fl),
                "ooo_greendcn": sum(f["greendcn_ooo_packets"] for f in fl),
                "ooo_ns3": sum(f["ns3_ooo_arrivals"] or 0 for f in fl),
            }
        )
        table.append(row)
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-binary", required=True)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="2 seeds, N = 1 and 5, 1 MB long flows")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-handshake", action="store_true", help="greendcn without its handshake model")
    a = ap.parse_args()
    seeds = 2 if a.quick else a.seeds
    ns = (1, 5) if a.quick else (1, 2, 3, 4, 5)
    long_size = "1MB" if a.quick else "10MB"
    runs = []
    cases = [
        (k, n, s, r)
        for k in ("static", "random")
        for n in ns
        for r in ("single", "rps")
        for s in range(1, seeds + 1)
        if not (k == "static" and s > 1)
    ]  # static flows do not depend on seed
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as d:
        for i, (kind, n, seed, scheme) in enumerate(cases, 1):
            runs.append(one(a.ns3_binary, kind, n, seed, scheme, long_size, Path(d), not a.no_handshake))
            print(
                f"\r{i}/{len(cases)} runs, {time.monotonic() - t0:.0f} s", end="", file=sys.stderr, flush=True
            )
    print(file=sys.stderr)
    table = summarize(runs)
    cols = list(table[0])
    print("  ".join(cols))
    for row in table:
        print(
            "  ".join(
                f"{row.get(c):.4g}" if isinstance(row.get(c), float) else str(row.get(c, "-")) for c in cols
            )
        )
    if a.json:
        a.json.write_text(json.dumps({"summary": table, "runs": runs}, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
