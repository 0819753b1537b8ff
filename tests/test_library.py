"""Named codes and code files (codes/library.py): every built-in is verified."""
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codes import (
    BinaryCode,
    CodeSpecError,
    ConstantWeightCode,
    builtin_names,
    code_name,
    greedy_code,
    load_code,
    read_code_file,
)
from codes.library import BUILTIN_FACTS, MAX_CODE_WORDS, MAX_LEXICODE_SCAN


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_has_its_stated_size_weights_and_distance_distribution(name):
    code = load_code(name)
    size, length, weight, dist = BUILTIN_FACTS[name]
    assert (code.size, code.length) == (size, length)
    assert all(w.bit_count() == weight for w in code.words)
    assert len(set(code.words)) == code.size
    assert dict(code.distance_counts) == dist
    if code.size <= 100:  # golay24 is checked word by word in test_golay.py
        brute = {}
        for a in code.words:
            for b in code.words:
                if a != b:
                    d = (a & ~b).bit_count()
                    brute[d] = brute.get(d, 0) + 1
        assert brute == dist


def test_builtin_list():
    assert set(builtin_names()) == {"rank-nine", "hadamard24", "golay24"}


def test_lexicode_is_the_greedy_code():
    assert load_code("lexicode:12:6:3").words == greedy_code(12, 6, 3).words
    assert load_code("lexicode:8:4:2").size == 14


@pytest.mark.parametrize("spec,match", [
    ("lexicode:8:4", "three integers"),
    ("lexicode:a:b:c", "three integers"),
    ("lexicode:70:35:4", "length M must be in"),
    ("lexicode:8:0:1", "weight W must be in"),
    ("lexicode:8:4:5", "distance D must be in"),
    ("lexicode:26:13:4", "greedy scan would visit"),
    ("no-such-code", "neither a built-in"),
    ("", "name or a path"),
])
def test_bad_specs_are_refused_with_a_reason(spec, match):
    with pytest.raises(CodeSpecError, match=match):
        load_code(spec)
    assert comb(26, 13) > MAX_LEXICODE_SCAN


def test_code_file_with_comments_and_unequal_weights(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text("# a code\n110000\n\n001100\n000111\n")
    code = read_code_file(path)
    assert isinstance(code, BinaryCode) and code.weight is None
    assert code.to_bits() == ["110000", "001100", "000111"]
    path.write_text("1100\n0011\n")
    code = load_code(str(path))
    assert isinstance(code, ConstantWeightCode) and code.weight == 2
    assert code_name(str(path)) == "mixed"
    assert code_name("lexicode:8:4:2") == "lexicode-8-4-2" and code_name("golay24") == "golay24"


@pytest.mark.parametrize("text,match", [
    ("1100\n0021\n", "line 2: character 3 is '2'"),
    ("1100\n001\n", "line 2: word has length 3, the first word has 4"),
    ("1100\n0011\n1100\n", "line 3: repeats the word on line 1"),
    ("1100\n", "1 word"),
    ("# nothing\n", "0 word"),
])
def test_bad_code_files_are_named_by_line(tmp_path, text, match):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(CodeSpecError, match=match):
        read_code_file(path)


def test_too_many_words_and_unreadable_files(tmp_path):
    path = tmp_path / "big.txt"
    m = 16
    path.write_text("\n".join(format(i, f"0{m}b") for i in range(MAX_CODE_WORDS + 2)) + "\n")
    with pytest.raises(CodeSpecError, match="more than"):
        read_code_file(path)
    with pytest.raises(CodeSpecError, match="cannot read"):
        read_code_file(tmp_path)
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(CodeSpecError, match="not UTF-8"):
        read_code_file(tmp_path / "bin.txt")


def test_the_other_commands_code_specifications_are_accepted():
    assert load_code("hadamard:20:5").words == load_code("hadamard:20").words[:5]
    assert load_code("greedy:12:3").words == greedy_code(12, 6, 3).words
    with pytest.raises(CodeSpecError, match="ORDER must be between"):
        load_code("hadamard:2")


def test_spec_names():
    from codes import hadamard_code, rank_nine_code

    assert load_code("rank-nine").words == rank_nine_code().words
    assert load_code("hadamard:24").words == hadamard_code(24, with_complements=False).words
    c = load_code("greedy:12:3:5")
    assert c.size == 5 and c.min_distance >= 3 and c.weight == 6


@pytest.mark.parametrize("spec", ["", "hadamard", "hadamard:25", "hadamard:200", "greedy:30:7", "greedy:12:7",
                                  "greedy:12:x", "hadamard:24:0", "hadamard:24:99", "rank-nine:3"])
def test_bad_specs_name_the_problem(spec):
    from codes import CodeError

    with pytest.raises(CodeError):
        load_code(spec)


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 11).flatmap(lambda M: st.tuples(st.just(M), st.integers(1, M - 1))).flatmap(
    lambda mw: st.tuples(st.just(mw[0]), st.just(mw[1]), st.integers(1, min(mw[1], mw[0] - mw[1])))))
def test_the_greedy_scan_bound_bounds_the_code_it_scans_for(mwd):
    """Issue 18: the bound used to refuse long scans up front. Its size factor is the packing bound, so the
    greedy code never exceeds it; with Δ = 1 the scan keeps the whole layer."""
    from codes.constant_weight import colex_words, greedy_scan_bound

    M, W, D = mwd
    code = greedy_code(M, W, D)
    n = comb(M, W)
    assert code.size <= greedy_scan_bound(M, W, D) // n or D == 1
    if D == 1:
        assert code.words == tuple(colex_words(M, W)) and greedy_scan_bound(M, W, 1) == n


@pytest.mark.parametrize("spec", ["lexicode:24:12:4", "lexicode:22:11:2", "greedy:24:2"])
def test_a_greedy_scan_over_the_work_limit_is_refused_before_it_starts(spec):
    with pytest.raises(CodeSpecError, match="the greedy scan could take up to"):
        load_code(spec)


def test_the_lexicode_seeds_of_certify_search_stay_under_the_limit():
    """The search's seeds (m ≤ 20, D ≥ 2) must not be refused: the committed results depend on them."""
    from codes.constant_weight import greedy_scan_bound
    from codes.library import MAX_GREEDY_SCAN_WORK

    for m in range(4, 21):
        half = m // 2
        if comb(m, half) <= 200_000:
            for D in range(2, half // 2 + 2):
                if D <= min(half, m - half):
                    assert greedy_scan_bound(m, half, D) <= MAX_GREEDY_SCAN_WORK
