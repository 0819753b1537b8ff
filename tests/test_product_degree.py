"""The joint chain problem of products (docs/math.md §11, Lemma 11.11, Proposition 11.12): the producer
certify/minrank/product_degree.py, the ``certify.product-degree/1`` kind of certify/check_degree.py, the shipped
certificates docs/results/minrank/product-degree/*.json and the corpus tests/product_degree/.

* the corpus (written by tests/product_degree/make_product_degree_corpus.py; MANIFEST.json gives each file's exit
  code, the step or field its one line names and a phrase of it), in-process and as a script;
* the shipped certificates: each re-checked, the small ones made again byte for byte, and together they state
  Proposition 11.12 (10, 5, 3, 2 equal parts infeasible, one fewer feasible; the mixed grids);
* the checker's verdicts recomputed another way: a multilinear ``h`` on an infeasible grid breaks a condition and
  the certificate's combination, summed over every permutation of the group, is 0 on it; a witness meets every
  pair ``(p, q)`` of the definition; one part is the 1-D problem of ``K1`` (certify/minrank/degree.py).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from itertools import combinations, permutations, product
from math import comb, prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify import check_degree as C
from certify.minrank.degree import k1
from certify.minrank.product_degree import CASES, certificate, file_name, orbit_sum

from conftest import ROOT, assert_corpus_regenerates, checker_main, run_checker_script
from test_degree import _expect  # the degree corpus's manifest convention: exit, step or field, phrase

CORPUS = ROOT / "tests" / "product_degree"
SHIPPED = ROOT / "docs" / "results" / "minrank" / "product-degree"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8"))
CASES_ = [(sub, name, entry) for sub, files in MANIFEST.items() for name, entry in files.items()]
#: The shipped grids the producer makes again in this suite (the two largest take ~9 s of exact simplex).
CHEAP = [ns for ns in CASES if prod(n + 1 for n in ns) <= 1024]


def _load(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("sub,name,expected", CASES_, ids=[f"{s}/{n}" for s, n, _ in CASES_])
def test_the_corpus_gives_the_manifest_verdict_naming_the_step_or_field(capsys, sub, name, expected):
    path = str(CORPUS / sub / name)
    _expect(*checker_main(capsys, C.main, path), path, expected)


def test_the_valid_and_invalid_files_give_their_verdict_as_a_script():
    cases = [c for c in CASES_ if c[0] != "malformed"]
    with ThreadPoolExecutor(2) as pool:
        for (sub, name, expected), proc in zip(cases, pool.map(
                lambda c: run_checker_script("check_degree.py", str(CORPUS / c[0] / c[1])), cases)):
            _expect(proc.returncode, proc.stdout, proc.stderr, str(CORPUS / sub / name), expected)


def test_the_checker_runs_from_a_folder_of_only_itself_and_check_py(tmp_path):
    """The independence test's lone-script property (tests/test_check_independence.py), for this kind's files."""
    for name in ("check_degree.py", "check.py"):
        shutil.copy(ROOT / "certify" / name, tmp_path / name)
    for sub, name in (("valid", "N3x4_feasible.json"), ("invalid", "a_multiplier_negative.json")):
        proc = subprocess.run([sys.executable, "-I", "-S", str(tmp_path / "check_degree.py"), str(CORPUS / sub / name)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert proc.returncode == MANIFEST[sub][name]["exit"] and "Traceback" not in proc.stderr, proc.stderr


def test_the_manifest_lists_every_corpus_file_and_the_generator_writes_it_again(tmp_path):
    assert_corpus_regenerates(CORPUS, "make_product_degree_corpus", tmp_path)


# --------------------------------------------------------------------------- the shipped certificates


def test_every_shipped_certificate_checks_and_together_they_state_proposition_11_12():
    claims = {}
    for path in sorted(SHIPPED.glob("*.json")):
        doc = _load(path)
        ns, ds, claim = C.check_product(doc)
        assert ds == [1] * len(ns) and path.name == file_name(ns, claim)
        claims[tuple(ns)] = claim
    assert sorted(claims) == sorted(CASES)
    for n, most in ((2, 9), (3, 4), (4, 2), (5, 1)):  # at most 9, 4, 2, 1 equal parts with N = 2, 3, 4, 5
        assert claims[(n,) * most] == "feasible" and claims[(n,) * (most + 1)] == "infeasible"
    assert claims[(5, 4)] == claims[(3, 3, 3, 3, 1)] == "infeasible"


@pytest.mark.parametrize("ns", CHEAP, ids=lambda ns: file_name(ns, "")[:-6])
def test_the_producer_makes_the_shipped_certificate_again(ns):
    doc = certificate(ns)
    assert json.dumps(doc) + "\n" == (SHIPPED / file_name(ns, doc["claim"])).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the verdicts recomputed another way


def _meets(ns, h) -> bool:
    """Every condition of the joint chain problem, pair by pair from its definition (docs/math.md §11)."""
    value = {p: h(p) for p in product(*(range(n + 1) for n in ns))}
    top = value[tuple(ns)]
    return all(v > 0 for v in value.values()) and all(
        hp > (sum(q) - sum(p) - 1) * hq + Fraction(sum(q) - sum(p) - 2, 2) * top
        for p, hp in value.items() for q, hq in value.items() if sum(q) - sum(p) >= 2)


def _group(ns, ds):
    """Every permutation of the parts that keeps ``(N_l, D_l)``, by brute force (not the checker's orbits)."""
    k = len(ns)
    return [g for g in permutations(range(k)) if all((ns[g[i]], ds[g[i]]) == (ns[i], ds[i]) for i in range(k))]


def _multilinear(coefficients):
    return lambda t: sum(c * prod(t[l] for l, b in enumerate(s) if b)
                         for s, c in zip(product((0, 1), repeat=len(t)), coefficients))


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([(5, 5), (5, 4), (4, 4, 4)]).flatmap(
    lambda ns: st.tuples(st.just(ns), st.lists(st.integers(-50, 50), min_size=2**len(ns), max_size=2**len(ns)))))
def test_a_multilinear_h_on_an_infeasible_grid_breaks_a_condition_and_the_multipliers_show_why(case):
    ns, coefficients = case
    h = _multilinear(coefficients)
    assert not _meets(ns, h)
    doc = _load(SHIPPED / file_name(ns, "infeasible"))
    group, top = _group(ns, doc["degrees"]), h(tuple(ns))

    def form(p, q):  # twice the condition's linear form at h
        d = sum(q) - sum(p)
        return 2 * h(p) if p == q else 2 * h(p) - 2 * (d - 1) * h(q) - (d - 2) * top

    total = sum(int(y) * sum(form(tuple(p[i] for i in g), tuple(q[i] for i in g)) for g in group)
                for p, q, y in doc["multipliers"])
    assert total == 0


@pytest.mark.parametrize("ns", [(5,), (4, 4), (3, 3, 3, 3)])
def test_a_shipped_witness_meets_every_pair_of_the_definition(ns):
    doc = _load(SHIPPED / file_name(ns, "feasible"))
    coefficients = [C.parse_rational(c, "c") if isinstance(c, str) else c for c in doc["polynomial"]]
    assert _meets(ns, _multilinear(coefficients))


@pytest.mark.parametrize("n", range(2, 11))
def test_one_part_is_the_1d_problem_its_least_degree_k1(n):
    """The grid ``[0…N]`` is the 1-D problem read backwards (``u = N − t``): the product kind agrees with the
    invariant-degree producer on ``K1(N)`` at degrees other than 1."""
    assert certificate([n], [k1(n) - 1])["claim"] == "infeasible"
    assert certificate([n], [k1(n)])["claim"] == "feasible"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2), st.integers(0, 1)), min_size=1, max_size=6), st.data())
def test_an_orbit_is_every_image_under_the_group_and_the_stabiliser_counts_the_rest(parts, data):
    ns, ds = [n for n, _ in parts], [min(d, n) for n, d in parts]
    x = tuple(data.draw(st.integers(0, n)) for n in ns)
    points, stabilizer = C.orbit(x, C.classes(ns, ds))
    images = [tuple(x[i] for i in g) for g in _group(ns, ds)]
    assert sorted(points) == sorted(set(images)) and len(points) == C.orbit_size(x, C.classes(ns, ds))
    assert all(images.count(z) == stabilizer for z in points)


def test_orbit_sums_are_elementary_symmetric_at_degree_one():
    values = (0, 1, 2, 2, 3)
    for j in range(6):
        e = sum(prod(c) for c in combinations(values, j))
        assert orbit_sum(values, (0,) * (5 - j) + (1,) * j) == e
    assert orbit_sum((2, 3), (0, 2)) == comb(2, 2) + comb(3, 2) and orbit_sum((1, 1), (2, 2)) == 0


def test_the_checker_refuses_what_is_not_a_product_certificate():
    with pytest.raises(C.DegreeError, match=r"^document: expected a JSON object"):
        C.check_product([])
    with pytest.raises(C.DegreeError, match=r"^schema: expected 'certify.product-degree/1'"):
        C.check_product({"schema": C.SCHEMA})
    doc = _load(SHIPPED / "N5x2.infeasible.json")
    with pytest.raises(C.DegreeError, match=r"^claim: expected \"feasible\" or \"infeasible\", got an array of 0"):
        C.check_product(dict(doc, claim=[]))  # unhashable: refused, not a TypeError
    with pytest.raises(C.DegreeError, match=r"^N\[0\]: expected an integer from 1 to 100, got an integer of 16,610"):
        C.check_product(dict(doc, N=[10**5000, 5]))


@pytest.mark.parametrize("ns", [ns for ns in CHEAP if file_name(ns, "infeasible") in
                                {p.name for p in SHIPPED.glob("*.json")}], ids=lambda ns: file_name(ns, "")[:-6])
def test_every_multiplier_of_a_shipped_certificate_is_needed_as_it_is(ns):
    """Each condition is nonzero on ``h = 1`` (``2``, or ``4 − 3d``), so changing any one ``y`` breaks the sum."""
    doc = _load(SHIPPED / file_name(ns, "infeasible"))
    for i in range(len(doc["multipliers"])):
        changed = json.loads(json.dumps(doc))
        changed["multipliers"][i][2] = str(C.parse_rational(str(changed["multipliers"][i][2]), "y") + 1)
        with pytest.raises(C.DegreeRejected, match=r"^gordan: Σ y·L\(Π C\(t_l, e_l\)\) = .* ≠ 0 at e = \(0,"):
            C.check_product(changed)
