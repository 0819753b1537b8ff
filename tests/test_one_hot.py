"""One-hot queries (§6.1, A.1; docs/math.md §8): the rank-15 table, and the same for other families."""
import json
from fractions import Fraction

import numpy as np
import pytest

from certify.certificates.families import family_document
from certify.constructions.exhaustive import ConstructionInputError
from certify.constructions.one_hot import check_one_hot, one_hot_table, write_table
from certify.kernels.audit import load_family

from conftest import CORPUS, ROOT

RANK_NINE = load_family(None)


def test_committed_rank15_table_is_what_the_construction_builds():
    """docs/examples/rank15_solves.npz comes from `certify construction rank15`."""
    built = one_hot_table(RANK_NINE)
    with np.load(ROOT / "docs" / "examples" / "rank15_solves.npz") as saved:
        assert sorted(saved.files) == sorted(["tokens", "phi_q", "phi_k", "beta", "w", "values"])
        for k in saved.files:
            assert np.array_equal(saved[k], built[k]), k


def test_the_committed_rank15_files_are_rebuilt_byte_for_byte(tmp_path):
    """`certify construction rank15 --out` writes exactly the committed file (members carry a fixed date)."""
    from certify.constructions.one_hot import write_table

    out = tmp_path / "rank15_solves.npz"
    write_table(one_hot_table(RANK_NINE), str(out))
    assert out.read_bytes() == (ROOT / "docs" / "examples" / "rank15_solves.npz").read_bytes()


def test_rank15_solves_the_rank_nine_family_with_rank_15():
    table, rep = check_one_hot(RANK_NINE)
    assert rep.solves and rep.max_error < Fraction(1, 2)
    assert rep.kernel_rank == 15 == len(table["queries"]) and rep.certified_bound == 9
    assert not rep.jump_violations


def test_any_certificate_family(tmp_path):
    fam = load_family(str(CORPUS / "valid" / "small_length_four.json"))
    out = str(tmp_path / "t.npz")
    table, rep = check_one_hot(fam, out)
    assert rep.solves and rep.kernel_rank == len(table["queries"]) == 4
    assert table["base"] == 8  # n/ε = 4/(1/2)


def test_family_file_with_longer_inputs(tmp_path):
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(family_document("transcript", word_length=6, s=1, queries=3), ensure_ascii=False), encoding="utf-8")
    table, rep = check_one_hot(load_family(str(path)))
    assert table["base"] == 12 and rep.solves


def test_base_below_the_temperature_fails():
    _, rep = check_one_hot(RANK_NINE, base=Fraction(8, 5))
    assert rep.solves is False and len(rep.failing_inputs) == 420


def test_huge_entries_go_to_json_only(tmp_path):
    table = one_hot_table(RANK_NINE, base=Fraction(10**3))
    assert not table["fits_int64"]
    with pytest.raises(ConstructionInputError, match="exceed int64"):
        write_table(table, str(tmp_path / "t.npz"))
    write_table(table, str(tmp_path / "t.json"))
    with pytest.raises(ConstructionInputError, match=".npz or .json"):
        write_table(one_hot_table(RANK_NINE), str(tmp_path / "t.csv"))
