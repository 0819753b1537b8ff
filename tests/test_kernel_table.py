"""Reading kernel tables exactly, and refusing malformed ones with a named reason."""
import json
from fractions import Fraction

import numpy as np
import pytest

from certify.kernels.json_table import loads_json
from certify.kernels.table import TableFormatError, load_table


def npz(tmp_path, name="t.npz", **arrays):
    path = tmp_path / name
    np.savez(path, **arrays)
    return str(path)


def test_npz_floats_are_read_as_their_exact_binary_value(tmp_path):
    t = load_table(npz(tmp_path, tokens=np.array(["10", "01"]), kernel=np.array([[0.1, 1.0], [1.0, 0.5]])))
    assert t.entry("kernel", 0, 0) == Fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    t32 = load_table(npz(tmp_path, "f32.npz", tokens=np.array(["10", "01"]), kernel=np.array([[0.1, 1], [1, 1]], dtype=np.float32)))
    assert t32.entry("kernel", 0, 0) == Fraction(float(np.float32(0.1)))


def test_json_decimals_and_fractions_are_exact():
    t = loads_json('{"tokens": [[1, 0], [0, 1]], "kernel": [[0.1, "1/3"], [2, 1e-3]]}')
    assert [t.entry("kernel", 0, j) for j in (0, 1)] == [Fraction(1, 10), Fraction(1, 3)]
    assert [t.entry("kernel", 1, j) for j in (0, 1)] == [2, Fraction(1, 1000)]
    assert t.tokens == (1, 2) and t.m == 2


def test_integer_token_arrays(tmp_path):
    t = load_table(npz(tmp_path, tokens=np.array([[1, 0, 1], [0, 1, 1]]), phi_q=np.ones((2, 1)), phi_k=np.ones((2, 1))))
    assert t.tokens == (0b101, 0b110) and t.width == 1


@pytest.mark.parametrize("arrays,message", [
    (dict(tokens=np.array(["10", "01"]), kernel=np.array([[np.nan, 1], [1, 1]])), "finite"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.array([[np.inf, 1], [1, 1]])), "finite"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 3))), "columns"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((3, 2))), "rows"),
    (dict(tokens=np.array(["10", "01"]), phi_q=np.ones((2, 2)), phi_k=np.ones((2, 3))), "columns"),
    (dict(tokens=np.array(["10", "01"]), phi_q=np.ones((2, 2))), "together"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)), phi_q=np.ones((2, 1)), phi_k=np.ones((2, 1))), "either"),
    (dict(tokens=np.array(["10", "01"])), "either"),
    (dict(kernel=np.ones((2, 2))), "tokens"),
    (dict(tokens=np.array(["10", "10"]), kernel=np.ones((2, 2))), "repeats"),
    (dict(tokens=np.array(["10", "0"]), kernel=np.ones((2, 2))), "length"),
    (dict(tokens=np.array(["12", "01"]), kernel=np.ones((2, 2))), "0/1"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)), beta=np.zeros(2)), "both 'beta' and 'w'"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)), beta=np.zeros(3), w=np.zeros((2, 2))), "entries"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)) * 1j), "complex"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)), extra=np.ones(1)), "unknown field"),
    (dict(tokens=np.array(["10", "01"]), kernel=np.ones(4)), "two-dimensional"),
])
def test_malformed_npz_tables(tmp_path, arrays, message):
    with pytest.raises(TableFormatError, match=message):
        load_table(npz(tmp_path, **arrays)).prepare([0, 1])  # entries are read (and checked) when used


def test_only_the_rows_used_are_read(tmp_path):
    kernel = np.ones((3, 3))
    kernel[2, 0] = np.nan  # in a row nobody asks for
    t = load_table(npz(tmp_path, tokens=np.array(["100", "010", "001"]), kernel=kernel))
    t.prepare([0, 1])
    assert t.fields["kernel"].loaded == {0: 0, 1: 1} and t.entry("kernel", 1, 0) == 1
    with pytest.raises(TableFormatError, match=r"kernel\[2, 0\] is nan"):
        t.prepare([2])


def test_pickled_objects_are_never_loaded(tmp_path):
    path = tmp_path / "p.npz"
    np.savez(path, tokens=np.array(["10", "01"]), kernel=np.array([[object(), 1], [1, 1]], dtype=object))
    with pytest.raises(TableFormatError, match="pickled"):
        load_table(str(path))


def test_corrupted_and_missing_files(tmp_path):
    good = npz(tmp_path, tokens=np.array(["10", "01"]), kernel=np.ones((2, 2)))
    data = open(good, "rb").read()
    bad = tmp_path / "bad.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(TableFormatError):
        load_table(str(bad))
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(TableFormatError):
        load_table(str(tmp_path / "junk.npz"))
    with pytest.raises(TableFormatError, match="no such file"):
        load_table(str(tmp_path / "absent.npz"))
    single = tmp_path / "single.npy"
    np.save(single, np.ones(3))
    with pytest.raises(TableFormatError):
        load_table(str(single))


@pytest.mark.parametrize("text,message", [
    ('{"tokens": ["10", "01"], "kernel": [[NaN, 1], [1, 1]]}', "NaN"),
    ('{"tokens": ["10", "01"], "kernel": [[Infinity, 1], [1, 1]]}', "Infinity"),
    ('{"tokens": ["10", "01"], "kernel": [[true, 1], [1, 1]]}', "number"),
    ('{"tokens": ["10", "01"], "kernel": [["1/0", 1], [1, 1]]}', "rational"),
    ('{"tokens": ["10", "01"], "kernel": [[null, 1], [1, 1]]}', "number"),
    ('{"tokens": ["10", "01"], "kernel": [[1, 1]]}', "rows"),
    ('{"tokens": ["10", "01"], "kernel": [[1, 1], [1]]}', "columns"),
    ('{"tokens": ["10", "01"], "kernel": [[1, 1], [1, 1]]', "invalid JSON"),
    ('[1, 2]', "object"),
    ('{"tokens": "10", "kernel": [[1]]}', "array"),
])
def test_malformed_json_tables(text, message):
    with pytest.raises(TableFormatError, match=message):
        loads_json(text)


def test_examples_load():
    from conftest import ROOT

    for name in ("rank15_solves.npz", "rank15_fails.npz", "rank15_kernel_only.npz", "uniform_kernel_only.json"):
        t = load_table(str(ROOT / "docs" / "examples" / name))
        assert t.size == 239 and t.m == 24


def test_a_check_beyond_the_exact_work_limit_is_refused_before_converting():
    from certify.kernels.table import MAX_EXACT_ENTRIES

    t = loads_json('{"tokens": ["10", "01"], "kernel": [[1, 1], [1, 1]]}')
    t.check_work(2, 2)  # small: fine
    with pytest.raises(TableFormatError, match="exact entries"):
        t.check_work(6_000, MAX_EXACT_ENTRIES // 6_000 + 1)  # a family of 6,000 query tokens (adversarial review)


@pytest.mark.parametrize("compress", [True, False])
def test_npz_bytes_is_a_reproducible_npz_the_reader_and_numpy_both_read(tmp_path, monkeypatch, compress):
    """Same arrays, same bytes — even with the clock moved a day — and the same arrays back."""
    import io
    import time
    import zipfile

    from certify.kernels.table import NPZ_DATE, npz_bytes

    arrays = {"tokens": np.array(["10", "01"]), "kernel": np.array([[1.5, 0.25], [0, 2]]), "beta": np.zeros(2),
              "w": np.arange(4, dtype=np.int64).reshape(2, 2)}
    first = npz_bytes(arrays, compress=compress)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 86_400)
    assert npz_bytes(arrays, compress=compress) == first
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        assert [i.filename for i in zf.infolist()] == ["tokens.npy", "kernel.npy", "beta.npy", "w.npy"]
        assert {i.date_time for i in zf.infolist()} == {NPZ_DATE}
    with np.load(io.BytesIO(first)) as back:
        for k, v in arrays.items():
            assert np.array_equal(back[k], v) and back[k].dtype == v.dtype, k
    p = tmp_path / "t.npz"
    p.write_bytes(first)
    t = load_table(str(p))
    assert t.size == 2 and t.entry("kernel", 0, 0) == Fraction(3, 2)
