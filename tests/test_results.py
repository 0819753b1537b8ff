"""docs/results.md and docs/results/: every committed certificate verifies and says what the table says."""
import json
import re

import pytest

from certify.check import check_file

from conftest import ROOT

RESULTS = ROOT / "docs" / "results"
TABLE = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
FILES = sorted(RESULTS.glob("*.cert.json"))


def table_rows():
    block = TABLE.split("<!-- results:begin -->", 1)[1].split("<!-- results:end -->", 1)[0]
    return [line for line in block.splitlines() if re.match(r"\| \d+ \|", line)]


def test_the_table_covers_m_8_to_32_and_links_the_committed_certificates():
    rows = table_rows()
    ms = [int(r.split("|")[1]) for r in rows]
    assert ms[:13] == list(range(8, 33, 2))
    linked = {m for m, r in zip(ms, rows) if "](results/m" in r}
    assert linked == {m for m in ms if m <= 24}
    assert {f"m{m}.cert.json" for m in linked} <= {p.name for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_committed_certificate_verifies_with_the_bound_the_table_states(path):
    doc = json.loads(path.read_text())
    assert doc["version"] == 2 and doc["claim"]["length"] == 3 and doc["claim"]["error_below"] == "1/2"
    verified = check_file(str(path))
    assert verified.proved == doc["claim"]["rank_at_least"]
    match = re.fullmatch(r"m(\d+)\.cert\.json", path.name)
    if match:
        m = int(match.group(1))
        assert doc["claim"]["m"] == m
        row = next(r for r in table_rows() if int(r.split("|")[1]) == m)
        assert f"**r ≥ {verified.proved}**" in row
        assert f"| {verified.counts['words']:,} |" in row


def test_the_bound_never_drops_as_m_grows():
    bounds = [int(re.search(r"\*\*r ≥ (\d+)\*\*", r).group(1)) for r in table_rows()]
    assert bounds == sorted(bounds)
