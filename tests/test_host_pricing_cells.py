"""Host pricing per distinct value (greendcn.sim.host_power): every figure of `HostPricer.price` equals, bit for bit,
what pricing every (host, window) cell gives (the CPU and NIC formulas applied to whole hosts x windows
matrices, every row of counts converted on its own), on hand-made results with ragged rows and six host
settings, and on a small fabric comparison whose windows are narrowed to 10 us (run.window ends at 0.41 ms) and
whose run is priced without a window. Exact equality, no tolerance: the figures are elementwise arithmetic on the
same inputs and the sums run over the same matrices in the same order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from greendcn.sim import host_power
from greendcn.sim.fabrics import FabricsConfig
from greendcn.sim.fabrics_load import compare_on_flows, generated_flows
from greendcn.sim.host_power import HostPowerConfig, fold_windows
from greendcn.sim.ledger import in_interval, interval_weights
from greendcn.sim.ledger_columns import node_columns


def _rows(rows, hosts: int, width: int) -> np.ndarray:
    """Counts as hosts x width floats, converted row by row (zeros after a row's end)."""
    out = np.zeros((hosts, width))
    for i, row in enumerate(rows):
        a = np.asarray(row, dtype=float)
        out[i, : min(a.size, width)] = a[:width]
    return out


def per_cell(pricer, results: dict, interval_ps=None) -> dict:
    """The pricing worked out on every cell of hosts x windows matrices (as it was before distinct values)."""
    series = results["series"]
    nodes = node_columns(results["nodes"])
    names = [n for n, kind in zip(nodes.names, nodes.kinds) if kind == "host"]
    sim_s = results["summary"]["sim_time_ps"] * 1e-12
    w_s = series["window_ps"] * 1e-12
    keys = ("host_packets_sent", "host_packets_received", "host_bytes_received", "host_bytes_sent")
    if interval_ps is None:
        windows = max(1, math.ceil(sim_s / w_s - 1e-9)) if sim_s > 0 else 1
        width = max(windows, max((len(r) for r in series[keys[0]]), default=0))
        full = [_rows(series[k], len(names), width) for k in keys]
        # counts past the last window are kept in the last one
        sent, recv, rbytes, bsent = (
            np.concatenate([a[:, : windows - 1], a[:, windows - 1 :].sum(axis=1, keepdims=True)], axis=1)
            for a in full
        )
        dur = np.clip(sim_s - np.arange(windows) * w_s, 0.0, w_s)
    else:
        idx, frac = interval_weights(series["window_ps"], interval_ps)
        width = int(idx.max()) + 1 if idx.size else 0
        sent, recv, rbytes, bsent = (
            np.ascontiguousarray(_rows(series[k], len(names), width)[:, idx]) * frac for k in keys
        )
        dur = frac * w_s
    safe = np.where(dur > 0, dur, 1.0)
    load = (sent + recv) / 2.0 / safe
    rx = recv / safe
    pkt = np.where(recv > 0, rbytes / np.maximum(recv, 1), 1500.0)
    settings = [pricer.setting_for(n) for n in names]
    cpu, nicw, irq = (np.zeros_like(load) for _ in range(3))
    sat = np.zeros(len(names), dtype=np.int64)
    for s in set(settings):
        idx = np.array([i for i, t in enumerate(settings) if t == s])
        c, saturated, f_rx = pricer._cpu_w(s, load[idx])
        cpu[idx], sat[idx] = c, saturated.sum(axis=1)
        watts, ips = pricer._nic_w(s, f_rx, rx[idx], pkt[idx])
        nicw[idx], irq[idx] = watts, ips * dur
    plat_w = np.array([s.platform_w for s in settings])
    power = cpu + nicw + plat_w[:, None]
    power[:, dur <= 0] = 0.0
    return {
        "energy_j": power @ dur,
        "cpu_j": cpu @ dur,
        "nic_j": nicw @ dur,
        "platform_j": plat_w * float(dur.sum()),
        "interrupts": irq.sum(axis=1),
        "packets_sent": sent.sum(axis=1),
        "packets_received": recv.sum(axis=1),
        "bytes_sent": bsent.sum(axis=1),
        "bytes_received": rbytes.sum(axis=1),
        "saturated_windows": sat,
        "durations_s": dur,
        "power_w": power,
    }


def assert_same(got, want: dict) -> None:
    for key, value in want.items():
        have = getattr(got, key)
        assert have.shape == value.shape and have.dtype == value.dtype, key
        assert np.array_equal(have, value), key  # bit for bit: no tolerance


def hand_results(hosts: int = 6, windows: int = 40, seed: int = 3) -> dict:
    """Hosts with bursty, ragged per-window counts (each row stops at its last packet; some rows end past the
    run's last window, one is empty), 1 ms windows, the run ending inside its last window."""
    rng = np.random.default_rng(seed)
    series: dict = {"window_ps": 1_000_000_000}
    lengths = [windows, windows + 2, windows - 7, 0, 5, windows][:hosts]
    sent, recv = [], []
    for n in lengths:
        busy = rng.random(n) < 0.4
        sent.append((busy * rng.integers(0, 3000, n)).tolist())
        recv.append((busy * rng.integers(0, 1_500_000, n)).tolist())  # up to 1.5 Mpps: some windows saturate
    series["host_packets_sent"] = sent
    series["host_packets_received"] = recv
    series["host_bytes_sent"] = [[1500 * x for x in row] for row in sent]
    series["host_bytes_received"] = [[x * int(rng.integers(64, 9000)) for x in row] for row in recv]
    return {
        "nodes": [{"name": f"H{i}", "kind": "host"} for i in range(hosts)]
        + [{"name": "E0", "kind": "switch"}],
        "summary": {"sim_time_ps": (windows - 1) * 1_000_000_000 + 370_000_000},
        "series": series,
    }


# H0 by default; the others each under another setting (policy, receive mode, cores, platform power)
PER_HOST = {
    "H1": {"policy": "optimizer"},
    "H2": {"policy": "affcon", "cores": 2},
    "H3": {"nic": "watermark:16KB"},
    "H4": {"nic": "interrupt", "platform_w": 5.0},
    "H5": {"nic": "timer:50us", "frequency": "2GHz"},
}


@pytest.mark.parametrize("interval_ps", [None, (0, 410_000_000), (2_500_000_000, 37_600_000_000)])
def test_distinct_values_price_as_every_cell(interval_ps):
    results = hand_results()
    pricer = HostPowerConfig(per_host=PER_HOST).pricer()
    got = pricer.price(results, interval_ps=interval_ps)
    assert len(set(got.settings)) == 6
    assert_same(got, per_cell(pricer, results, interval_ps))
    # the same counts as the engine's int64 columns price the same
    columns = {**results, "series": dict(results["series"])}
    for k, rows in results["series"].items():
        if k != "window_ps":
            width = max(len(r) for r in rows)
            columns["series"][k] = np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)
    assert_same(pricer.price(columns, interval_ps=interval_ps), per_cell(pricer, results, interval_ps))
    # the hand-made loads reach the mechanism's cases: idle and busy cells, saturated windows, a byte watermark
    assert got.saturated_windows.sum() > 0 and (got.power_w > 0).all() and got.interrupts.sum() > 0


def test_fold_windows_and_in_interval_read_ragged_rows_as_row_by_row():
    rows = [[1, 2, 3, 4, 5], [], [7], [0, 0, 9, 10, 11, 12, 13]]
    assert np.array_equal(
        fold_windows(rows, 5, 4), [[1, 2, 3, 9], [0] * 4, [7, 0, 0, 0], [0, 0, 9, 46], [0] * 4]
    )
    idx, frac = interval_weights(10, (15, 42))  # windows 1..4, half of the first and a fifth of the last
    assert idx.tolist() == [1, 2, 3, 4] and frac.tolist() == [0.5, 1.0, 1.0, 0.2]
    want = np.array([[1.0, 3, 4, 1.0], [0, 0, 0, 0], [0, 0, 0, 0], [0.0, 9, 10, 2.2]])
    assert np.array_equal(in_interval(rows, idx, frac), want)
    assert np.array_equal(in_interval(rows, idx[:0], frac[:0]), np.zeros((4, 0)))


def test_a_narrowed_load_point_prices_as_every_cell(tmp_path, monkeypatch):
    # 32 hosts, 1 kB flows at load 0.3 until 0.41 ms: run.window narrows the 1 ms windows to 10 us; each
    # fabric's run and window are priced both ways (RotorNet's and Opera's counts as lists, the fat-trees' as
    # the packet engine's columns)
    sizes = tmp_path / "sizes.csv"
    sizes.write_text("size_bytes,cumulative_probability\n999,0\n1000,1\n")
    cfg = FabricsConfig(racks=8, circuit_switches=4)
    flows = generated_flows(cfg, 0.3, str(sizes), 410_000_000)
    checked = []
    real = host_power.HostPricer.price

    def both(self, results, interval_ps=None):
        got = real(self, results, interval_ps)
        assert_same(got, per_cell(self, results, interval_ps))
        checked.append((results["series"]["window_ps"], interval_ps, got.power_w.shape[1]))
        return got

    monkeypatch.setattr(host_power.HostPricer, "price", both)
    doc = compare_on_flows(cfg, flows, "narrow", run={"window": ["0ps", "410000000ps"]}, keep_flows=False)
    assert len(doc["fabrics"]) == 5 and len(checked) == 10
    assert {w for w, _, _ in checked} == {10_000_000}  # 10 us: gcd(1 ms, 0.41 ms)
    assert {i for _, i, _ in checked} == {None, (0, 410_000_000)}
    assert max(n for _, i, n in checked if i is None) > 41  # a run outlasting the window, priced at 10 us
