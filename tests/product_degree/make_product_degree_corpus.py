"""Write the product-degree corpus: valid, invalid (exit 1) and malformed (exit 2) files, named after the attack.

Run from the repository root: ``python tests/product_degree/make_product_degree_corpus.py``.
Every file is a ``certify.product-degree/1`` certificate of
``certify.minrank.product_degree.certificate`` (the small grids of Proposition 11.12, docs/math.md
§11) with one change, made here so that the change is exactly the attack its name says.
MANIFEST.json gives, for each file, the exit code of ``python certify/check_degree.py FILE``, and
for a refused file the step or field its one line names and a phrase it contains (``says``); for
a valid file ``says`` is the whole verdict (two lines). tests/test_product_degree.py checks both.
The output is deterministic: running this twice writes the same bytes.
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GRIDS = ((5, 5), (5, 4), (4, 4, 4), (4, 4), (5,), (3, 3, 3, 3))


sys.path.insert(0, str(HERE.parent))
from corpus_files import Refusals, document_text, replace_once, write_corpus  # noqa: E402


def _docs() -> dict[tuple, dict]:
    from certify.minrank.product_degree import certificate

    return {ns: certificate(ns) for ns in GRIDS}


def _says(doc) -> str:
    from certify.check_degree import check_product, product_verdict

    return product_verdict(*check_product(doc))


def _entries(doc: dict, entries: list) -> dict:
    """``doc`` with these multipliers, sorted by ``(p, q)`` as the format asks."""
    return dict(doc, multipliers=sorted(entries))


def _swap(doc: dict) -> dict:
    """The two parts exchanged everywhere: in ``N``, ``degrees`` and every point."""
    return _entries(dict(doc, N=doc["N"][::-1], degrees=doc["degrees"][::-1]),
                    [[p[::-1], q[::-1], y] for p, q, y in doc["multipliers"]])


def _by_a_hair(doc: dict, index: int) -> dict:
    """The witness times 1,000 with its coefficient ``index`` raised by ones until it just breaks a condition."""
    from certify.check_degree import DegreeRejected, check_product

    poly = [int(c) * 1000 for c in doc["polynomial"]]
    while True:
        poly[index] += 1
        d = dict(doc, polynomial=[str(c) for c in poly])
        try:
            check_product(d)
        except DegreeRejected:
            return d


def valid(docs):
    """name → (file text, the verdict)."""
    five, mixed, three, two, one, four = (docs[ns] for ns in GRIDS)
    out = {"N5x2_infeasible": five, "N5-4_infeasible": mixed, "N4x3_infeasible": three, "N4x2_feasible": two,
           "N5_feasible": one, "N3x4_feasible": four}
    out = {name: document_text(d) for name, d in out.items()}
    # rationals as "p/q" strings (a positive factor changes no sign)
    out["N4x3_multipliers_over_7"] = document_text(dict(three, multipliers=[
        [p, q, f"{y}/7" if y % 7 else y // 7] for p, q, y in three["multipliers"]]))
    out["N3x4_witness_over_3"] = document_text(dict(four, polynomial=[
        f"{c}/3" if int(c) % 3 else str(int(c) // 3) for c in four["polynomial"]]))
    # a multiplier is on the sum over the group: another point of the same orbit of (p, q) is the same combination
    moved = [[p[::-1], q[::-1], y] if p == [0, 4] else [p, q, y] for p, q, y in five["multipliers"]]
    assert moved != five["multipliers"]
    out["N5x2_an_entry_replaced_by_another_point_of_its_orbit"] = document_text(_entries(five, moved))
    out["N4-5_the_mixed_certificate_with_its_parts_swapped"] = document_text(_swap(mixed))
    out["N5x2_pretty_printed_keys_reordered"] = json.dumps(dict(reversed(list(five.items()))), indent=2) + "\n"
    return {name: (text, _says(json.loads(text))) for name, text in out.items()}


def invalid(docs):
    """name → (document, the step the rejection names, a phrase of it): well formed, the claim does not follow."""
    five, mixed, three, two, one, four = (docs[ns] for ns in GRIDS)
    out = {}
    d = copy.deepcopy(five)
    d["multipliers"][0][2] += 1
    out["a_multiplier_changed_so_the_combination_does_not_vanish"] = (d, "gordan", "≠ 0 at e = (0, 0)")
    d = copy.deepcopy(three)
    d["multipliers"][2][2] = f"-{d['multipliers'][2][2]}"
    out["a_multiplier_negative"] = (d, "gordan", "multipliers[2]: y = -3 is not positive")
    out["multipliers_all_zero"] = (dict(five, multipliers=[[p, q, 0] for p, q, _ in five["multipliers"]]), "gordan",
                                   "multipliers[0]: y = 0 is not positive")
    out["multipliers_emptied"] = (dict(five, multipliers=[]), "gordan", "no multipliers")
    out["multiplier_dropped"] = (dict(five, multipliers=five["multipliers"][1:]), "gordan", "≠ 0 at e = (0, 0)")
    # the parts of the mixed grid are not interchangeable (N differs): a point moved to the other part is another
    # condition, and no averaging makes it the same
    moved = [[p[::-1], q, y] if p == [0, 4] and q == [3, 3] else [p, q, y] for p, q, y in mixed["multipliers"]]
    out["an_entry_moved_across_parts_of_unequal_N"] = (_entries(mixed, moved), "gordan", "≠ 0 at e = ")
    out["a_part_enlarged_so_top_moves"] = (dict(three, N=[4, 4, 5]), "gordan", "≠ 0 at e = ")
    out["claim_raised_to_degree_2_in_one_part"] = (dict(mixed, degrees=[2, 1]), "gordan", "≠ 0 at e = (2, 0)")
    out["witness_violating_one_condition_by_a_hair"] = (
        _by_a_hair(two, 0), "witness", "p = (0, 0), q = (2, 2): h(p) > 3·h(q) + (2/2)·h(top) fails, the left side less "
        "the right is -2")
    out["witness_meeting_one_condition_with_equality"] = (
        _by_a_hair(two, 1), "witness", "p = (0, 0), q = (2, 2): h(p) > 3·h(q) + (2/2)·h(top) fails, the left side less "
        "the right is 0")
    out["witness_zero_at_a_point"] = (dict(one, polynomial=[25, "-5"]), "witness", "p = (5,): h(p) > 0 fails, "
                                      "h(p) = 0")
    # h(t_1, t_2) of the feasible two parts, constant in a third: a witness claimed for a grid it does not solve
    out["the_two_part_witness_claimed_for_three_parts"] = (
        dict(two, N=[4, 4, 4], degrees=[1, 1, 1], polynomial=[c for c in two["polynomial"] for c in (c, 0)]),
        "witness", "fails, the left side less the right is")
    out["the_N4x2_witness_claimed_for_N5-4"] = (dict(two, N=[5, 4]), "witness", "p = (5, 0): h(p) > 0 fails, h(p) = -5")
    return out


def malformed(docs):
    """name → (file bytes, the field or step the message names, a phrase of it)."""
    five, mixed, three, two, one, four = (docs[ns] for ns in GRIDS)
    t = json.dumps(three)
    bad = Refusals()
    doc, raw = bad.doc, bad.raw

    # the strict reader (certify/check.py's loads)
    raw("float_in_a_point", replace_once(t, '[[[0, 0, 0], [1, 1, 2], 4]', '[[[0, 0, 0.0], [1, 1, 2], 4]'), "format",
        "number 0.0 is not an integer")
    raw("duplicate_key_claim", replace_once(t, '"claim": "infeasible",', '"claim": "feasible", "claim": "infeasible",'),
        "format", "key 'claim' appears twice")
    raw("not_json", "this is not JSON\n", "format", "invalid or truncated JSON")
    raw("empty_file", "", "file", "empty")
    # the keys
    doc("schema_of_another_version", dict(three, schema="certify.product-degree/2"), "schema",
        "expected 'certify.product-degree/1'")
    doc("claim_unknown", dict(three, claim="maybe"), "claim", "expected \"feasible\" or \"infeasible\"")
    doc("claim_flipped_keeping_the_multipliers", dict(three, claim="feasible"), "document",
        "unknown key 'multipliers'")
    doc("polynomial_missing", {k: v for k, v in two.items() if k != "polynomial"}, "polynomial", "missing")
    doc("unknown_key_extra", dict(three, extra=1), "document", "unknown key 'extra'")
    # the limits, before any arithmetic
    doc("N_of_17_parts", dict(three, N=[1] * 17), "N", "expected an array of 1 to 16 entries, got an array of 17")
    doc("N_empty", dict(three, N=[]), "N", "expected an array of 1 to 16 entries, got an array of 0")
    doc("N_with_a_part_of_zero", dict(three, N=[4, 0, 4]), "N[1]", "from 1 to 100")
    doc("levels_over_the_limit", dict(five, N=[51, 50]), "limits", "Σ N_l = 101 (at most 100)")
    doc("grid_over_the_limit", dict(three, N=[2] * 12, degrees=[1] * 12), "limits",
        "Π (N_l + 1) = 531,441 (at most 65,536)")
    doc("degree_above_N", dict(one, degrees=[6]), "degrees[0]", "from 0 to 5")
    doc("degrees_one_short", dict(three, degrees=[1, 1]), "degrees", "expected an array of 3 entries, got an array "
        "of 2")
    doc("polynomial_one_coefficient_short", dict(two, polynomial=two["polynomial"][:3]), "polynomial",
        "expected an array of 4 entries, got an array of 3")
    orbits = {"schema": five["schema"], "claim": "infeasible", "N": [1] * 16, "degrees": [1] * 16,  # 12,871 each
              "multipliers": [[[0] * i + [1] * 8 + [0] * (8 - i), [1] * 16, 1] for i in range(8, -1, -1)]}
    doc("orbits_over_the_point_limit", orbits, "limits", "the orbits of the first 6 have over 65,536 points")
    big = 10**197  # 198 digits: "1/" and the denominator are 200 characters; 8 near-coprime ones pass 4,096 bits
    doc("multiplier_denominators_lcm_over_4096_bits", dict(five, multipliers=[
        [[u, 0], [u, i], f"1/{big + 4 * u + i}"] for u in (0, 1) for i in range(2, 6)]),
        "limits", "multipliers: the lcm of the denominators exceeds 2^4096")
    # the entries
    d = copy.deepcopy(three)
    d["multipliers"][0][0] = [0, 0]
    doc("point_of_the_wrong_length", d, "multipliers[0][0]", "expected an array of 3 entries, got an array of 2")
    doc("parts_swapped_so_a_point_leaves_the_grid", dict(mixed, N=[4, 5]), "multipliers[3][0][0]", "from 0 to 4")
    d = copy.deepcopy(three)
    d["multipliers"][1][1] = [1, 1, 1]  # |q| − |p| = 3 − 4
    doc("multiplier_with_q_below_p", d, "multipliers[1]", "|q| − |p| = -1 is no condition")
    d = copy.deepcopy(three)
    d["multipliers"][0][1] = [0, 0, 1]
    doc("multiplier_with_d_1", d, "multipliers[0]", "|q| − |p| = 1 is no condition")
    d = copy.deepcopy(three)
    d["multipliers"][0], d["multipliers"][1] = d["multipliers"][1], d["multipliers"][0]
    doc("multipliers_out_of_order", d, "multipliers[1]", "repeated or out of order")
    d = copy.deepcopy(three)
    d["multipliers"][1] = d["multipliers"][0]
    doc("multiplier_repeated", d, "multipliers[1]", "repeated or out of order")
    doc("coefficient_not_in_lowest_terms", dict(two, polynomial=["130/2"] + two["polynomial"][1:]), "polynomial[0]",
        "not in lowest terms")
    return bad


def write(out: Path) -> dict:
    """Write the corpus under ``out`` (``valid/``, ``invalid/``, ``malformed/``, ``MANIFEST.json``); return it."""
    docs = _docs()
    return write_corpus(out, valid(docs), invalid(docs), malformed(docs))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    m = write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
    print(f"wrote {sum(len(v) for v in m.values())} files")
