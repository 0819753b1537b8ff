"""Write the symmetric-kernel checker's corpus: valid, invalid (exit 1) and malformed (exit 2) files, named after the attack.

Run from the repository root: ``python tests/symmetric/make_symmetric_corpus.py``. Every file is a
``certify.symmetric-kernel/1`` certificate (docs/certificate-format.md, "Symmetric-kernel
certificates"), built here from a kernel ``f`` on the Terwilliger cells with the checker's own
public functions (``blocks_of_kernel``, ``exact_rank``), then given one change, made here so that
the change is exactly the attack its name says. MANIFEST.json gives, for each file, the exit code
of ``python certify/check_symmetric.py FILE``, the step or field its one line names (``field``:
what follows the path in ``REJECTED: FILE: step: …`` / ``MALFORMED: FILE: field: …``) and a
phrase of it (``says``); tests/test_symmetric_checker.py checks both. Deterministic: running
this twice writes the same bytes.

To add a valid certificate (a producer's low-rank kernel, say), add a function returning the
document to :data:`VALID` — :func:`certificate` builds one from a kernel, :func:`from_blocks`
from its blocks — and run this again; tests/test_symmetric_explicit.py expands every valid file
with ``m ≤ 10`` to its ``2^m × 2^m`` matrix and checks its rank and rows independently.
"""
from __future__ import annotations

import copy
import json
import sys
from fractions import Fraction
from itertools import product
from math import prod
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
from corpus_files import Refusals, document_text, replace_once, write_corpus  # noqa: E402

from certify import check_symmetric as S  # noqa: E402
from certify.check import MAX_INT, format_rational  # noqa: E402


def number(q) -> int | str:
    """A JSON number of the format: a JSON integer when it is one in ``0 … 2^53 − 1``, else the string ``"p/q"``."""
    q = Fraction(q)
    return int(q) if q.denominator == 1 and 0 <= q <= MAX_INT else format_rational(q)


def cells(parts: list[int]) -> list[tuple]:
    """Every cell of the kernel (a tuple of one Terwilliger cell per part)."""
    return list(product(*(S.part_cells(a) for a in parts)))


def from_blocks(parts: list[int], blocks: dict, factored: bool = False, note: str | None = None) -> dict:
    """The certificate listing the nonzero ``blocks`` (``{index: matrix}``), with exact ranks and their total.

    ``factored``: each block written as ``left · rightᵀ`` of width its rank (a rank factorization).
    """
    listed, total = [], 0
    for index in sorted(blocks):
        B = blocks[index]
        if not any(v for row in B for v in row):
            continue
        r = S.exact_rank(B)
        total += r * prod(S.mult(a, k) for a, k in zip(parts, index))
        entry = {"index": list(index), "rank": r}
        if factored:
            left, right = rank_factors(B)
            entry.update(left=[[number(v) for v in row] for row in left], right=[[number(v) for v in row] for row in right])
        else:
            entry["entries"] = [[number(v) for v in row] for row in B]
        listed.append(entry)
    doc = {"schema": S.SCHEMA, "m": sum(parts), "parts": list(parts), "blocks": listed, "rank_at_most": total}
    if note is not None:
        doc["note"] = note
    return doc


def certificate(parts: list[int], f, **kw) -> dict:
    """The certificate of the kernel ``f`` (a function of a cell, or ``{cell: value}``): all its nonzero blocks."""
    table = f if isinstance(f, dict) else {c: Fraction(f(c)) for c in cells(parts)}
    return from_blocks(parts, S.blocks_of_kernel(parts, table), **kw)


def rank_factors(B: list[list]) -> tuple[list[list], list[list]]:
    """``(left, right)``, ``n × r`` each, with ``B = left · rightᵀ``: the pivot columns and the reduced row echelon form."""
    rows = [[Fraction(v) for v in row] for row in B]
    pivots, r = [], 0
    for c in range(len(B[0])):
        p = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [v / rows[r][c] for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                rows[i] = [a - rows[i][c] * b for a, b in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    left = [[Fraction(row[c]) for c in pivots] for row in B]
    right = [[rows[q][j] for q in range(r)] for j in range(len(B[0]))]
    return left, right


# --------------------------------------------------------------------------- kernels


def power(c: Fraction):
    """``f = c^(Σ_l (i_l − t_l))``, i.e. ``A[x, z] = c^(|x| − ⟨x, z⟩)``: the tensor power of ``[[1, 1], [c, 1]]``, full
    rank; it passes the row condition for ``c = 3/2`` (``c^d > (d − 2)/2 + d − 1`` for ``d ≥ 2``), not for ``c = 11/10``."""
    return lambda cell: c ** sum(i - t for i, _, t in cell)


def m2_rank2(cell) -> Fraction:
    """The kernel ``A = J + e_{11} e_{00}ᵀ`` at ``m = 2``: all ones but ``A[11, 00] = 2``. Rank 2, one block (``k = 0``)."""
    return Fraction(2) if cell == ((2, 0, 0),) else Fraction(1)


THREE_HALVES = power(Fraction(3, 2))


#: name → the valid document (a function, so that the list is cheap to extend).
VALID = {
    "m2_s2_rank2": lambda: certificate([2], m2_rank2),
    "m2_s2_rank2_factored": lambda: certificate([2], m2_rank2, factored=True),
    "m4_s4_three_halves": lambda: certificate([4], THREE_HALVES),
    "m4_s4_three_halves_factored": lambda: certificate([4], THREE_HALVES, factored=True),
    "m4_s1_s3_three_halves": lambda: certificate([1, 3], THREE_HALVES),
    "m4_s2_s2_three_halves": lambda: certificate([2, 2], THREE_HALVES),
    # block (2) of the kernel above dropped: another kernel, still nonnegative and solving, of rank 16 − 2 = 14
    "m4_s4_three_halves_block_2_dropped": lambda: from_blocks([4], {k: v for k, v in S.blocks_of_kernel(
        [4], {c: THREE_HALVES(c) for c in cells([4])}).items() if k != (2,)}),
    "m4_s4_three_halves_with_a_note": lambda: certificate([4], THREE_HALVES, note="f = (3/2)^(|x| - <x, z>)"),
    "m6_s1_s2_s3_three_halves": lambda: certificate([1, 2, 3], THREE_HALVES),
    "m8_s8_three_halves": lambda: certificate([8], THREE_HALVES),
}


def valid() -> dict[str, tuple[str, str]]:
    """name → (file text, the verdict's first line)."""
    out = {}
    for name, make in VALID.items():
        doc = make()
        out[name] = (document_text(doc), f"VERIFIED: r*({doc['m']}, 3) ≤ {doc['rank_at_most']}")
    doc = VALID["m4_s4_three_halves"]()  # the keys in another order, indented: the same certificate
    out["m4_s4_three_halves_pretty_printed_keys_reordered"] = (
        json.dumps({k: doc[k] for k in ("blocks", "rank_at_most", "parts", "m", "schema")}, indent=2) + "\n",
        "VERIFIED: r*(4, 3) ≤ 16")
    return out


def _with(doc: dict, cell, value) -> dict:
    """The certificate of ``doc``'s kernel with ``f(cell) = value``: every block recomputed, ranks and total too."""
    parts = doc["parts"]
    f = S.kernel_from_blocks(parts, {tuple(b["index"]): [[Fraction(v) for v in row] for row in b["entries"]]
                                     for b in doc["blocks"]})
    f[cell] = Fraction(value)
    return certificate(parts, f)


def invalid() -> dict[str, tuple[dict, str, str]]:
    """name → (document, the step the rejection names, a phrase of it): well formed, the claim does not follow."""
    two, four, f13 = VALID["m2_s2_rank2"](), VALID["m4_s4_three_halves"](), VALID["m4_s1_s3_three_halves"]()
    out = {}
    d = copy.deepcopy(four)
    d["blocks"][0]["entries"][4][4] = number(_singular_value(d["blocks"][0]["entries"], 4, 4))
    out["block_entry_changed_so_that_its_rank_drops"] = (d, "rank", "block (0): the block has rank 4, not the listed 5")
    d = copy.deepcopy(four)
    d["blocks"][2]["entries"][0][0] = number(-100 * Fraction(d["blocks"][2]["entries"][0][0]))
    out["block_entry_times_minus_100"] = (d, "nonnegative", "< 0 at the cell")
    d = copy.deepcopy(four)
    d["blocks"][1]["rank"] = 2
    out["block_rank_lowered"] = (d, "rank", "block (1): the block has rank 3, not the listed 2")
    d = copy.deepcopy(four)
    d["rank_at_most"] = 15
    out["total_lowered_by_one"] = (d, "rank", "Σ_k mult(k)·rank B_k = 16, not rank_at_most = 15")
    out["total_raised_by_one"] = (dict(four, rank_at_most=17), "rank", "not rank_at_most = 17")
    out["block_dropped_total_lowered"] = (dict(four, blocks=four["blocks"][::2], rank_at_most=7), "row", "")
    zero = {"index": [1], "rank": 1, "entries": [[0]]}
    out["zero_block_added"] = (dict(two, blocks=two["blocks"] + [zero], rank_at_most=3), "rank",
                               "block (1): the block has rank 0, not the listed 1")
    out["nonzero_block_added_total_unchanged"] = (dict(two, blocks=two["blocks"] + [dict(zero, entries=[["1/10"]])]),
                                                  "rank", "= 3, not rank_at_most = 2")
    out["negative_block_added_total_raised"] = (dict(two, blocks=two["blocks"] + [dict(zero, entries=[["-5"]])],
                                                     rank_at_most=3), "nonnegative", "< 0 at the cell")
    out["parts_reordered_s1_s3_to_s3_s1"] = (dict(f13, parts=[3, 1], blocks=[
        dict(b, index=b["index"][::-1]) for b in f13["blocks"]]), "nonnegative", "< 0 at the cell")
    out["negative_cell"] = (_with(four, ((3, 1, 0),), "-1/2"), "nonnegative", "f = -1/2 < 0 at the cell ((3, 1, 0))")
    out["a0_zero_on_a_diagonal_cell"] = (_with(four, ((2, 2, 2),), 0), "row", "a₀ = f((2, 2, 2)) = 0, not positive")
    out["zero_below_the_top_level"] = (_with(four, ((2, 0, 0),), 0), "row", "f = 0 at the key cell ((2, 0, 0)) of level T = 0")
    out["row_inequality_violated_c_eleven_tenths"] = (certificate([4], power(Fraction(11, 10))), "row",
                                                       "queries of part weights (3), levels T = 0, s = 3")
    out["row_inequality_violated_c_eleven_tenths_s1_s3"] = (certificate([1, 3], power(Fraction(11, 10))), "row",
                                                             "queries of part weights (0, 3), levels T = 0, s = 3")
    out["row_inequality_violated_by_one_key_cell"] = (_with(four, ((2, 1, 0),), 1), "row",
                                                       "queries of part weights (2), levels T = 0, s = 2")
    d = copy.deepcopy(VALID["m2_s2_rank2_factored"]())
    b = d["blocks"][0]
    b["rank"], b["left"], b["right"] = 3, [row + [0] for row in b["left"]], [row + [1] for row in b["right"]]
    out["factor_padded_with_a_zero_column_rank_three_claimed"] = (dict(d, rank_at_most=3), "rank",
                                                                  "left has rank 2, not the listed 3")
    return out


def _singular_value(entries, i, j) -> Fraction:
    """The value of entry ``(i, j)`` that makes the matrix singular (the determinant is affine in it)."""
    def det(M):
        M = [[Fraction(v) for v in row] for row in M]
        out = Fraction(1)
        for c in range(len(M)):
            p = next((r for r in range(c, len(M)) if M[r][c]), None)
            if p is None:
                return Fraction(0)
            if p != c:
                M[c], M[p], out = M[p], M[c], -out
            out *= M[c][c]
            for r in range(c + 1, len(M)):
                M[r] = [a - M[r][c] / M[c][c] * b for a, b in zip(M[r], M[c])]
        return out

    at0 = [row[:] for row in entries]
    at0[i][j] = 0
    at1 = [row[:] for row in entries]
    at1[i][j] = 1
    d0, d1 = det(at0), det(at1)
    return -d0 / (d1 - d0)


def malformed() -> dict[str, tuple[bytes, str, str]]:
    """name → (file bytes, the field or step the message names, a phrase of it)."""
    two, four, f13 = VALID["m2_s2_rank2"](), VALID["m4_s4_three_halves"](), VALID["m4_s1_s3_three_halves"]()
    factored = VALID["m2_s2_rank2_factored"]()
    t2 = json.dumps(two)
    bad = Refusals()
    doc, raw = bad.doc, bad.raw

    def block(d, **changes):
        return dict(d, blocks=[dict(d["blocks"][0], **changes)] + d["blocks"][1:])

    # numbers: JSON integers in 0 … 2^53 − 1 or canonical "p/q" strings, one spelling each
    raw("float_entry", replace_once(t2, "[[1, 2, 1],", "[[1.0, 2, 1],"), "format", "number 1.0 is not an integer")
    raw("exponent_m", replace_once(t2, '"m": 2,', '"m": 2e0,'), "format", "number 2e0 is not an integer")
    raw("huge_integer_entry", replace_once(t2, "[[1, 2, 1],", "[[" + "9" * 30 + ", 2, 1],"), "format", "exceeds 2^53")
    raw("negative_integer_entry", replace_once(t2, "[[1, 2, 1],", "[[-1, 2, 1],"), "format", "is negative")
    raw("rank_at_most_negative", replace_once(t2, '"rank_at_most": 2', '"rank_at_most": -2'), "format", "is negative")
    doc("entry_not_in_lowest_terms", block(two, entries=[["2/2", 2, 1], [2, 4, 2], [2, 2, 1]]),
        "blocks[0].entries[0][0]", "not in lowest terms")
    doc("entry_as_a_decimal_string", block(two, entries=[["1.0", 2, 1], [2, 4, 2], [2, 2, 1]]),
        "blocks[0].entries[0][0]", "is not a rational")
    doc("entry_of_201_characters", block(two, entries=[["1/" + "3" * 199, 2, 1], [2, 4, 2], [2, 2, 1]]),
        "blocks[0].entries[0][0]", "at most 200")
    doc("entry_as_a_boolean", block(two, entries=[[True, 2, 1], [2, 4, 2], [2, 2, 1]]), "blocks[0].entries[0][0]",
        "a boolean")
    doc("m_as_a_string", dict(two, m="2"), "m", "got str '2'")
    doc("m_65_over_the_limit", dict(two, m=65, parts=[65]), "m", "from 1 to 64")
    doc("m_zero", dict(two, m=0), "m", "from 1 to 64")
    doc("rank_at_most_as_a_string", dict(two, rank_at_most="2"), "rank_at_most", "got str '2'")
    # the partition
    doc("parts_not_summing_to_m", dict(four, parts=[3]), "parts", "sum to 3, not m = 4")
    doc("parts_empty", dict(four, parts=[]), "parts", "an array of 0")
    doc("parts_with_a_zero", dict(four, parts=[0, 4]), "parts[0]", "from 1 to 64")
    doc("nine_parts", dict(four, m=9, parts=[1] * 9), "parts", "1 to 8 part sizes")
    doc("parts_changed_s1_s3_to_s2_s2", dict(f13, parts=[2, 2]), "blocks[1].rank", "from 1 to 3, got int 4")
    # the blocks
    doc("blocks_empty", dict(two, blocks=[]), "blocks", "nonempty array")
    doc("block_index_out_of_range", dict(four, blocks=four["blocks"][:2] + [dict(four["blocks"][2], index=[3])]),
        "blocks[2].index[0]", "from 0 to 2")
    doc("block_index_of_the_wrong_length", block(four, index=[0, 0]), "blocks[0].index", "an array of 1 integers")
    doc("blocks_unsorted", dict(four, blocks=[four["blocks"][1], four["blocks"][0], four["blocks"][2]]),
        "blocks[1].index", "[0] does not come after [1]")
    doc("block_listed_twice", dict(four, blocks=four["blocks"][:2] + four["blocks"][1:]), "blocks[2].index",
        "[1] does not come after [1]")
    doc("block_with_a_missing_row", block(four, entries=four["blocks"][0]["entries"][:4]), "blocks[0].entries",
        "expected 5 rows of 5 numbers, got an array of 4")
    doc("block_with_a_short_row", block(four, entries=[four["blocks"][0]["entries"][0][:4]]
                                        + four["blocks"][0]["entries"][1:]), "blocks[0].entries[0]",
        "expected an array of 5 numbers, got an array of 4")
    doc("block_rank_zero", block(two, rank=0), "blocks[0].rank", "from 1 to 3")
    doc("block_rank_above_its_dimension", block(two, rank=4), "blocks[0].rank", "from 1 to 3")
    d = copy.deepcopy(factored)
    d["blocks"][0]["right"] = [row + [0] for row in d["blocks"][0]["right"]]
    doc("left_right_width_mismatch", d, "blocks[0].right[0]", "expected an array of 2 numbers, got an array of 3")
    doc("factors_of_the_wrong_width", dict(factored, blocks=[dict(factored["blocks"][0], rank=1)], rank_at_most=1),
        "blocks[0].left[0]", "expected an array of 1 numbers, got an array of 2")
    doc("both_entries_and_factors", block(factored, entries=two["blocks"][0]["entries"]), "blocks[0]",
        "either entries or left and right")
    doc("left_without_right", dict(factored, blocks=[{k: v for k, v in factored["blocks"][0].items() if k != "right"}]),
        "blocks[0]", "either entries or left and right")
    doc("unknown_key_in_a_block", block(two, multiplicity=1), "blocks[0]", "either entries or left and right")
    # the document
    doc("unknown_key_extra", dict(two, extra=1), "document", "unknown key 'extra'")
    doc("unknown_key_rank_at_least", dict(two, rank_at_least=2), "document", "unknown key 'rank_at_least'")
    doc("schema_of_another_version", dict(two, schema="certify.symmetric-kernel/2"), "schema", "expected")
    doc("schema_missing", {k: v for k, v in two.items() if k != "schema"}, "schema", "missing")
    doc("rank_at_most_missing", {k: v for k, v in two.items() if k != "rank_at_most"}, "rank_at_most", "missing")
    doc("note_not_a_string", dict(two, note=["a"]), "note", "a string of at most 2000 characters")
    doc("note_of_2001_characters", dict(two, note="x" * 2001), "note", "a string of at most 2000 characters")
    raw("duplicate_key_m", replace_once(t2, '"m": 2,', '"m": 3, "m": 2,'), "format", "key 'm' appears twice")
    raw("not_json", "this is not JSON\n", "format", "invalid or truncated JSON")
    raw("truncated", t2[:len(t2) // 2], "format", "truncated JSON")
    raw("top_level_array", "[" + t2 + "]\n", "format", "expected a JSON object")
    raw("empty_file", "", "file", "empty")
    # the limits: each refused from the sizes, before the work
    doc("block_dimension_over_the_limit", {"schema": S.SCHEMA, "m": 32, "parts": [16, 16], "rank_at_most": 1,
                                           "blocks": [{"index": [0, 0], "rank": 1, "entries": [[1]]}]},
        "limits", "blocks[0] has dimension 289; at most 256")
    doc("work_over_the_limit", {"schema": S.SCHEMA, "m": 48, "parts": [24, 24], "rank_at_most": 1,
                                "blocks": [{"index": [12, 12], "rank": 1, "entries": [[1]]}]},
        "limits", "work estimate")
    return bad


def write(out: Path) -> dict:
    """Write the corpus under ``out`` (``valid/``, ``invalid/``, ``malformed/``, ``MANIFEST.json``); return it."""
    return write_corpus(out, valid(), invalid(), malformed())


if __name__ == "__main__":
    m = write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
    print(f"wrote {sum(len(v) for v in m.values())} files")
