"""docs/results.md, "r*(m, 3) for every m ≤ 48": the table, its data file and its plot agree with what they cite.

The table is made by ``python docs/results/minrank/make_table.py`` from
``certify minrank --m M --json --rows docs/results`` (M = 1 … 48) and its numbers are kept
in ``docs/results/minrank/rstar.json``. These checks are cheap (a few seconds): the text
between the ``rstar`` markers is what the script renders from the data file; every link
resolves; every upper side is the claim of the shipped certificate it links (read, not
re-checked: ``certify minrank`` checks them, and the largest take long); every lower side is
at least the pair queries' ``⌊m/2⌋`` and the claim of the results row at ``m`` or ``m − 1``;
and two rows are recomputed in this process and compared field by field (``m = 12``,
``20``: a second each; the rows ``m ≤ 8`` run a search and are left to the script).
A shipped certificate that changed, or appeared for a row marked missing, fails these
checks until the script is run again for that m (``--from M --to M``).
"""
import importlib.util
import json
import os
import re

import pytest

from conftest import ROOT, run_cli_here

DOC = ROOT / "docs" / "results.md"
RESULTS = ROOT / "docs" / "results"


def _make_table():
    path = ROOT / "docs" / "results" / "minrank" / "make_table.py"
    spec = importlib.util.spec_from_file_location("rstar_make_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MT = _make_table()
DATA = MT.load()
ROWS = sorted(DATA["rows"], key=lambda r: r["m"])
DONE = [r for r in ROWS if "missing" not in r]
BLOCK = MT.block_of(DOC.read_text(encoding="utf-8"))


def test_the_data_file_has_one_row_for_every_m_from_1_to_48():
    assert DATA["schema"] == MT.SCHEMA
    assert [r["m"] for r in ROWS] == list(range(1, MT.M_MAX + 1))
    assert all(r["schema"] == "certify.minrank/1" for r in DONE)


def test_the_table_in_results_md_is_the_one_rendered_from_the_data_file():
    assert BLOCK == MT.render(DATA), ("docs/results.md's rstar block is not what rstar.json renders: "
                                      "python docs/results/minrank/make_table.py --table-only")


def test_every_link_of_the_section_resolves_to_a_file_in_the_repository():
    links = re.findall(r"\]\(([^)\s]+)\)", BLOCK)
    assert len(links) >= len(DONE) + 2  # at least one per row, the data file and the plot
    for link in links:
        path = (DOC.parent / link).resolve()
        assert path.is_file(), link
        assert ROOT in path.parents, link


def test_a_row_marked_missing_has_no_shipped_certificate_yet():
    for row in ROWS:
        if "missing" in row:
            assert not any(MT.certificate_path(k).is_file() for k in range(row["m"], 49)), (
                f"m = {row['m']}: its certificate is shipped now; run python docs/results/minrank/make_table.py "
                f"--from {row['m']} --to {row['m']}")


@pytest.mark.parametrize("row", DONE, ids=lambda r: f"m{r['m']}")
def test_the_upper_side_is_the_claim_of_the_certificate_it_links(row):
    m = row["m"]
    source = row.get("symmetric_m") or m  # the certificate of an m' ≥ m (r* grows with m, Corollary 11.3)
    cert = json.loads(MT.certificate_path(source).read_text(encoding="utf-8"))
    assert cert["schema"] == "certify.symmetric-kernel/1" and cert["m"] == source >= m
    assert (cert["rank_at_most"], cert["parts"]) == (row["symmetric_rank"], row["symmetric_parts"])
    line = next(line for line in BLOCK.splitlines() if line.startswith(f"| {m} |"))
    assert f"](../certify/minrank/certificates/m{source}.symmetric.json)" in line
    if row["upper_how"].startswith("search"):  # the generic search, below the invariant kernel
        assert m <= MT.GENERIC_MAX_M and row["upper"] <= cert["rank_at_most"] and row["inputs_evaluated"] > 0
        table = MT.committed_search_table(row)
        if table is not None:
            assert table.name == f"m{m}.rank{row['upper']}.table.json" and f"](results/minrank/{table.name})" in line
    else:
        assert row["upper"] == cert["rank_at_most"]
        assert row["upper_how"].startswith("a kernel invariant under " + " × ".join(f"S_{a}" for a in cert["parts"]))


@pytest.mark.parametrize("row", DONE, ids=lambda r: f"m{r['m']}")
def test_the_lower_side_is_at_least_the_pair_queries_and_the_results_row_claim(row):
    from certify.minrank.results_rows import best_row

    m = row["m"]
    best = best_row(m, RESULTS)
    claim = best.claimed if best is not None else 0
    assert row["lower"] >= max(m // 2, claim, 1)
    assert row["lower"] <= row["upper"] <= 2**m == row["two_to_m"]
    assert row["closed"] == (row["lower"] == row["upper"])
    if best is not None:
        assert row["results_row"] == {"m": best.M, "file": f"docs/results/m{best.M}.cert.json", "bound": claim}
    if MT.lower_kind(row) == "row":
        assert row["lower"] == row["results_row"]["bound"]


def test_the_linked_order_obstructions_prove_the_lower_side_they_stand_for():
    from certify import check_obstruction as O

    linked = [r for r in DONE
              if MT.lower_kind(r) == "orders" and (MT.HERE / f"m{r['m']}.lower.obstruction.json").is_file()]
    assert linked, "no order obstruction linked"
    for row in linked:
        doc = json.loads((MT.HERE / f"m{row['m']}.lower.obstruction.json").read_text(encoding="utf-8"))
        assert doc["m"] == row["m"] and O.check(doc) == row["lower"]


def test_the_invariant_floor_is_the_formula_of_its_degree():
    from certify.check_degree import invariant_rank

    for row in DONE:
        assert row["invariant_floor"] == invariant_rank(row["m"], row["k1"])


def test_the_plot_is_committed_beside_the_data():
    assert MT.PLOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("m", [12, 20])
def test_a_row_recomputed_now_is_the_row_of_the_data_file(m):
    row = next(r for r in ROWS if r["m"] == m)
    if "missing" in row:
        pytest.skip(f"m = {m} is not in the table yet")
    proc = run_cli_here("minrank", "--m", str(m), "--json", "--rows", "docs/results", cwd=ROOT,
                        env=dict(os.environ, CERTIFY_PROGRESS="0"))
    assert proc.returncode == 0, proc.stderr
    expected = {k: v for k, v in row.items() if k not in ("seconds", "run_on")}
    assert MT.trim(json.loads(proc.stdout)) == expected
