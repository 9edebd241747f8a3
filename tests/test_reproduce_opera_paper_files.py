"""The readers of the public Opera simulator's flow files and FCT outputs (sim/reproduce/opera_paper_files.py):
what they accept, how output lines are matched to flows, and one error naming the file and line for each bad
input. Every file is written by the test."""

from __future__ import annotations

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.reproduce.opera_paper_files import match_reference, read_fct_file, read_flow_file

FLOWS = "0 5 1000 0\n3 1 250000 1500\n2 7 3000000 987654321\n3 1 250000 987654321\n"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_flow_file_is_read_as_columns(tmp_path):
    ff = read_flow_file(_write(tmp_path, "f.htsim", FLOWS + "\n"), hosts=8)
    assert ff.src.tolist() == [0, 3, 2, 3]
    assert ff.size.tolist() == [1000, 250000, 3000000, 250000]
    assert ff.start_ns.tolist() == [0, 1500, 987654321, 987654321]
    assert ff.line.tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("0 5 1000 0\n0 8 10 5\n", 2, "destination host 8 is beyond"),
        ("0 5 1000 0\n1 2 -5 10\n", 2, "size -5 bytes is not positive"),
        ("0 5 1000 50\n1 2 10 40\n", 2, "not sorted"),
        ("0 5 1000 0\n1 2 10\n", 2, "is not `src dst bytes start_ns`"),
        ("0 5 1000 0\n1 2 x 10\n", 2, "is not `src dst bytes start_ns`"),
        ("4 4 100 0\n", 1, "both host 4"),
    ],
)
def test_bad_flow_lines_name_the_file_and_line(tmp_path, text, line, words):
    p = _write(tmp_path, "bad.htsim", text)
    with pytest.raises(InputError) as e:
        read_flow_file(p, hosts=8)
    assert f"{p} line {line}" in str(e.value)
    assert words in str(e.value)
    assert e.value.hint


def _ref_text(lines):
    return "Loading topology...\nLoaded topology.\nUtil 0.009 10.0\n" + "".join(lines)


def test_reference_lines_match_flows_within_the_printed_precision(tmp_path):
    ff = read_flow_file(_write(tmp_path, "f.htsim", FLOWS), hosts=8)
    # Opera prints starts with six decimals of a ms; the Clos and the expander with six significant digits
    # (987.654 ms for 987654321 ns); the two 250 KB flows from 3 to 1 differ only in start.
    ref = read_fct_file(
        _write(
            tmp_path,
            "FCT.txt",
            _ref_text(
                [
                    "FCT 3 1 250000 0.5 987.654\n",
                    "FCT 0 5 1000 0.0123 0.000000\n",
                    "FCT 3 1 250000 0.25 0.001500\n",
                ]
            ),
        )
    )
    assert ref.line.tolist() == [4, 5, 6]
    fct = match_reference(ff, ref)
    assert fct[0] == pytest.approx(0.0123e-3)
    assert fct[1] == pytest.approx(0.25e-3)
    assert np.isnan(fct[2])  # no line: the simulator did not finish it
    assert fct[3] == pytest.approx(0.5e-3)


@pytest.mark.parametrize(
    ("lines", "line", "words"),
    [
        (["FCT 0 5 1000 0.01 0.000000\n", "FCT 0 5 999 0.01 0.000000\n"], 5, "matches no flow"),
        (["FCT 0 5 1000 0.01 0.000000\n", "FCT 0 5 1000 0.02 0.000000\n"], 5, "already matched"),
        (["FCT 0 5 1000 0.01 3.5\n"], 4, "matches no flow"),
        (["FCT 0 5 1000 abc 0.0\n"], 4, "not a valid FCT line"),
        (["FCT 0 5 1000 0.01\n"], 4, "not a valid FCT line"),
    ],
)
def test_a_reference_that_does_not_fit_the_flow_file_names_its_line(tmp_path, lines, line, words):
    ff = read_flow_file(_write(tmp_path, "f.htsim", FLOWS), hosts=8)
    p = _write(tmp_path, "FCT.txt", _ref_text(lines))
    with pytest.raises(InputError) as e:
        match_reference(ff, read_fct_file(p))
    assert f"{p} line {line}" in str(e.value)
    assert words in str(e.value)


def test_files_without_flows_are_refused(tmp_path):
    with pytest.raises(InputError, match="is empty|no flows"):
        read_flow_file(_write(tmp_path, "f.htsim", "\n\n"), hosts=8)
    with pytest.raises(InputError, match="no `FCT"):
        read_fct_file(_write(tmp_path, "FCT.txt", _ref_text([])))
