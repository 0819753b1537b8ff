"""Code search (certify/search/: codes.py, scores.py, seeds.py, local.py): seeds, exact local search, certificates of what it finds."""
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.check import check
from certify.search.codes import (
    LocalSearch,
    SearchError,
    exact_pairs,
    exact_ratio,
    factor_table,
    result_certificate,
    search,
    seed_codes,
    sharp_bound,
)
from codes import colex_words, distance_counts, hadamard_code
from conftest import full_only, run_cli_here


def test_factor_table_is_the_best_split_per_distance():
    F = factor_table(12)
    assert F[0] is None and F[1] is None  # no chain for d = 0, and gap 1 gives μ = 0 at n = 3, ε = 1/2
    assert F[2:13] == [1, 2, 3, 4, 5, 6, 9, 12, 16, 20, 27]
    assert factor_table(4, length=4)[1] is None and factor_table(4, length=5, error=Fraction(1, 4))[1] == 3


@given(st.sets(st.integers(0, 2**10 - 1), min_size=2, max_size=20))
def test_exact_pairs_are_the_distance_counts(words):
    assert exact_pairs(sorted(words), 10) == distance_counts(sorted(words))


def test_seeds_have_length_m_and_include_the_known_codes():
    seeds = {s.name: s.code for s in seed_codes(24, deadline=0)}
    assert {"golay24", "hadamard24", "rank-nine"} <= set(seeds)
    assert all(c.length == 24 for c in seeds.values())
    padded = {s.name: s.code for s in seed_codes(26, deadline=0)}
    assert padded["golay24"].words == seeds["golay24"].words and padded["golay24"].length == 26
    assert "RM(2,5) weight 12 shortened to 26" in padded


@settings(max_examples=25)
@given(st.integers(0, 2**32))
def test_local_search_keeps_sigma_exact_through_any_moves(seed):
    rng = random.Random(seed)
    m = 10
    F = factor_table(m)
    pool = list(colex_words(m, 5))
    ls = LocalSearch(pool, m, F, cap=30)
    members: set[int] = set()
    for _ in range(12):
        i = rng.randrange(len(pool))
        if i not in members and ls.conflicts[i] == 0:
            ls.toggle(i, ls.delta(i))
            members.add(i)
        elif i in members:
            ls.toggle(i, ls.delta(i))
            members.discard(i)
    words = [pool[i] for i in sorted(members)]
    assert ls.t == len(words)
    if len(words) >= 2:
        assert ls.ratio() == exact_ratio(words, m, F)


@pytest.mark.parametrize("m", [8, 12])
def test_search_result_is_exact_at_least_the_best_seed_and_certifies(m):
    result = search(m, seed=1, budget=2_000)
    F = factor_table(m)
    assert result.ratio == exact_ratio(result.code.words, m, F)
    # the score is the sharpest last step (docs/math.md §5), ties broken by R: the result is never below a seed
    sharp = sharp_bound(result.code.words, m, F)
    usable = [(result.seed_bounds[n], r) for n, _, r in result.seeds if r is not None]
    assert usable and (sharp, result.ratio) >= max(usable)
    assert all(b == sharp_bound(next(s.code.words for s in seed_codes(m) if s.name == n), m, F)
               for n, b in list(result.seed_bounds.items())[:3])
    cert, plan, bound = result_certificate(result)
    v = check(cert)
    assert v.trace_frobenius == result.rank_at_least == bound.rank_at_least
    # the last step written is the sharpest: the score, and never below trace–Frobenius
    assert v.proved == max(bound.rank_at_least, (cert.get("argument") or {}).get("rank_at_least", 0)) == sharp
    assert v.proved >= bound.rank_at_least
    assert result.how().startswith("seed ")


def test_search_at_12_finds_at_least_the_hadamard_bound():
    result = search(12, budget=500)
    assert result.ratio >= exact_ratio(hadamard_code(12).words, 12, factor_table(12)) == Fraction(550, 151)


@pytest.mark.parametrize("kw,match", [
    ({"m": 3}, "--m must be in"), ({"m": 65}, "--m must be in"),
    ({"m": 8, "length": 2}, "--length"), ({"m": 8, "time_limit": 0}, "--time-limit"),
    ({"m": 8, "budget": 0}, "--budget"), ({"m": 8, "budget": 10**9 + 1}, "--budget"), ({"m": 8, "budget": 1.5}, "--budget"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(SearchError, match=match):
        search(**kw)


@pytest.mark.parametrize("m,budget", [(14, 1_500), full_only(20, 300, why="m = 20 (the largest pooled middle layer) "
                                                                       "scores its seeds for ≈ 8 s of CPU")])
def test_the_same_seed_and_budget_give_the_same_code_and_certificate(m, budget):
    """Work, not time, ends the search: two runs make the same moves and write the same bytes."""
    a, b = search(m, seed=5, budget=budget), search(m, seed=5, budget=budget)
    assert a.reproducible and b.reproducible and a.steps == b.steps == budget
    assert a.code.words == b.code.words and a.moves == b.moves
    ca, cb = result_certificate(a)[0], result_certificate(b)[0]
    assert ca == cb and ca["sha256"] == cb["sha256"]
    assert f"--seed 5 --budget {budget}:" in ca["producer"]["note"]


def test_every_step_is_counted_and_a_larger_budget_never_ends_lower():
    small, large = search(14, seed=2, budget=200), search(14, seed=2, budget=1_000)
    assert small.steps == 200 and large.steps == 1_000
    # the local search climbs R; the result is the best-scored of the seed it starts from and the code the
    # local search ends with, so whatever the budget it is never below that seed's (score, R)
    F = factor_table(14)
    for result in (small, large):
        start = max((result.seed_bounds[n], r) for n, _, r in result.seeds if r is not None)
        assert (sharp_bound(result.code.words, 14, F), result.ratio) >= start


def test_a_time_limit_that_fires_first_is_reported_as_not_reproducible(monkeypatch):
    import certify.search.codes as search_codes

    clock = iter(range(0, 10**9, 7))  # every reading of the clock is 7 s later than the last
    monkeypatch.setattr(search_codes.time, "monotonic", lambda: float(next(clock)))
    result = search(12, budget=10**6, time_limit=100)
    assert result.time_capped and not result.reproducible and result.steps < 10**6
    assert "not reproducible" in result_certificate(result)[0]["producer"]["note"]


def test_seeds_are_scored_by_their_sharpest_bound_only_before_the_seed_deadline(monkeypatch):
    """2026-12-02: sharp_bound (up to 0.25 s a code) did not look at the clock, so `--m 64 --time-limit 2` took
    3.1–4.8 s. On a clock that gains 1 s per reading, no code is scored that way past the seed deadline, and then
    none is (every seed by R alone, the same way)."""
    import certify.search.codes as search_codes

    now = [0.0]

    def clock():
        now[0] += 1.0
        return now[0]

    calls = []
    real = search_codes.sharp_bound
    monkeypatch.setattr(search_codes.time, "monotonic", clock)
    monkeypatch.setattr(search_codes, "sharp_bound", lambda *a, **k: calls.append(now[0]) or real(*a, **k))
    result = search(12, budget=10**6, time_limit=60)  # the seed phase keeps 0.4 · 0.6 of it: 14.4 s
    seed_deadline = 1.0 + 0.4 * search_codes.SEARCH_SHARE * 60
    assert result.time_capped and all(t <= seed_deadline + 1 for t in calls)
    assert result.seed_bounds == {}
    assert result.ratio == max(r for _, _, r in result.seeds if r is not None) or result.added or result.removed


def test_fit_to_time_keeps_a_prefix_whose_certificate_fits_and_says_so(monkeypatch):
    """A clock on which each query of the generator takes 1 s: 3 passes of t queries cannot fit in 30 s."""
    import certify.search.codes as search_codes
    from certify.search.codes import POST_PASSES, exact_ratio, factor_table, fit_to_time

    result = search(12, seed=1, budget=300)
    t = result.code.size
    now = [0.0]

    def clock():
        now[0] += 0.5  # two readings per sampled query: 1 s per query
        return now[0]

    monkeypatch.setattr(search_codes.time, "monotonic", clock)
    fitted = fit_to_time(result, deadline=30.0)
    keep = fitted.code.size
    assert fitted.time_capped and not fitted.reproducible and fitted.trimmed_from == t
    assert 2 <= keep < t and POST_PASSES * 1.0 * keep * keep / t <= 30.0  # time per query shrinks like t
    assert fitted.code.words == result.code.words[:keep]
    assert fitted.ratio == exact_ratio(fitted.code.words, 12, factor_table(12))
    assert check(result_certificate(fitted)[0]).proved >= fitted.rank_at_least  # the sharper argument may add
    assert "kept to meet the time limit" in fitted.how()
    monkeypatch.undo()
    assert fit_to_time(result, deadline=float("inf")) is result  # time enough: the same result, untouched


@pytest.mark.parametrize("tick", [0.01, 0.05], ids=["fast-machine", "slow-machine"])
def test_the_time_limit_covers_certificate_and_verification_in_the_worst_case(tick, tmp_path, monkeypatch):
    """Issue 18's reproducer (minutes counting golay24's family at n = 1,000 under --time-limit 5), on a fake clock:
    every reading is ``tick`` s later than the last, whatever the machine's speed or load. Issue 42: on the real
    clock a loaded machine trimmed the code so far that --form auto chose the explicit form and refused it
    (28,385 inputs of 1,000 tokens: 1,814 MiB, over the checker's 64 MiB) — exit 2, the slow-machine case here.
    Now the command trims the code, picks the form the checker reads, writes and re-verifies it, and says the run
    is not reproducible."""
    import json

    import certify.cli.certificates as cli_certificates
    import certify.search.codes as search_codes
    now = [0.0]

    def clock():
        now[0] += tick
        return now[0]

    monkeypatch.setattr(search_codes.time, "monotonic", clock)
    monkeypatch.setattr(cli_certificates.time, "monotonic", clock)
    monkeypatch.setenv("CERTIFY_PROGRESS", "0")
    out = tmp_path / "s.json"
    code, stdout, stderr = _run("search", "--m", "64", "--length", "1000", "--error-below", "1/1000",
                                          "--time-limit", "2", "--out", str(out), "--json")
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert doc["time_capped"] is True and doc["reproducible"] is False and doc["verified"] is True
    assert doc["trimmed_from"] is not None and doc["version"] == 2
    cert = json.loads(out.read_text())
    assert check(cert).proved == doc["claim"]["rank_at_least"] and len(cert["code"]["words"]) < doc["trimmed_from"]


def _run(*args: str) -> tuple[int, str, str]:
    """``certify ARGS`` in this process (conftest.run_cli_here): ``(exit code, stdout, stderr)``."""
    proc = run_cli_here(*args)
    return proc.returncode, proc.stdout, proc.stderr
