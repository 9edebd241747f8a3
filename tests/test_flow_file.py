"""CSV flow files read as columns: the optional transport, rate_bps and class columns, the same flows and the same
first error as a row-by-row reading, one `error:` line for a broken file, and the size guard on a huge one."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import assert_clean_error, run_greendcn

from greendcn.core.errors import InputError
from greendcn.core.units import PS_PER_S
from greendcn.sim.topology import fattree
from greendcn.sim.workload import Flow, read_flows_csv

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"
NET = fattree(4)


def row_by_row(path: Path, net) -> list[Flow]:  # type: ignore[no-untyped-def]
    """The reference: each row read with the csv module and resolved with `host_index` one at a time."""
    rows = list(csv.DictReader(path.read_text().splitlines()))
    flows = []
    for n, row in enumerate(rows):
        row = {k.strip(): (v or "").strip() for k, v in row.items()}
        src, dst = net.host_index(row["src"]), net.host_index(row["dst"])
        start = round(float(row["start_s"]) * PS_PER_S)
        transport = row.get("transport", "").lower() or "tcp"
        udp = transport == "udp"
        rate = int(row["rate_bps"]) if udp else None
        flows.append(
            Flow(
                n,
                src,
                dst,
                int(row["size_bytes"]),
                start,
                row.get("class") or "flow",
                transport,
                rate,
            )
        )
    return flows


def test_a_random_file_reads_as_the_row_by_row_reference(tmp_path):
    rng = np.random.default_rng(5)
    p = tmp_path / "f.csv"
    lines = ["src, dst ,size_bytes,start_s,class"]
    for _ in range(2000):
        s, d = rng.choice(16, 2, replace=False)
        name = f"S{s}" if rng.random() < 0.5 else f" {s} "
        lines.append(
            f"{name},S{d},{rng.integers(1, 10**7)},{rng.random() * 0.01!r},{rng.choice(['a', 'b', ''])}"
        )
    p.write_text("\n".join(lines) + "\n")
    assert list(read_flows_csv(p, NET)) == row_by_row(p, NET)


@pytest.mark.parametrize("blank", ["", " ", "\t", "\u00a0"])
@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_a_file_without_blanks_skips_the_trim_and_reads_as_one_with_them(tmp_path, blank, end):
    # a file of printable ASCII without blanks is read without trimming its columns; any blank, a carriage
    # return or a non-ASCII character anywhere takes the trimmed path: the flows are the same either way
    rng = np.random.default_rng(11)
    lines = ["src,dst,size_bytes,start_s,transport,rate_bps,class"]
    for _ in range(300):
        s, d = rng.choice(16, 2, replace=False)
        udp = rng.random() < 0.3
        lines.append(
            f"S{s},{d},{rng.integers(1, 10**6)},{rng.random() * 0.01!r},"
            f"{'udp' if udp else rng.choice(['tcp', 'dctcp', 'NDP', ''])},"
            f"{10**9 if udp else ''},{rng.choice(['a', 'b', ''])}"
        )
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = tmp_path / "other.csv"
    padded = [lines[0]] + [blank + ",".join(f"{v}{blank}" for v in line.split(",")) for line in lines[1:]]
    other.write_bytes((end.join(padded) + end).encode("utf-8"))
    reference = row_by_row(plain, NET)
    assert list(read_flows_csv(plain, NET)) == reference
    assert list(read_flows_csv(other, NET)) == reference


def test_transport_and_rate_columns_make_udp_flows(tmp_path):
    p = tmp_path / "f.csv"
    p.write_text(
        "src,dst,size_bytes,start_s,class,transport,rate_bps\n"
        "S0,S15,200000,0,bulk,udp,500000000\n"
        "S1,S14,1000,0.5,,tcp,\n"
        "S2,S13,1000,0,mice,,\n"
    )
    flows = list(read_flows_csv(p, NET))
    assert [(f.transport, f.rate_bps, f.cls) for f in flows] == [
        ("udp", 500_000_000, "bulk"),
        ("tcp", None, "flow"),
        ("tcp", None, "mice"),
    ]
    assert flows[1].start_ps == PS_PER_S // 2
    assert flows == row_by_row(p, NET)


def test_udp_flows_from_a_file_run_in_the_engine(tmp_path):
    from greendcn.sim import simulate

    p = tmp_path / "f.csv"
    p.write_text(
        "src,dst,size_bytes,start_s,transport,rate_bps\nS0,S15,100000,0,udp,1000000000\nS1,S14,50000,0,,\n"
    )
    res = simulate(STATIC, flows=p, progress=False)
    assert res.flows["transport"].tolist() == ["udp", "tcp"]
    assert res.flows["fct_s"].notna().all()
    # 100 kB at 1 Gb/s on the wire takes at least 0.8 ms
    assert res.flows["fct_s"].iloc[0] >= 100_000 * 8 / 1e9


@pytest.mark.parametrize(
    "body, needle",
    [
        (
            "src,dst,size_bytes,start_s,transport\nS0,S1,1000,0,udp\n",
            "line 2: a udp flow needs a sending rate",
        ),
        (
            "src,dst,size_bytes,start_s,transport,rate_bps\nS0,S1,1000,0,udp,\n",
            "line 2: a udp flow needs rate_bps",
        ),
        ("src,dst,size_bytes,start_s,transport,rate_bps\nS0,S1,1000,0,tcp,5\n", "rate_bps is for udp flows"),
        (
            "src,dst,size_bytes,start_s,transport,rate_bps\nS0,S1,1000,0,udp,fast\n",
            "rate_bps must be a positive",
        ),
        (
            "src,dst,size_bytes,start_s,transport\nS0,S1,1000,0,quic\n",
            "transport must be tcp, udp, dctcp or ndp, got 'quic'",
        ),
        (
            "src,dst,size_bytes,start_s,transport,rate_bps\nS0,S1,1000,0,tcp,\nS0,S1,1000,0,NDP,5\n",
            "line 3: rate_bps is for udp flows; this row's transport is ndp",
        ),
        ("src,dst,size_bytes,start_s,colour\nS0,S1,1000,0,red\n", "unknown column 'colour'"),
        ("src,dst,size_bytes,start_s,src\nS0,S1,1000,0,S2\n", "column 'src' appears twice"),
        ("src,dst,size_bytes,start_s\nS0,S1,1000,0\nS0,S1,1000\n", "line 3: 3 fields, but the header has 4"),
        ("src,dst,size_bytes,start_s\nS0,S1,1000,0,7\n", "line 2: 5 fields"),
        ("src,dst,size_bytes,start_s\nS0,S1,1000,-1\n", "line 2: start_s must be >= 0, got -1"),
        ("src,dst,size_bytes,start_s\nS0,S1,1000,nan\n", "start_s must be >= 0, got nan"),
        ("src,dst,size_bytes,start_s\nS0,S1,1000,1e30\n", "too late"),
        ("src,dst,size_bytes,start_s\nS0,S1,0,0\n", "line 2: size_bytes must be positive, got 0"),
        ("src,dst,size_bytes,start_s\nS0,S1,1.5,0\n", "line 2: size_bytes must be a whole number"),
    ],
)
def test_bad_rows_are_named_by_line(tmp_path, body, needle):
    p = tmp_path / "f.csv"
    p.write_text(body)
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(".", r"\.")) as e:
        read_flows_csv(p, NET)
    assert e.value.hint


@pytest.mark.parametrize(
    "rows, needle",
    [
        # the first bad line wins, whatever check finds it
        (["S0,S1,1000,0", "S0,S1,-5,0", "S0,S99,1000,0"], "line 3: size_bytes must be positive"),
        (["S0,S1,1000,0", "S0,S99,1000,0", "S0,S1,-5,0"], "line 3: dst: no host named 'S99'"),
        (["S0,S1,1000,0", "S2,S2,1000,0", "S0,S1,x,0"], "line 3: src and dst are the same host"),
        (["S0,S1,1000,0", "S2,S3,x,0", "S2,S2,1000,0"], "line 3: size_bytes must be a whole number"),
        # on one line, src is checked before dst
        (["S42,S99,1000,0"], "line 2: src: no host named 'S42'"),
        (["S0,S1,1000,0", "16,S1,1000,0"], "line 3: src: host index 16 does not exist"),
    ],
)
def test_the_first_bad_line_is_reported_as_a_row_by_row_reader_would(tmp_path, rows, needle):
    p = tmp_path / "f.csv"
    p.write_text("src,dst,size_bytes,start_s\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError, match=needle.replace("(", r"\(")):
        read_flows_csv(p, NET)


def test_python_number_spellings_still_read(tmp_path):
    # what the column conversion does not take is read as Python reads numbers
    p = tmp_path / "f.csv"
    p.write_text("src,dst,size_bytes,start_s\nS0,S1,+1_000,1_0e-3\n")
    (f,) = read_flows_csv(p, NET)
    assert (f.size_bytes, f.start_ps) == (1000, round(0.01 * PS_PER_S))


def test_a_truncated_file_gets_one_error_line(tmp_path):
    p = tmp_path / "flows.csv"
    p.write_text("src,dst,size_bytes,start_s\n" + "S0,S15,1000,0\n" * 50 + "S1,S1")
    out = run_greendcn("simulate", STATIC, "--flows", p)
    assert_clean_error(out, "flows.csv line 52")


def test_a_ten_million_line_file_is_refused_by_the_size_guard_before_it_is_read(tmp_path):
    p = tmp_path / "huge.csv"
    with open(p, "w") as f:
        f.write("src,dst,size_bytes,start_s\n")
        f.write("0,1,1000,0\n" * 10_000_000)
    out = run_greendcn("simulate", STATIC, "--flows", p, "--max-memory", "1GB")
    assert_clean_error(out, "10,000,000 flows")
    assert "would need about" in out.stderr and "GiB" in out.stderr, out.stderr


def test_a_ten_million_row_parquet_file_is_refused_by_its_footers_row_count(tmp_path):
    # the guard reads the row count from the footer, not the rows (nor newline bytes of the binary file)
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 10_000_000
    column = pa.DictionaryArray.from_arrays(np.zeros(n, dtype=np.int8), pa.array(["0"]))
    table = pa.table({"src": column, "dst": column, "size_bytes": column, "start_s": column})
    path = tmp_path / "huge.parquet"
    pq.write_table(table, path)
    assert path.stat().st_size < 2**20  # a few kB of dictionary and run lengths
    out = run_greendcn("simulate", STATIC, "--flows", path, "--max-memory", "1GB")
    assert_clean_error(out, "10,000,000 flows")
    assert "would need about" in out.stderr and "GiB" in out.stderr, out.stderr


def test_the_size_guard_accepts_ten_million_flows_within_its_limit_and_says_why_not_above():
    from greendcn.sim.limits import RunSize, check_run_size, estimate_run_bytes

    size = RunSize(16, 20, 48, 10_000_000, 0)  # the k = 4 fat-tree of the files above
    need = estimate_run_bytes(size)
    assert 2**30 < need < 64 * 2**30  # gigabytes, not kilobytes nor terabytes: a per-flow figure at work
    assert check_run_size(size, max_memory_bytes=need + 1) == need
    with pytest.raises(InputError, match="10,000,000 flows would need about") as e:
        check_run_size(size, max_memory_bytes=need - 1, where="workload")
    assert e.value.hint


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"src,dst,size_bytes,start_s\nS0,S15,1000,0\nS1,S\xff\xfe,1000,0\n", "flows.csv"),
        (b"\x00\x01\x02PK\x03\x04" + bytes(range(256)) * 8, "flows.csv"),
        (b"PAR1" + bytes(range(256)), "flows.csv"),  # a Parquet head and nothing of the rest
    ],
    ids=["bad-utf8", "binary", "parquet-head-only"],
)
def test_a_corrupted_flow_file_gets_one_error_line(tmp_path, content, needle):
    p = tmp_path / "flows.csv"
    p.write_bytes(content)
    assert_clean_error(run_greendcn("simulate", STATIC, "--flows", p), needle)


def test_host_lookup_names_every_host_once_by_name_and_index():
    lookup = NET.host_lookup()
    assert lookup["S15"] == 15 and lookup["15"] == 15 and "E0" not in lookup
    assert len(lookup) == 2 * len(NET.hosts)
    assert all(NET.host_index(k) == v for k, v in lookup.items())


@pytest.mark.parametrize("handshake", [False, True])
def test_flows_handed_as_column_buffers_run_as_the_same_flows_in_json(tmp_path, handshake):
    from greendcn.sim import simulate

    p = tmp_path / "f.csv"
    p.write_text(
        "src,dst,size_bytes,start_s,class,transport,rate_bps\n"
        "S0,S15,300000,0,a,,\nS3,S12,200000,0.0001,b,udp,800000000\nS15,S0,50000,0.0002,a,tcp,\n"
    )
    columns = read_flows_csv(p, NET)
    sets = [f"tcp.handshake={str(handshake).lower()}"]
    a = simulate(STATIC, flows=columns, overrides=sets, progress=False)
    b = simulate(STATIC, flows=list(columns), overrides=sets, progress=False)  # Flow objects: the JSON spec
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.energy.total_energy_j == b.energy.total_energy_j
    assert {k: v for k, v in a.summary.items() if k != "wall_s"} == {
        k: v for k, v in b.summary.items() if k != "wall_s"
    }
