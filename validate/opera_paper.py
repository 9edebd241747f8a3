"""`make validate-opera`: Mellette et al., NSDI 2020, Figure 9 on identical flows: every web-search flow file
of the public Opera simulator's checkout (TritonNetworking/opera-sim) at the chosen loads, run by
`greendcn reproduce opera-paper` on its network and printed beside the simulator's own output.

The checkout's layout: Figure9_websearch/<net>/traffic_gen/flows_*<L>perc*.htsim and
Figure9_websearch/<net>/sim/FCT_*<L>perc*.txt, paired by the load L in their names, with <net> opera,
3to1_clos and u7_expander. A network whose scenario file greendcn does not ship is reported and passed over.

Usage: python validate/opera_paper.py OPERA_SIM_DIR [--loads 1,5,10] [--transport ndp] [--json out.json]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from greendcn.core.clitools import write_json
from greendcn.core.errors import InputError
from greendcn.sim.cli.reproduce_opera_paper import print_comparison
from greendcn.sim.reproduce.opera_paper import reproduce_opera_paper

NETS = {"opera": "opera", "3to1_clos": "clos", "u7_expander": "expander"}


def _by_load(folder: Path, pattern: str) -> dict[str, Path]:
    out = {}
    for p in sorted(folder.glob(pattern)):
        m = re.search(r"_(\d+)perc", p.name)
        if m:
            out[m.group(1)] = p
    return out


def pairs(root: Path, loads: list[str]) -> list[tuple[str, str, Path, Path | None]]:
    """(network, load, flow file, output file or None) for every network folder and load found."""
    found = []
    for folder, net in NETS.items():
        base = root / "Figure9_websearch" / folder
        flows = _by_load(base / "traffic_gen", "*.htsim")
        refs = _by_load(base / "sim", "FCT_*.txt")
        for load in loads:
            if load in flows:
                found.append((net, load, flows[load], refs.get(load)))
    return found


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--loads", default="1", help="comma-separated loads in %% (default 1)")
    ap.add_argument("--transport", default="ndp")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    found = pairs(args.root, [x.strip() for x in args.loads.split(",")])
    if not found:
        print(f"no Figure9_websearch flow files at loads {args.loads} under {args.root}", file=sys.stderr)
        return 1
    docs = []
    for net, load, flows, ref in found:
        print(
            f"\n== Figure 9, web search, {load} % load, {net}: {flows.name} beside {ref.name if ref else '(none)'}"
        )
        try:
            doc = reproduce_opera_paper(flows, net, ref, args.transport, progress=True)
        except InputError as e:
            print(f"passed over: {e}")
            continue
        doc.pop("_flows")
        print_comparison(doc)
        r = doc["run"]
        hops, wall = r["packet_hops"] or 0, r["engine_wall_s"] or 0.0
        rate = f", {hops / wall / 1e6:.2f} M packet-hops/s" if wall else ""
        print(
            f"engine wall {wall:.1f} s, {hops / 1e6:.1f} M packet-hops{rate}; whole run {r['wall_s']:.1f} s"
        )
        docs.append(doc)
    write_json(args.json, docs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
