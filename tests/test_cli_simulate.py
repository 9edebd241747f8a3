"""`greendcn simulate` and `greendcn demo` from the command line: errors are one line naming the field, exit 1,
no traceback; with the engine, the JSON holds flows, links, nodes and summary."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "greendcn.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def assert_clean_error(out: subprocess.CompletedProcess[str], field: str) -> None:
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and field in errors[0], out.stderr
    assert lines[-1].startswith("hint:")


@pytest.mark.parametrize("sets, field", [
    (["topology.k=5"], "topology.k"),
    (["topology.link_rate=-1Gbps"], "topology.link_rate"),
    (["topology.link_rate=1000"], "topology.link_rate"),
    (["topology.nonsense=1"], "topology.nonsense"),
    (["routing.scheme=spray"], "routing.scheme"),
    (["workload.kind=random", "workload.long_flows=0", "workload.short_flows=0"], "workload"),
    (["workload.destination=S99"], "workload.destination"),
])
def test_bad_overrides_give_one_clear_error(sets, field):
    args = ["simulate", STATIC]
    for s in sets:
        args += ["--set", s]
    assert_clean_error(run_cli(*args), field)


def test_bad_file_key_names_the_file_and_field(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('[topology]\nk = 4\nlink_rate = "1Gbps"\nqueues = "10pkt"\n')
    out = run_cli("simulate", p)
    assert_clean_error(out, "topology.queues")
    assert "s.toml" in out.stderr


def test_flows_file_with_a_missing_host_is_refused(tmp_path):
    f = tmp_path / "flows.csv"
    f.write_text("src,dst,size_bytes,start_s\nS0,S15,1000,0\nS1,S42,1000,0\n")
    assert_clean_error(run_cli("simulate", STATIC, "--flows", f), "S42")


def test_missing_scenario_file_is_a_clean_error(tmp_path):
    assert_clean_error(run_cli("simulate", tmp_path / "nope.toml"), "nope.toml")
