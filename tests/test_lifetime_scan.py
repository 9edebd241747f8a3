"""greendcn.lifetime.scan: the contract's columns and types, bad arguments and files as InputError with a hint,
progress on stderr, the binding's exceptions, and the docstring example."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest
from lifetime_scan_cases import BOUNDARY, UA_ANDROID, UA_IPHONE, combined_line, gz

import greendcn
import greendcn.lifetime
import greendcn.lifetime.scan as scan_module
from greendcn import _native
from greendcn.core.errors import InputError
from greendcn.lifetime.scan import SIGHTING_COLUMNS, ScanResult, scan_logs


def log(tmp_path, lines, name="a.log"):
    p = tmp_path / name
    p.write_text("".join(line + "\n" for line in lines))
    return p


def test_the_contract_columns_types_and_order(tmp_path):
    p = log(
        tmp_path,
        [
            combined_line("bob", BOUNDARY + 5, UA_IPHONE),
            combined_line("bob", BOUNDARY + 1, UA_IPHONE),
            combined_line("amy", BOUNDARY - 5, UA_ANDROID),
            combined_line("amy", BOUNDARY + 5, UA_ANDROID),
        ],
    )
    r = scan_logs(p, progress=False)
    assert isinstance(r, ScanResult)
    s = r.sightings
    assert list(s.columns) == list(SIGHTING_COLUMNS)
    for col in SIGHTING_COLUMNS[:6]:
        assert s[col].map(type).eq(str).all(), col
    for col in ("first_s", "last_s", "hits"):
        assert s[col].dtype == np.int64, col
    assert s[["user", "month"]].values.tolist() == [
        ["amy", "2023-10"],
        ["amy", "2023-11"],
        ["bob", "2023-11"],
    ]
    bob = s.iloc[2]
    assert (bob.first_s, bob.last_s, bob.hits) == (BOUNDARY + 1, BOUNDARY + 5, 2)
    assert (s.app_device_id == "").all() and (s.ch_model == "").all()
    # Stats both as attributes and as a mapping, and JSON-ready.
    assert r.stats.kept == r.stats["kept"] == 4
    json.dumps(r.stats.as_dict())


def test_empty_result_keeps_the_columns(tmp_path):
    p = log(tmp_path, ["nothing useful here"])
    r = scan_logs(p, progress=False)
    assert r.sightings.empty and list(r.sightings.columns) == list(SIGHTING_COLUMNS)
    assert r.stats.malformed["fields"] == 1


def test_missing_file_directory_and_empty_path_list(tmp_path):
    with pytest.raises(InputError) as e:
        scan_logs(tmp_path / "nope.log")
    assert "nope.log: no such file" in str(e.value) and e.value.hint
    with pytest.raises(InputError) as e:
        scan_logs(tmp_path)
    assert "is a directory" in str(e.value) and e.value.hint
    with pytest.raises(InputError) as e:
        scan_logs([])
    assert str(e.value).startswith("paths:")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"fmt": "xml"}, "fmt"),
        ({"columns": {"agent": "ua"}}, "columns.agent"),
        ({"columns": {"ua": ""}}, "columns.ua"),
        ({"statuses": ["20x"]}, "statuses"),
        ({"statuses": [99]}, "statuses"),
        ({"events": [1]}, "events"),
        ({"max_line_bytes": 10}, "max_line_bytes"),
    ],
)
def test_bad_arguments_name_the_field(tmp_path, kwargs, field):
    p = log(tmp_path, [combined_line("a", BOUNDARY, UA_ANDROID)])
    for scanner in (scan_logs, scan_module.scan_logs_reference):
        with pytest.raises(InputError) as e:
            scanner(p, **kwargs)
        assert str(e.value).startswith(field) and e.value.hint


def test_csv_header_without_the_mapped_column(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("uid,ts,agent\nu,1700000000,A\n")
    for scanner in (scan_logs, scan_module.scan_logs_reference):
        with pytest.raises(InputError) as e:
            scanner(p, fmt="csv", columns={"user": "uid", "time": "ts"})
        assert "'ua'" in str(e.value) or '"ua"' in str(e.value)
        assert "columns=" in e.value.hint
    r = scan_logs(p, columns={"user": "uid", "time": "ts", "ua": "agent"}, progress=False)
    assert r.stats.formats[0][1] == "csv" and r.stats.kept == 1


def test_the_compiled_scanner_reports_io_errors_itself():
    # Bypasses the Python checks, as a file vanishing between check and scan would.
    with pytest.raises(_native.LogScanError) as e:
        _native.scan_logs(["/nonexistent/x.log"])
    kind, where, message = e.value.args
    assert (kind, where) == ("io", "/nonexistent/x.log") and message
    with pytest.raises(_native.LogScanError) as e:
        _native.scan_logs(["/dev/null"], fmt="xml")
    assert e.value.args[:2] == ("config", "fmt")


def test_a_progress_callback_that_raises_stops_the_scan(tmp_path):
    p = log(tmp_path, [combined_line("a", BOUNDARY, UA_ANDROID)])

    def boom(_bytes):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        _native.scan_logs([str(p)], progress=boom)


def test_progress_goes_to_stderr_for_long_scans(tmp_path, monkeypatch, capsys):
    lines = [combined_line(f"u{i % 50}", BOUNDARY + i, UA_ANDROID) for i in range(70_000)]
    p = tmp_path / "a.log.gz"
    p.write_bytes(gz("".join(line + "\n" for line in lines).encode()))
    seen = []
    out = _native.scan_logs([str(p)], progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == p.stat().st_size == out["stats"]["bytes_read"]
    assert len(seen) >= 2, "called during the scan, not only at the end"
    monkeypatch.setattr(scan_module, "_PROGRESS_MIN_BYTES", 0)
    r = scan_logs(p, progress=True)
    err = capsys.readouterr().err
    assert "scan" in err and r.stats.kept == 70_000
    scan_logs(p, progress=False)
    assert capsys.readouterr().err == ""


def test_package_exports_and_docstring_example():
    assert {"scan_logs", "scan_logs_reference", "ScanResult", "ScanStats"} <= set(greendcn.lifetime.__all__)
    result = doctest.testmod(scan_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def test_the_type_stub_declares_the_scanner_binding():
    import ast
    import inspect
    from pathlib import Path

    stub = ast.parse((Path(greendcn.__file__).parent / "_native.pyi").read_text())
    declared = {n.name: n for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert {"scan_logs", "LogScanError"} <= set(declared)
    params = [a.arg for a in declared["scan_logs"].args.args]
    assert params == list(inspect.signature(_native.scan_logs).parameters)
