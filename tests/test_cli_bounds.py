"""``certify bounds`` end to end."""
import json

import pytest

from conftest import assert_one_line_error, run_cli_here


def test_m_168_text():
    proc = run_cli_here("bounds", "--m", "168")
    assert proc.returncode == 0, proc.stderr
    assert "32,768" in proc.stdout and "1,389,433" in proc.stdout and "exact integers" in proc.stdout


def test_json_has_the_required_keys():
    proc = run_cli_here("bounds", "--m", "168", "--heads", "2", "--degree", "1", "--length", "10", "--json")
    d = json.loads(proc.stdout)
    assert d["schema"] == "certify.bounds/1"
    assert d["theorem1"]["closed_form"] == 32768 and isinstance(d["theorem1"]["exact"], int)
    assert isinstance(d["constants"]["c3"], float) and isinstance(d["constants"]["c_uniq"], float)
    assert d["heads"]["g_H"] == 172 and d["degree"]["g_D"] == 8
    assert d["growing_context"]["values"]["exact"]["kind"] == "exact"
    for sec in ("theorem1", "shell", "unique_minimizer", "transcripts", "heads", "degree", "growing_context"):
        assert {"section", "applies", "values", "parameters", "notes"} <= set(d[sec])


def test_below_168_closed_form_is_null():
    d = json.loads(run_cli_here("bounds", "--m", "100", "--json").stdout)
    assert d["theorem1"]["closed_form"] is None and d["theorem1"]["exact"] >= 2
    assert any("does not apply" in n for n in d["theorem1"]["notes"])


def test_huge_m_switches_to_intervals_and_says_so():
    proc = run_cli_here("bounds", "--m", "1000000")
    assert proc.returncode == 0
    assert "certified intervals" in proc.stdout.splitlines()[0]
    import sys

    sys.set_int_max_str_digits(0)  # the closed form has 30,103 digits (docs/bounds.md)
    d = json.loads(run_cli_here("bounds", "--m", "1000000", "--json").stdout)
    assert d["mode"] == "interval" and d["theorem1"]["exact"] is None
    assert d["theorem1"]["closed_form"] == 2**99999


@pytest.mark.parametrize("args", [
    ["bounds"],
    ["bounds", "--m", "0"],
    ["bounds", "--m", "-5"],
    ["bounds", "--m", "2.5"],
    ["bounds", "--m", "ten"],
    ["bounds", "--m", "1000001"],
    ["bounds", "--m", "99999999999999999999999"],
    ["bounds", "--m", "10", "--m-range", "1:5"],
    ["bounds", "--m", "10", "--plot", "x.png"],
    ["bounds", "--m-range", "5:1"],
    ["bounds", "--m-range", "1:100000"],
    ["bounds", "--m-range", "a:b"],
    ["bounds", "--m", "100", "--length", "2"],
    ["bounds", "--m", "100", "--heads", "0"],
    ["bounds", "--m", "100", "--s", "98"],
])
def test_bad_input_exits_2_with_one_line(tmp_path, args):
    assert_one_line_error(run_cli_here(*args, cwd=tmp_path), 2)


def test_range_table_json_and_plot(tmp_path):
    proc = run_cli_here("bounds", "--m-range", "100:400:100", "--json")
    d = json.loads(proc.stdout)
    assert [r["m"] for r in d["rows"]] == [100, 200, 300, 400]
    assert d["rows"][0]["theorem1.closed_form"] is None and d["rows"][1]["theorem1.closed_form"] == 19.0
    pytest.importorskip("matplotlib")
    png = tmp_path / "b.png"
    proc = run_cli_here("bounds", "--m-range", "2:600:20", "--heads", "1", "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
