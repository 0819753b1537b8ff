"""The search by roots (certify/bracket/rooted.py; docs/math.md §12, "Shared interpolated keys", Lemma 12.2).

The family of ``tests/bracket/rooted_family.json`` is cut from row ``m = 28``: 80 queries,
their complements as roots, and 207 interpolated keys, 17 of them shared by two or four
queries. Lowering ``MAX_BLOCK`` makes ``certify bracket --method boxes`` search it by roots,
as it must search row ``m = 28`` itself; the exact check decides, as for every table.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.bracket import upper
from certify.bracket.descent import exponential_start
from certify.bracket.reduced import ReductionError, reduce_family
from certify.bracket.rooted import _intervals, combine, fill, nnls, sparse_violations, split
from certify.kernels.families import load_family
from conftest import run_cli
from test_bracket import _family_file as _witnesses_file

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "bracket" / "rooted_family.json"


def _family_file(path: Path, jumps, m: int) -> str:
    """:func:`test_bracket._family_file` of jumps given as ints (coordinate ``i`` at position ``i`` of the 0/1 strings)."""
    bits = lambda v: format(v, f"0{m}b")[::-1]  # noqa: E731
    return _witnesses_file(path, [tuple(bits(v) for v in j) for j in jumps])


@pytest.fixture(scope="module")
def family_path(tmp_path_factory):
    doc = json.loads(FIXTURE.read_text())
    jumps = [tuple(int(v, 16) for v in j) for j in doc["jumps"]]
    return _family_file(tmp_path_factory.mktemp("rooted") / "family.json", jumps, doc["m"])


@pytest.fixture(scope="module")
def family(family_path):
    return load_family(family_path)


def test_the_fixture_has_shared_interpolated_keys(family):
    red = reduce_family(family)
    sp = split(red)
    users = np.bincount(np.diff(sp.users_ptr))
    assert red.shape == (80, 287) and len(sp.core) == 80 and len(sp.other) == 207
    assert users[1] == 190 and users[2:].sum() == 17  # 15 keys of two queries, 2 of four


def test_the_search_by_roots_gives_a_verified_table_whose_key_features_are_combinations(family, monkeypatch):
    from flint import fmpz_mat

    from certify.kernels.audit import all_pairs_nonnegative
    from certify.kernels.table import KernelTable

    monkeypatch.setattr(upper, "MAX_BLOCK", 1)  # as for row m = 28: above the dense search's cap
    res = upper.upper_side(family, method="boxes", start=10, lowest=4, iterations=2000, budget=20_000)
    best = res.best
    assert best is not None and best.report.solves is True and best.kernel_rank <= best.width
    assert all(t["found"] for t in res.tried if t["rank"] >= best.width)
    table = best.table
    kt = KernelTable.from_dict(table)
    assert all_pairs_nonnegative(kt)["negative"] == 0
    # Lemma 12.2: the key features of the whole table span no more than the roots' do.
    red = res.reduced
    sp = split(red)
    index = {t: i for i, t in enumerate(kt.tokens)}
    phi_k = table["phi_k"]
    roots = [phi_k[index[red.keys[c]]] for c in sp.core]
    every = [phi_k[index[k]] for k in red.keys]
    assert fmpz_mat(every).rank() == fmpz_mat(roots).rank() == best.kernel_rank


def test_adam_refuses_a_block_above_the_cap_and_names_the_search_by_roots(family, monkeypatch):
    monkeypatch.setattr(upper, "MAX_BLOCK", 1)
    monkeypatch.setattr("certify.bracket.descent.MAX_BLOCK", 1)
    with pytest.raises(ReductionError, match="--method boxes searches a larger one by its roots"):
        upper.upper_side(family, method="adam", iterations=10, budget=10)


def test_fill_puts_every_used_entry_inside_its_interval(family):
    """From the exponential start's block on the roots, each other key's combination lands inside its intervals."""
    red = reduce_family(family)
    sp = split(red)
    C = exponential_start(red)[:, sp.core]
    ptr, cols, coef, bad = fill(red, sp, C)
    assert bad == 0 and (coef >= 0).all()
    Q = combine(red, sp, np.eye(len(sp.core)), ptr, cols, coef)  # factors of the block: C = C · I
    A = C @ Q.T
    lo, hi = _intervals(red, sp, C, 1.0)
    key_of = np.repeat(sp.other, np.diff(sp.users_ptr))
    values = A[sp.users_row, key_of]
    assert (values >= lo).all() and (values <= hi).all()
    assert sparse_violations(red, C, Q) == 0


def test_sparse_violations_counts_a_broken_jump(family):
    red = reduce_family(family)
    sp = split(red)
    C = exponential_start(red)[:, sp.core]
    ptr, cols, coef, _ = fill(red, sp, C)
    Q = combine(red, sp, np.eye(len(sp.core)), ptr, cols, coef)
    into = np.flatnonzero(sp.where[red.jz] < 0)  # jumps from a root into an interpolated key
    assert len(into) and sparse_violations(red, C, Q) == 0
    j = int(into[0])
    Q[red.jz[j]] = Q[red.jy[j]]  # A_z = A_y in the jump's row: (1 − η)·A_y > (d − 1 + η)·A_z fails
    assert sparse_violations(red, C, Q) >= 1


def test_split_names_what_it_does_not_cover(tmp_path):
    m12 = load_family(str(ROOT / "docs" / "results" / "m12.cert.json"))  # dodecad-like: query tokens are keys
    with pytest.raises(ReductionError, match="own key"):
        split(reduce_family(m12))
    # two queries; the second's jump runs between two keys that are no query's scale key
    fam = load_family(_family_file(tmp_path / "f.json", [(0b001111, 0b110000, 0b000011), (0b111100, 0b000011, 0b110000),
                                                          (0b111100, 0b100000, 0b111000)], 6))
    with pytest.raises(ReductionError, match="jump between two interpolated keys"):
        split(reduce_family(fam))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_nnls_meets_the_kkt_conditions(rows, cols, seed):
    """x ≥ 0; the gradient Aᵀ(Ax − b) is ≥ 0 where x = 0 and 0 where x > 0 (up to roundoff): the least-squares optimum."""
    rng = np.random.default_rng(seed)
    A = rng.random((rows, cols))
    b = rng.normal(size=rows)
    x = nnls(A, b)
    g = A.T @ (A @ x - b)
    tol = 1e-8 * (1 + np.abs(A).sum() * (1 + np.abs(b).sum()))
    assert (x >= 0).all()
    assert (g[x == 0] >= -tol).all() and (np.abs(g[x > 0]) <= tol).all()


def test_the_command_says_it_searched_by_roots(family_path, monkeypatch, tmp_path):
    """`certify bracket --method boxes` on a block above the cap: the by-roots line, the key features' denominator, the
    JSON's ``by_roots``; the written table passes `check-kernel --all-pairs` in a fresh process."""
    from click.testing import CliRunner

    from certify.cli import cli

    monkeypatch.setattr(upper, "MAX_BLOCK", 1)
    path = family_path
    res = CliRunner().invoke(cli, ["bracket", path, "--method", "boxes", "--start-rank", "6", "--lowest-rank", "6",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "by roots    the block of the 80 roots is searched; the other 207 keys (17 shared by several queries)" \
        in res.output
    assert "key features of 1/68,719,476,736" in res.output  # 2^16 · 2^20
    doc = json.loads((tmp_path / "bracket.json").read_text())
    assert doc["reduced"]["by_roots"] == {"roots": 80, "other_keys": 207, "shared": 17}
    table = next(tmp_path.glob("rank*.table.json"))
    proc = run_cli("check-kernel", str(table), "--family", path, "--all-pairs")
    assert proc.returncode == 0, proc.stderr


def test_a_table_too_large_to_parse_as_json_is_written_as_npz_and_checks_the_same(family, family_path, monkeypatch,
                                                                                  tmp_path):
    """write_solution: when check-kernel would refuse to parse the JSON (row m = 28's is 133 MiB), the same table as an
    .npz archive, which check-kernel reads to the same verdict."""
    from certify.kernels import table as table_mod

    monkeypatch.setattr(upper, "MAX_BLOCK", 1)
    best = upper.upper_side(family, method="boxes", start=6, lowest=6, iterations=2000, budget=2000).best
    small = upper.write_solution(best, str(tmp_path / "json"))
    monkeypatch.setattr(table_mod, "MAX_JSON_BYTES", 1000)  # now the JSON would be refused: the archive instead
    big = upper.write_solution(best, str(tmp_path / "npz"))
    assert small.endswith(".table.json") and big.endswith(".table.npz")
    outs = [run_cli("check-kernel", p, "--family", family_path, "--all-pairs", "--json") for p in (small, big)]
    assert [p.returncode for p in outs] == [0, 0]
    a, b = (json.loads(p.stdout) for p in outs)
    for key in ("solves", "kernel_rank", "max_error", "all_pairs"):
        assert a[key] == b[key]
