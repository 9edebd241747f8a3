"""`greendcn energy`: compare and router work on built-in defaults; bad input gives error + hint, no traceback."""

import json
import subprocess
import sys

import pytest


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "greendcn.cli", "energy", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=cwd,
    )


def test_compare_defaults_print_table_write_json_and_figure(tmp_path):
    out = run_cli("compare", "--json", str(tmp_path / "c.json"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "fat-tree 1:1 (Wedge 100BF-65X)" in out.stdout and "1417.7" in out.stdout
    assert list(tmp_path.iterdir()) == [tmp_path / "c.json"]  # no figure unless asked for
    out = run_cli("compare", "--figure", str(tmp_path / "f" / "energy-compare.png"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    png = tmp_path / "f" / "energy-compare.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads((tmp_path / "c.json").read_text())
    recs = doc["records"]
    assert len(recs) == 8 * 8  # 8 architectures x node counts 1024, 2048, ..., 131072
    r = next(x for x in recs if x["architecture"].startswith("fat-tree 1:1 (Wedge") and x["nodes"] == 65536)
    assert r["power_w"] == pytest.approx(1_417_728.0) and sum(r["switches"].values()) == 5120
    omitted = [x for x in recs if x["power_w"] is None]
    assert omitted and all("omitted" in x["note"] for x in omitted)
    assert doc["switches"]["sn2700"]["power_w"] == 90.5 and "Table 2.1" in doc["switches"]["sn2700"]["source"]


def test_router_defaults_give_a_feasible_plan_below_the_default(tmp_path):
    out = run_cli("router", "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    assert "plan:" in out.stdout and "default (all 4 cores" in out.stdout
    assert "example" in out.stderr  # the built-in platform is labelled an example
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["offered_pps"] == pytest.approx(1.5e6)
    assert doc["plan_throughput_pps"] == pytest.approx(1.5e6)
    assert doc["plan_power_w"] <= doc["default_power_w"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("compare", "--nodes", "0"), "node count 0"),
        (("compare", "--nodes", "0:1024"), "node count 0"),
        (("compare", "--tor-switch", "nope"), "unknown switch 'nope'"),
        (("router", "--load", "9Mpps"), "above the capacity"),
        (("router", "--load", "fast"), "--load"),
    ],
)
def test_bad_input_is_a_clear_error(args, message, tmp_path):
    out = run_cli(*args, cwd=tmp_path)
    assert out.returncode == 1
    assert message in out.stderr and "hint:" in out.stderr
    assert "Traceback" not in out.stderr


def test_fit_command_on_a_samples_file(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from greendcn.power.router_fit import SAMPLE_COLUMNS
    from test_power_fit import synthetic

    _, s = synthetic(1)
    path = tmp_path / "s.csv"
    lines = [",".join(SAMPLE_COLUMNS)] + [
        ",".join(repr(float(v)) for v in row) for row in zip(*(s[c] for c in SAMPLE_COLUMNS))
    ]
    path.write_text("\n".join(lines) + "\n")
    out = run_cli("fit", str(path), "--json", str(tmp_path / "f.json"))
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "f.json").read_text())
    assert doc["chi_coeffs"][0] == 0.0 and doc["max_error_pct"] < 1.5


def test_router_with_a_platform_file_exact_and_per_core(tmp_path):
    plat = tmp_path / "p.toml"
    plat.write_text(
        'name = "two-core"\ngamma = [1.0, 1.8]\ninactive_core_w = 0.5\n'
        "[[frequency]]\nf_hz = 1e9\nr_max_pps = 4e5\nphi_idle_w = 3\nphi_active_w = 9\n"
        "[[frequency]]\nf_hz = 2e9\nr_max_pps = 8e5\nphi_idle_w = 4\nphi_active_w = 16\n"
    )
    dp = run_cli(
        "router",
        "--platform",
        str(plat),
        "--load",
        "900kpps",
        "--units",
        "16",
        "--json",
        str(tmp_path / "a.json"),
    )
    ex = run_cli(
        "router",
        "--platform",
        str(plat),
        "--load",
        "900kpps",
        "--units",
        "16",
        "--exact",
        "--json",
        str(tmp_path / "b.json"),
    )
    assert dp.returncode == 0 and ex.returncode == 0, dp.stderr + ex.stderr
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert a["plan_power_w"] == pytest.approx(b["plan_power_w"], abs=1e-9)
    assert a["platform"] == "two-core" and "example" not in dp.stderr
    pc = run_cli(
        "router", "--platform", str(plat), "--per-core", "300kpps,200kpps", "--json", str(tmp_path / "c.json")
    )
    assert pc.returncode == 0, pc.stderr
    c = json.loads((tmp_path / "c.json").read_text())
    assert [x["load_pps"] for x in c["cores"]] == [3e5, 2e5]
    bad = run_cli("router", "--platform", str(tmp_path / "missing.toml"))
    assert bad.returncode == 1 and "cannot read" in bad.stderr and "hint:" in bad.stderr


def test_compare_optical_tor_parameters(tmp_path):
    # The optical counting rule's parameters reach the CLI: a 32-port ToR defaults to 16 servers and 16
    # uplinks; explicit values override, and an impossible split is an error naming the options.
    out = run_cli("compare", "--nodes", "1024", "--tor-switch", "sn2700", "--json", "a.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["optical_tor"] == {"switch": "sn2700", "hosts_per_tor": 16, "uplinks_per_tor": 16}
    rotor = next(r for r in doc["records"] if r["architecture"].startswith("RotorNet"))
    assert rotor["switches"] == {"tor:sn2700": 64, "optical:selector_v1": 16}  # 64 x 16 uplinks / 64 ports
    out = run_cli(
        "compare",
        "--nodes",
        "1024",
        "--hosts-per-tor",
        "16",
        "--uplinks-per-tor",
        "8",
        "--json",
        "b.json",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    rotor = next(
        r
        for r in json.loads((tmp_path / "b.json").read_text())["records"]
        if r["architecture"].startswith("RotorNet")
    )
    assert rotor["switches"] == {"tor:wedge100bf65x": 64, "optical:selector_v1": 8}
    bad = run_cli("compare", "--hosts-per-tor", "48", "--uplinks-per-tor", "20", cwd=tmp_path)
    assert bad.returncode == 1 and "--uplinks-per-tor" in bad.stderr and "Traceback" not in bad.stderr
