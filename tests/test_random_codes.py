"""Seeded random codes (codes/random_codes.py): ``random:M:W:D[:N][:SEED]``."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codes import CodeSpecError, code_name, load_code
from codes import random_codes as R


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 40), st.data())
def test_words_have_weight_W_and_pairwise_directed_distance_at_least_D(M, data):
    W = data.draw(st.integers(1, M - 1))
    D = data.draw(st.integers(1, min(W, M - W)))
    N = data.draw(st.integers(2, 60))
    seed = data.draw(st.integers(0, 2**40))
    try:
        code = R.random_code(M, W, D, N, seed)
    except R.CodeError as exc:  # fewer than two words: only when D leaves no room for a second word
        assert "a code needs two" in str(exc)
        return
    assert 2 <= code.size <= N and code.length == M and code.weight == W
    assert all(x.bit_count() == W and x >> M == 0 for x in code.words)
    assert len(set(code.words)) == code.size
    assert all((a & ~b).bit_count() >= D for i, a in enumerate(code.words) for b in code.words[i + 1:])
    assert (code.size == N) == ("stopped at" not in code.description)


def test_the_same_seed_gives_the_same_code_and_another_seed_another(monkeypatch):
    a = load_code("random:30:15:3:200:7")
    assert a.words == R.random_code(30, 15, 3, 200, 7).words == load_code("random:30:15:3:200:7").words
    assert a.words != load_code("random:30:15:3:200:8").words
    assert R.RANDOM_DEFAULT_WORDS == 5_000  # N by default (the module docstring and codes/library.py say so)
    monkeypatch.setattr(R, "RANDOM_DEFAULT_WORDS", 30)  # the default is read when the spec is
    assert load_code("random:30:15:3").words == R.random_code(30, 15, 3, 30, 0).words
    assert load_code("random:30:15:3:200").words == R.random_code(30, 15, 3, 200, 0).words
    assert code_name("random:30:15:3:200:7") == "random-30-15-3-200-7"


def test_a_longer_code_extends_the_shorter_one_of_the_same_seed():
    # the draws do not depend on N: N only says when to stop
    short, long = R.random_code(24, 12, 3, 50, 5), R.random_code(24, 12, 3, 120, 5)
    assert long.words[:50] == short.words


def test_the_words_follow_the_documented_algorithm():
    """Re-implemented from the module docstring: getrandbits rejection sampling, partial Fisher–Yates, greedy keep."""
    M, W, D, N, seed = 20, 10, 3, 40, 11
    rng = random.Random(seed)

    def below(n):
        while True:
            r = rng.getrandbits(n.bit_length())
            if r < n:
                return r

    kept = []
    while len(kept) < N:
        coords = list(range(M))
        for j in range(W):
            k = j + below(M - j)
            coords[j], coords[k] = coords[k], coords[j]
        x = sum(1 << c for c in coords[:W])
        if all((x & ~u).bit_count() >= D for u in kept):
            kept.append(x)
    assert R.random_code(M, W, D, N, seed).words == tuple(kept)


def test_random_words_are_uniform_enough():
    # every coordinate appears in about W/M of the words (a gross bias would show)
    rng = random.Random(3)
    counts = [0] * 12
    for _ in range(6000):
        x = R.random_word(rng, 12, 4)
        assert x.bit_count() == 4
        for c in range(12):
            counts[c] += x >> c & 1
    assert all(1700 <= c <= 2300 for c in counts), counts  # mean 2,000, standard deviation ≈ 37


def test_hostile_arguments_stop_within_the_counted_budget(monkeypatch):
    code = R.random_code(16, 8, 8, 16_384, 0)  # D = W: words pairwise disjoint, so two at most
    assert code.size == 2 and "rejected in a row" in code.description
    monkeypatch.setattr(R, "MAX_RANDOM_WORK", 50_000)
    code = R.random_code(64, 32, 2, 16_384, 0)  # would need ≈ 1.3·10⁸ checks: stopped by the work budget
    assert 2 <= code.size < 16_384 and "stopped at" in code.description
    assert code.size * 32 <= 50_000 + 32 + code.size  # each draw costs W, each kept word at least that


@pytest.mark.parametrize("spec,match", [
    ("random:12:6", "three to five integers"),
    ("random:12:6:2:10:1:9", "three to five integers"),
    ("random:a:6:2", "three to five integers"),
    ("random:65:32:2", r"length M must be in \[2, 64\]"),
    ("random:12:12:2", r"weight W must be in \[1, 11\]"),
    ("random:12:4:5", r"distance D must be in \[1, 4\]"),
    ("random:12:6:2:1", r"size N must be in \[2, 16,384\]"),
    ("random:12:6:2:20000", r"size N must be in \[2, 16,384\]"),
    ("random:12:6:2:10:-1", "SEED must be ≥ 0"),
])
def test_bad_specs_are_refused_with_the_parameter_and_its_range(spec, match):
    with pytest.raises(CodeSpecError, match=match) as info:
        load_code(spec)
    assert f"code {spec!r}" in str(info.value)


def test_search_seeds_random_codes_only_where_the_middle_layer_is_too_large_to_take_whole():
    from certify.search.seeds import seed_codes

    seeds = {s.name: s.code for s in seed_codes(27, random_words=40)}
    names = [n for n in seeds if n.startswith("random:")]
    assert names == ["random:27:13:2:40:0", "random:27:13:3:40:0"]  # D = max(2, ⌊m/10⌋) and one more
    assert all(seeds[n].words == load_code(n).words for n in names)  # the seed's name rebuilds it
    assert not any(s.name.startswith("random:") for s in seed_codes(12))  # C(12, 6) words: the layer itself
    other = [s.name for s in seed_codes(27, random_words=40, seed=3) if s.name.startswith("random:")]
    assert other == ["random:27:13:2:40:3", "random:27:13:3:40:3"]  # the search's --seed seeds them too


def test_search_refuses_a_random_seed_size_out_of_range():
    from certify.search.codes import SearchError, search

    for bad in (1, 16_385, True):
        with pytest.raises(SearchError, match=r"--random-words must be an int in \[2, 16,384\]"):
            search(27, budget=1, random_words=bad)
