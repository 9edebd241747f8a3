"""Small Opera fabrics for tests: 8 racks of 2 hosts on 4 rotor switches (S0, S1 in rack 0, S2, S3 in rack 1,
..., S14, S15 in rack 7) running NDP with the public Opera simulator's packet sizes, so a run takes a second."""

from __future__ import annotations

TOPOLOGY = {
    "kind": "opera",
    "racks": 8,
    "circuit_switches": 4,
    "hosts_per_rack": 2,
    "link_rate": "10Gbps",
    "link_delay": "500ns",
    "reconfig": "10us",
}


def ndp_scenario(
    flows: list[dict], pacing: str = "host", window: int = 20, paths: int | None = None, **topo
) -> dict:
    """A scenario of `flows` over the small Opera fabric with NDP; `paths` sets `routing.opera_paths` (left out
    when None), `topo` overrides topology keys."""
    routing: dict = {"scheme": "opera"}
    if paths is not None:
        routing["opera_paths"] = paths
    return {
        "topology": {**TOPOLOGY, **topo},
        "routing": routing,
        "transport": {"default": "ndp"},
        "tcp": {"mss": 1436, "header_bytes": 64},
        "ndp": {"queue": "8pkt", "header_bytes": 64, "initial_window": window, "pull_pacer": pacing},
        "workload": {"kind": "flows", "flows": flows},
    }
