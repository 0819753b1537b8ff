"""Regenerate the kernel-table corpus: ``python tests/tables/make_tables.py``.

Every file here once broke ``certify check-kernel`` or is the smallest file showing an
attack on it (issue 7): a wrong verdict, number spellings that expand, decompression
bombs, forged or corrupt archives, files that are not tables at all. ``MANIFEST.json``
records for each table the family it is checked against, the expected exit code and the
attack; ``tests/test_tables_corpus.py`` runs every entry through the CLI.

* ``valid/`` — tables that must get a verdict (exit 0 solves, exit 1 does not);
* ``malformed/`` — files that must be refused with exit 2 and a one-line reason.
"""
from __future__ import annotations

import io
import json
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from certify.kernels.table import NPZ_DATE  # noqa: E402
from certify.kernels.table import npz_bytes as table_npz_bytes  # noqa: E402

MANIFEST: dict[str, dict] = {}

# A gap-1 jump at length 3: x = 11, y = 00 (overlap 0), z = 10 (overlap 1). At ε = 1/2
# weight domination gives μ = (n−2)(d−2ε)/(2ε) = 0: nothing. Its witnesses (x,y,y),
# (x,z,z), (x,y,z) are solved by α(x,·) = (1, 0, 1) on (x, y, z) with g_x = (0, ·, 4/5):
# predictions 0, 8/15 and 2/5 (errors 0, 7/15, 2/5) although α(x,y) = 0 ≤ 0·α(x,z).
GAP_ONE_FAMILY = {"family": {"inputs": [
    {"tokens": ["11", "00", "00"], "query": 0, "target": 0},
    {"tokens": ["11", "10", "10"], "query": 0, "target": 1},
    {"tokens": ["11", "00", "10"], "query": 0, "target": 0},
]}}
GAP_ONE_TABLE = {
    "note": "solves the gap-1 family exactly; its only jump has μ = 0 and proves nothing",
    "tokens": ["11", "00", "10"],
    "kernel": [[1, 0, 1], [1, 1, 1], [1, 1, 1]],
    "beta": [0, 0, 0],
    "w": [[0, 0, 0.8], [0, 0, 0], [0, 0, 0]],
}


def emit(folder: str, name: str, content, exit_code: int, attack: str, family: str | None = "families/gap_one.json") -> None:
    path = HERE / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, (dict, list)):
        path.write_text(json.dumps(content) + "\n")
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    MANIFEST[f"{folder}/{name}"] = {"exit": exit_code, "family": family, "attack": attack}


def npz_bytes(**arrays) -> bytes:
    return table_npz_bytes(arrays, allow_pickle=True)  # members dated 1980-01-01: rerunning this script changes no byte


def npy_header(shape, descr="<f8") -> bytes:
    """A version-1.0 .npy header as numpy writes it (magic, length, dict padded to 64 bytes)."""
    text = repr({"descr": descr, "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    pad = 64 - (10 + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text


def zip_members(members: dict[str, bytes], file_sizes: dict[str, int] | None = None) -> bytes:
    """A zip archive; ``file_sizes`` forges the declared uncompressed size of some members."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=NPZ_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    data = bytearray(buf.getvalue())
    for name, size in (file_sizes or {}).items():
        for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # local and central headers
            start = 0
            while (i := data.find(sig, start)) >= 0:
                name_len = struct.unpack_from("<H", data, i + (26 if sig == b"PK\x03\x04" else 28))[0]
                name_at = i + (30 if sig == b"PK\x03\x04" else 46)
                if data[name_at:name_at + name_len] == name.encode():
                    struct.pack_into("<I", data, i + off, size)
                start = i + 4
    return bytes(data)


def gap_one_arrays(**override):
    arrays = {"tokens": np.array(GAP_ONE_TABLE["tokens"]), "kernel": np.array(GAP_ONE_TABLE["kernel"], dtype=float),
              "beta": np.zeros(3), "w": np.array(GAP_ONE_TABLE["w"])}
    arrays.update(override)
    return arrays


def valid() -> None:
    emit("valid", "gap_one_jump_solved.json", GAP_ONE_TABLE, 0,
         "wrong verdict (fix first): a table that truly solves a family with a μ = 0 jump was called a "
         "contradiction (exit 3); a jump with μ < 1 proves nothing and is not checked")
    emit("valid", "gap_one_jump_solved.npz", npz_bytes(**gap_one_arrays()), 0,
         "the same table as an .npz (0.8 read as the float it is: still solves)")
    emit("valid", "capital_extension.JSON", GAP_ONE_TABLE, 0,
         "'.JSON' in capitals was read as .npz; the kind comes from the content")
    emit("valid", "no_extension", GAP_ONE_TABLE, 0, "no file extension at all: read by content")
    huge = dict(GAP_ONE_TABLE, w=[[0, 0, 10**400], [0, 0, 0], [0, 0, 0]])
    emit("valid", "exact_integer_above_1e308.json", huge, 1,
         "an exact integer above 10^308: the decimal display called float() and crashed (exit 3); "
         "now the prediction ≈ 6.67e+399 is shown and the table fails")
    tiny = dict(GAP_ONE_TABLE, w=[[0, 0, "4/5"], [0, 0, 0], [0, 0, 0]], kernel=[[1, 0, "1/" + "7" * 900], [1, 1, 1], [1, 1, 1]])
    emit("valid", "tiny_kernel_entry.json", tiny, 1,
         "a 900-digit denominator: predictions near 0, printed by size, never as a float that underflows")


def malformed() -> None:
    for name, text, attack in [
        ("exponent_999999999.json", "1e999999999", "1e999999999 ran forever (the exact conversion built the power)"),
        ("exponent_minus_999999999.json", "1e-999999999", "1e-999999999 ran forever"),
        ("exponent_10000000.json", "1e10000000", "1e10000000 took seconds"),
        ("exponent_with_leading_zeros.json", "1e-0000000000000000000999999999", "a huge exponent behind leading zeros"),
    ]:
        text_table = json.dumps(GAP_ONE_TABLE).replace("0.8", text)
        emit("malformed", name, text_table, 2, attack)
    emit("malformed", "string_0e999999999.json", json.dumps(GAP_ONE_TABLE).replace("0.8", '"0e999999999"'), 2,
         "the string \"0e999999999\" ran forever (Fraction() of a string builds the power)")
    emit("malformed", "integer_of_5000_digits.json", json.dumps(GAP_ONE_TABLE).replace("0.8", "9" * 5000), 2,
         "a 5,000-digit integer literal (the limit is 1,000 digits per number)")
    # Decompression bombs: checked against the headers before any data is decompressed.
    bomb = npz_bytes(tokens=np.array(GAP_ONE_TABLE["tokens"]), kernel=np.zeros((2236, 2236)))
    emit("malformed", "bomb_5M_entries_shape_mismatch.npz", bomb, 2,
         f"a {len(bomb) // 1024} KB archive of 5 M zeros whose kernel does not fit 3 tokens: took 12 s, "
         "now refused from the header")
    forged = zip_members({"tokens.npy": npy_header((3,), "<U2") + "".join(GAP_ONE_TABLE["tokens"]).encode("utf-32-le"),
                          "kernel.npy": npy_header((10**9, 10**9)) + b"\0" * 72})
    emit("malformed", "forged_header_huge_shape.npz", forged, 2,
         "a header forging shape (10⁹, 10⁹): refused before decompressing (was exit 3)")
    emit("malformed", "member_not_npy.npz", zip_members({"tokens.npy": b"hello", "kernel.npy": b"world"}), 2,
         "members that are not .npy arrays (was exit 3)")
    emit("malformed", "member_not_a_field.npz", zip_members({"evil.txt": b"x"}), 2,
         "a member that is no table field")
    corrupt_header = zip_members({"tokens.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': <<<  \n",
                                  "kernel.npy": b""})
    emit("malformed", "corrupt_npy_header.npz", corrupt_header, 2, "a corrupt .npy header (was exit 3)")
    good = bytearray(npz_bytes(**gap_one_arrays(kernel=np.arange(9.0).reshape(3, 3) + 1)))
    i = good.find(b"kernel.npy") + len(b"kernel.npy") + 20
    good[i:i + 8] = b"\xff" * 8
    emit("malformed", "corrupt_deflate_data.npz", bytes(good), 2, "corrupt deflate data in a member (was exit 3)")
    lying = zip_members({"tokens.npy": npy_header((3,), "<U2") + "".join(GAP_ONE_TABLE["tokens"]).encode("utf-32-le"),
                         "kernel.npy": npy_header((3, 3)) + b"\0" * 72},
                        file_sizes={"kernel.npy": 2**31})
    emit("malformed", "declared_size_disagrees_with_header.npz", lying, 2,
         "the zip directory declares 2 GiB for a 3×3 member: refused before decompressing")
    emit("malformed", "object_array.npz", npz_bytes(tokens=np.array(["11", "00", "10"]),
                                                     kernel=np.array([[None] * 3] * 3, dtype=object)), 2,
         "an object array (pickled data), never loaded")
    emit("malformed", "readme_as_table.md", (HERE.parents[1] / "README.md").read_text()[:2000], 2,
         "a file that is not a table at all was said to 'contain pickled Python objects'")
    emit("malformed", "single_npy_array.npz", npy_header((3, 3)) + b"\0" * 72, 2, "a single .npy, not an archive")
    emit("malformed", "duplicate_key.json", '{"tokens": ["11", "00", "10"], "tokens": ["11", "00", "10"], "kernel": []}', 2,
         "a key twice in one object")
    emit("malformed", "deeply_nested.json", '{"kernel": ' + "[" * 50000 + "]" * 50000 + "}", 2, "nesting bomb")
    emit("malformed", "empty_arrays_bomb.json", '{"kernel": [' + ",".join(["[]"] * 50_000) + "]}", 2,
         "many empty arrays: refused by shape, not by memory")


def review_attacks() -> None:
    """Found by the adversarial review of check-kernel: work and memory bounded from the headers."""
    wide = npz_bytes(tokens=np.array(GAP_ONE_TABLE["tokens"]), phi_q=np.ones((3, 2_000_000), dtype=np.float32),
                     phi_k=np.ones((3, 2_000_000), dtype=np.float32))
    emit("malformed", "features_2M_wide.npz", wide, 2,
         "feature width 2,000,000 on 3 tokens (a width-100,000 table took 3.7 GB and crashed flint, exit 134): "
         "refused from the shapes before any entry is converted")
    bomb = npz_bytes(tokens=np.zeros((20_000, 4096), dtype=np.int8), phi_q=np.ones((20_000, 1)), phi_k=np.ones((20_000, 1)))
    emit("malformed", "tokens_20000_by_4096.npz", bomb, 2,
         "82 M token bits (a 394 KB archive of 98,304 × 4,096 took 5 GB decoding tokens): refused from the header")
    x, y = "1" * 12, "0" * 12
    others = [format(i, "012b") for i in range(1, 4095)][:2998]
    tokens = [x, y] + others
    fortran = np.asfortranarray(np.ones((len(tokens), len(tokens))))
    emit("malformed", "fortran_kernel_72MB.npz", npz_bytes(tokens=np.array(tokens), kernel=fortran), 2,
         "a 72 MB kernel in Fortran order, which is read whole (an 11,000² one took 1.9 GB): refused above 64 MiB",
         "families/gap_twelve.json")


def library_attacks() -> None:
    """Issue 17 (heads of linear-attention libraries) and its adversarial review: dtypes, delta, negatives."""
    bits = np.array([[int(c) for c in t] for t in GAP_ONE_TABLE["tokens"]])
    for dtype in ("uint8", "bool", "float32"):
        emit("valid", f"tokens_{dtype}.npz", npz_bytes(**gap_one_arrays(tokens=bits.astype(dtype))), 0,
             f"tokens as a 0/1 {dtype} array (np.savez of numpy's natural 0/1 dtype was refused: "
             "'expected 0/1 strings or a 0/1 integer array, got dtype uint8')")
    emit("malformed", "tokens_entry_2.npz", npz_bytes(**gap_one_arrays(tokens=np.where(bits == 1, 2, 0).astype("uint8"))),
         2, "a token entry 2 in a uint8 array: refused naming tokens[0][0]")
    emit("malformed", "tokens_entry_nan.npz", npz_bytes(**gap_one_arrays(tokens=np.where(bits == 1, np.nan, 0.0))), 2,
         "NaN in a float token array (NaN compares unequal to 0 and to 1)")
    emit("valid", "delta_phantom_key.json", dict(GAP_ONE_TABLE, delta="1/1000"), 0,
         "a denominator constant δ = 1/1000 (libraries' eps; it was not expressible): still solves, exactly")
    emit("valid", "delta_float64.npz", npz_bytes(**gap_one_arrays(delta=np.float64(1e-6))), 0,
         "delta as a 0-d float64 member, as np.savez(delta=1e-6) writes it")
    zero = dict(GAP_ONE_TABLE, kernel=[[0, 0, 0], [0, 0, 0], [0, 0, 0]])
    emit("malformed", "zero_denominator_without_delta.json", zero, 2,
         "α ≡ 0 (a ReLU map at small r): Σ_j α = 0, no verdict possible; the message points to 'delta'")
    emit("valid", "zero_kernel_with_delta.json", dict(zero, delta="1/100"), 1,
         "the same kernel with δ = 1/100: every prediction is β(x), a verdict (fails) instead of exit 2")
    emit("malformed", "delta_negative.json", dict(GAP_ONE_TABLE, delta="-1/1000"), 2, "a negative delta")
    emit("malformed", "delta_nan.npz", npz_bytes(**gap_one_arrays(delta=np.float64("nan"))), 2, "delta NaN")
    emit("malformed", "delta_two_values.npz", npz_bytes(**gap_one_arrays(delta=np.array([1.0, 2.0]))), 2,
         "delta of shape (2,): one number is allowed")
    if np.finfo(np.longdouble).max > np.finfo(np.float64).max:  # x86: an 80-bit long double
        emit("malformed", "delta_negative_longdouble_max.npz",
             npz_bytes(**gap_one_arrays(delta=-np.finfo(np.longdouble).max)), 2,
             "delta = −(long double max), ≈ 4,930 digits: the refusal printed the value and crashed on Python's "
             "4,300-digit guard (exit 3)")
    neg = dict(GAP_ONE_TABLE, kernel=[[1, "-1/10000000000", "-1/1000"], [1, 1, 1], [1, 1, 1]])
    emit("malformed", "negative_alpha_two_pairs.json", neg, 2,
         "two used pairs with α < 0 (roundoff of a kernel ≥ 0 in the reals): both counted, the worst named")
    emit("valid", "note_as_text.npz", npz_bytes(**gap_one_arrays(note=np.array("trained 2026-12-01"))), 0,
         "a text 'note' member (certify.torch.export(note=…) wrote one that was refused: 'expected a numeric array')")


def multihead_tables() -> None:
    """Issue 19: the multi-head form (heads, value_heads) and its refusals, on the gap-1 family."""
    two = {  # head 0 is GAP_ONE_TABLE's solution in factor form (one-hot values), head 1 adds nothing
        "note": "two heads: head 0 solves the family, head 1 has zero values",
        "tokens": ["11", "00", "10"],
        "phi_q": [[1, 1], [1, 1], [1, 1]], "phi_k": [[1, 1], [0, 1], [1, 1]], "heads": [1, 1],
        "values": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], "value_heads": [3, 1],
        "w": [[0, 0, "4/5", 0], [0, 0, 0, 0], [0, 0, 0, 0]], "beta": [0, 0, 0],
    }
    emit("valid", "two_heads_solve.json", two, 0,
         "a table of two heads (heads = [1, 1], value_heads = [3, 1]): each head normalized by its own Σ_j α_h, "
         "mixed by w and β; solves, exactly")
    arrays = {k: np.array(v, dtype=np.int64 if k in ("heads", "value_heads") else float)
              for k, v in two.items() if k not in ("tokens", "note", "w")}
    arrays["w"] = np.array([[0, 0, 0.8, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    emit("valid", "two_heads_solve.npz", npz_bytes(tokens=np.array(two["tokens"]), **arrays), 0,
         "the same two heads as an .npz (int64 widths)")
    shifted = dict(two, values=[[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], w=[[0, 0, "4/5", 1], [0, 0, 0, 1], [0, 0, 0, 1]])
    emit("valid", "two_heads_second_head_shifts.json", shifted, 1,
         "head 1 now adds 1 to every prediction: fails, naming the inputs")
    emit("valid", "two_heads_delta.json", dict(two, delta="1/100"), 0,
         "two heads and δ = 1/100: each head's denominator is δ + Σ_j α_h (its own phantom key); still solves")
    emit("valid", "two_heads_delta_fails.json", dict(two, delta=1), 1,
         "the same with δ = 1: head 0's prediction on family.inputs[1] falls to 2/5, so δ is applied per head")
    bad = {
        "heads_sum_mismatch.json": (dict(two, heads=[1, 2]), "heads summing to 3 over 2 feature columns"),
        "heads_with_kernel.json": ({k: v for k, v in dict(two, kernel=[[1, 0, 1]] * 3).items() if k not in ("phi_q", "phi_k")},
                                   "heads with a kernel given directly (heads cut factor columns)"),
        "heads_without_value_heads.json": ({k: v for k, v in two.items() if k != "value_heads"},
                                           "two heads and a readout without value_heads: whose value columns?"),
        "heads_one_hot_readout.json": ({k: v for k, v in dict(two, w=[[0, 0, 0.8]] * 3).items()
                                        if k not in ("values", "value_heads")},
                                       "two heads with a one-hot readout (w N × N): refused, values needed"),
        "value_heads_count_differs.json": (dict(two, value_heads=[4]), "one value width for two heads"),
        "heads_zero_width.json": (dict(two, heads=[0, 2]), "a head of width 0"),
        "heads_not_integers.json": (dict(two, heads=["1/2", "3/2"]), "widths given as rationals"),
        "heads_too_many.json": (dict(two, heads=[1] * 65), "65 widths: at most 64 heads, refused from the shape"),
        "value_heads_without_heads.json": ({k: v for k, v in two.items() if k != "heads"},
                                           "value_heads without heads"),
    }
    for name, (table, attack) in bad.items():
        emit("malformed", name, table, 2, attack)
    for name, widths, attack in (("heads_float.npz", np.array([1.0, 1.0]), "heads as a float array"),
                                 ("heads_bool.npz", np.array([True, True]), "heads as a bool array"),
                                 ("heads_two_dimensional.npz", np.array([[1, 1]]), "heads of shape (1, 2)")):
        emit("malformed", name, npz_bytes(tokens=np.array(two["tokens"]), **dict(arrays, heads=widths)), 2, attack)


def main() -> None:
    for folder in ("valid", "malformed", "families"):
        d = HERE / folder
        d.mkdir(exist_ok=True)
        for f in d.iterdir():
            f.unlink()
    emit("families", "gap_one.json", GAP_ONE_FAMILY, 0, "the family of the gap-1 attacks (three witnesses, μ = 0)", None)
    del MANIFEST["families/gap_one.json"]
    x, y = "1" * 12, "0" * 12
    emit("families", "gap_twelve.json", {"family": {"inputs": [{"tokens": t, "query": 0} for t in ([x, y, y], [x, x, x], [x, y, x])]}},
         0, "one jump of gap 12 on 12-bit tokens", None)
    del MANIFEST["families/gap_twelve.json"]
    valid()
    library_attacks()
    multihead_tables()
    malformed()
    review_attacks()
    (HERE / "MANIFEST.json").write_text(json.dumps(MANIFEST, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {len(MANIFEST)} tables under {HERE.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    sys.exit(main())
