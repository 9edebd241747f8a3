"""`greendcn reproduce opera-paper` (a flow file of the public Opera simulator on its network, beside the
simulator's own output) and `greendcn reproduce opera-paper-energy` (p99 short-flow FCT against joules per
delivered bit over several runs); docs/opera-paper.md."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json
from ._apps import reproduce_app

_CITE = "Mellette et al., Expanding across time to deliver bandwidth efficiency and low latency, NSDI 2020"
_NETWORK_HELP = "opera, clos (3:1 folded Clos) or expander (u = 7); built from its scenario file."
_SCENARIOS_HELP = "Folder holding the networks' scenario files (default: the repository's scenarios/)."


def _fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "n/a"
    return f"{100 * v:+.1f} %" if pct else f"{v:.4g}"


def print_comparison(doc: dict[str, Any]) -> None:
    """Ours beside theirs per bucket (FCT in ms), then the energy of the run."""
    c = doc["config"]
    ref = c["reference_file"] is not None
    print(
        f"{c['network']} ({c['hosts']} hosts, {c['transport']}), {doc['flows']} flows from {c['flows_file']}: "
        f"{doc['completed_ours']} completed"
        + (f" (the simulator's output: {doc['completed_theirs']})" if ref else "")
    )
    rows = []
    for b in doc["buckets"]:
        row: dict[str, Any] = {"bucket": b["bucket"], "flows": b["flows"], "done": b["completed_ours"]}
        for stat in ("p50", "mean", "p99"):
            row[f"{stat}_ms"] = _fmt(b[f"fct_{stat}_ms_ours"])
            if ref:
                row[f"{stat}_ms_sim"] = _fmt(b[f"fct_{stat}_ms_theirs"])
                row[f"{stat}_diff"] = _fmt(b[f"fct_{stat}_diff"], pct=True)
        row["slow_p99"] = _fmt(b["slowdown_p99_ours"])
        if ref:
            row["slow_p99_sim"] = _fmt(b["slowdown_p99_theirs"])
            row["target"] = {True: "met", False: "missed", None: "n/a"}[b["within_target"]]
        rows.append(row)
    print(f"FCT per size bucket (ms, from each flow's start to {c['fct_ends']}", end="")
    print("; diff = ours vs the simulator's, relative):" if ref else "):")
    echo_table(rows)
    if ref:
        print("target (our choice, with NDP): p50 and mean within 15 %, p99 within 30 %")
    e = doc["energy"]
    per_bit = "n/a" if e["energy_per_bit_pj"] is None else f"{e['energy_per_bit_pj']:.4g} pJ"
    print(
        f"energy over the run ({e['sim_time_s'] * 1e3:.4g} ms): {e['energy_j']:.4g} J, {per_bit} per delivered bit, "
        f"{e['devices']} devices priced ({e['hosts_priced']} hosts: {e['hosts_energy_j']:.4g} J)"
    )


@reproduce_app.command("opera-paper")
def opera_paper(
    flows: Path = typer.Option(
        ..., "--flows", help="A flow file of the public Opera simulator (src dst bytes start_ns)."
    ),
    network: str = typer.Option(..., "--network", help=_NETWORK_HELP),
    reference: Path | None = typer.Option(
        None,
        "--reference",
        help="The simulator's output for this flow file (FCT src dst bytes fct_ms start_ms).",
    ),
    transport: str = typer.Option("ndp", "--transport", help="ndp (the simulator's), tcp or dctcp."),
    out: Path = typer.Option(
        Path("out/reproduce-opera-paper"), "-o", "--out", help="Folder for the CSV and PNG."
    ),
    scenarios_dir: Path | None = typer.Option(None, "--scenarios-dir", help=_SCENARIOS_HELP),
    json_out: Path | None = JsonOption,
) -> None:
    """Mellette et al., NSDI 2020, Figure 9 on identical flows: run a flow file of the public Opera simulator
    on Opera, the 3:1 Clos or the u = 7 expander with its run script's parameters, and set FCT per size bucket
    beside the simulator's own output."""
    from ..reproduce.opera_paper import reproduce_opera_paper
    from ..reproduce.opera_paper_figures import write_cdf_figure

    doc = reproduce_opera_paper(flows, network, reference, transport, scenarios_dir, progress=True)
    per_flow = doc.pop("_flows")
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{network}_{flows.stem}_{transport}"
    per_flow.to_csv(out / f"{stem}_flows.csv", index=False)
    fig = write_cdf_figure(per_flow, out / f"{stem}_fct_cdf.png", f"{flows.name} on {network} ({transport})")
    print_comparison(doc)
    print(f"(the comparison: {_CITE}, Figure 9; the simulator's files: docs/opera-paper.md)")
    info(f"wrote {out / (stem + '_flows.csv')} and {fig}")
    write_json(json_out, doc)


def _parse_run(text: str) -> tuple[str, Path]:
    net, sep, path = text.partition("=")
    if not sep or not path:
        from ...core.errors import InputError

        raise InputError(
            f"--run: {text!r} is not NETWORK=FLOWFILE",
            hint="e.g. --run opera=flows_1percLLload_1sec_648hosts.htsim",
            loc=("run",),
        )
    return net.strip(), Path(path)


def _load_label(path: Path) -> str:
    """The load a flow file's name states (the simulator's `..._10percLLload_...`), else the file's stem."""
    m = re.search(r"(\d+(?:\.\d+)?)perc", path.name)
    return f"{m.group(1)} %" if m else path.stem


@reproduce_app.command("opera-paper-energy")
def opera_paper_energy(
    runs: list[str] = typer.Option(
        ..., "--run", help="NETWORK=FLOWFILE, once per run (e.g. opera=flows.htsim)."
    ),
    transport: str = typer.Option("ndp", "--transport", help="ndp (the simulator's), tcp or dctcp."),
    out: Path = typer.Option(
        Path("out/reproduce-opera-paper"), "-o", "--out", help="Folder for the CSV and the PNG."
    ),
    scenarios_dir: Path | None = typer.Option(None, "--scenarios-dir", help=_SCENARIOS_HELP),
    json_out: Path | None = JsonOption,
) -> None:
    """p99 FCT of short flows (< 100 KB) against joules per delivered bit, every device priced (hosts too), for
    several (network, flow file) runs of the public Opera simulator's files (Mellette et al., NSDI 2020)."""
    from ...core.clitools import write_csv
    from ..reproduce.opera_paper import reproduce_opera_paper
    from ..reproduce.opera_paper_figures import write_energy_figure

    pairs = [_parse_run(r) for r in runs]
    rows = []
    for net, path in pairs:
        info(f"running {path.name} on {net} ...")
        doc = reproduce_opera_paper(path, net, None, transport, scenarios_dir, progress=True)
        short = doc["buckets"][1]  # [0] is all flows, [1] the first size bucket (< 100 KB)
        e = doc["energy"]
        rows.append(
            {
                "network": net,
                "flows_file": str(path),
                "label": _load_label(path),
                "transport": transport,
                "flows": doc["flows"],
                "completed": doc["completed_ours"],
                "short_flows": short["flows"],
                "short_fct_p99_ms": short["fct_p99_ms_ours"],
                "short_fct_p50_ms": short["fct_p50_ms_ours"],
                "energy_j": e["energy_j"],
                "sim_time_s": e["sim_time_s"],
                "delivered_bits": e["delivered_bits"],
                "energy_per_bit_pj": e["energy_per_bit_pj"],
                "hosts_energy_j": e["hosts_energy_j"],
                "host_share": e["hosts_energy_j"] / e["energy_j"] if e["energy_j"] else None,
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "energy_fct.csv", list(rows[0]))
    fig = write_energy_figure(rows, out / "energy_fct.png")
    echo_table(
        [
            {
                "network": r["network"],
                "load": r["label"],
                "flows": r["flows"],
                "done": r["completed"],
                "short_p99_ms": r["short_fct_p99_ms"],
                "energy_J": r["energy_j"],
                "pJ_per_bit": r["energy_per_bit_pj"],
                "host_share_%": None if r["host_share"] is None else 100 * r["host_share"],
            }
            for r in rows
        ]
    )
    info(f"wrote {out / 'energy_fct.csv'} and {fig}")
    write_json(json_out, {"transport": transport, "runs": rows})
