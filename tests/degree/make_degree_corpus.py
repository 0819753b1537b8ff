"""Write the invariant-degree checker's corpus: valid, invalid (exit 1) and malformed (exit 2) files, named after the attack.

Run from the repository root: ``python tests/degree/make_degree_corpus.py``. Every file is a
``certify.invariant-degree/1`` certificate of ``certify.minrank.degree.degree_certificate`` with
one change, made here so that the change is exactly the attack its name says. MANIFEST.json
gives, for each file, the exit code of ``python certify/check_degree.py FILE``, and for a
refused file the step or field its one line names (``field``: what follows the path in
``REJECTED: FILE: field: …`` / ``MALFORMED: FILE: field: …``) and a phrase it contains
(``says``); for a valid file ``says`` is the whole verdict (two lines). tests/test_degree.py
checks both. The output is deterministic: running this twice writes the same bytes.
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MS = (2, 4, 12, 24, 48)

sys.path.insert(0, str(HERE.parent))
from corpus_files import Refusals, document_text, replace_once, write_corpus  # noqa: E402


def _docs() -> dict[int, dict]:
    from certify.minrank.degree import degree_certificate

    return {m: degree_certificate(m) for m in MS}


def _says(doc) -> str:
    from certify.check_degree import check, verdict

    return verdict(*check(doc))


def valid(docs):
    """name → (file text, the verdict)."""
    two, four, twelve, t24, t48 = (docs[m] for m in MS)
    scaled = dict(t48, polynomial=[f"{c}/3" if int(c) % 3 else str(int(c) // 3) for c in t48["polynomial"]],
                  multipliers=[[u, d, f"{y}/7" if y % 7 else y // 7] for u, d, y in t48["multipliers"]])
    out = {f"m{m}_degree_{docs[m]['degree']}": document_text(docs[m]) for m in MS}
    # rationals as "p/q" strings (a positive factor changes no sign), and the same text pretty-printed, keys reordered
    out["m48_polynomial_over_3_multipliers_over_7"] = document_text(scaled)
    out["m24_pretty_printed_keys_reordered"] = json.dumps(dict(reversed(list(t24.items()))), indent=2) + "\n"
    return {name: (text, _says(json.loads(text))) for name, text in out.items()}


def invalid(docs):
    """name → (document, the step the rejection names, a phrase of it): well formed, the claim does not follow."""
    two, four, twelve, t24, t48 = (docs[m] for m in MS)
    k = t48["degree"]
    out = {
        "degree_claimed_one_lower_with_its_polynomial_truncated": (
            dict(t48, degree=k - 1, polynomial=t48["polynomial"][:k]), "polynomial", "fails, the left side is"),
        "polynomial_violating_h0_positive": (dict(t24, polynomial=[0] + t24["polynomial"][1:]), "polynomial",
                                             "(u, d) = (0, 0): h(0) > 0 fails, the left side is 0"),
        "polynomial_violating_one_chain_condition": (dict(twelve, polynomial=[2, 0, 1]), "polynomial",
                                                     "(u, d) = (0, 3): h(3)"),
        "degree_claimed_one_higher_with_a_zero_coefficient_appended": (
            dict(t24, degree=4, polynomial=t24["polynomial"] + [0]), "polynomial", "the last coefficient c_4 is 0"),
        "claim_raised_by_one": (dict(t48, invariant_rank_at_least=t48["invariant_rank_at_least"] + 1), "claim",
                                "1 + min_(K ≤ k ≤ N) mult_k = 1517725"),
        "the_m24_certificate_claimed_for_m25": (dict(t24, m=25), "claim", "for M = 25"),
        "multipliers_emptied": (dict(t24, multipliers=[]), "gordan", "no multipliers"),
        "multiplier_dropped": (dict(t24, multipliers=t24["multipliers"][1:]), "gordan", "Σ y·L(C(·, 0)) = -6 ≠ 0"),
        "multiplier_on_a_condition_beyond_N": (dict(t24, multipliers=t24["multipliers"] + [[12, 2, 1]]), "gordan",
                                               "multipliers[3]: (u, d) = (12, 2) is no condition of N = 12"),
    }
    d = copy.deepcopy(t48)
    d["multipliers"][2][2] = f"-{d['multipliers'][2][2]}"
    out["a_multiplier_negative"] = (d, "gordan", "multipliers[2]: y = -225370 is not positive")
    d = copy.deepcopy(t48)
    d["multipliers"][0][2] += 1
    out["a_multiplier_changed_so_the_sum_is_not_zero"] = (d, "gordan", "≠ 0, so the multipliers do not exclude")
    return out


def malformed(docs):
    """name → (file bytes, the field or step the message names, a phrase of it)."""
    two, four, twelve, t24, t48 = (docs[m] for m in MS)
    t = json.dumps(t24)
    bad = Refusals()
    doc, raw = bad.doc, bad.raw

    # the strict reader (certify/check.py's loads): one spelling, integers only
    raw("float_in_the_polynomial", replace_once(t, '"polynomial": [3,', '"polynomial": [3.0,'), "format",
        "number 3.0 is not an integer")
    raw("exponent_m", replace_once(t, '"m": 24,', '"m": 2.4e1,'), "format", "is not an integer")
    raw("negative_integer_coefficient", replace_once(t, '"polynomial": [3,', '"polynomial": [-3,'), "format",
        "is negative")
    raw("duplicate_key_degree", replace_once(t, '"degree": 3,', '"degree": 2, "degree": 3,'), "format",
        "key 'degree' appears twice")
    raw("m_with_5001_digits", replace_once(t, '"m": 24,', '"m": ' + "1" * 5001 + ","), "format", "exceeds 2^53")
    raw("nested_100000_deep", replace_once(t, '"m": 24,', '"m": ' + "[" * 100_000 + "]" * 100_000 + ","), "format",
        "nested too deeply")
    raw("not_json", "this is not JSON\n", "format", "invalid or truncated JSON")
    raw("top_level_array", "[" + t + "]\n", "format", "expected a JSON object")
    raw("empty_file", "", "file", "empty")
    # the keys
    doc("unknown_key_extra", dict(t24, extra=1), "document", "unknown key 'extra'")
    doc("schema_of_another_version", dict(t24, schema="certify.invariant-degree/2"), "schema", "expected")
    doc("multipliers_missing", {k: v for k, v in t24.items() if k != "multipliers"}, "multipliers", "missing")
    # the limits, before any arithmetic
    doc("degree_above_N", dict(t24, degree=13), "degree", "from 0 to 12")
    doc("m_201_over_the_limit", dict(t24, m=201), "m", "from 1 to 200")
    doc("m_zero", dict(t24, m=0), "m", "from 1 to 200")
    doc("more_multipliers_than_conditions", dict(four, multipliers=[[0, 0, 1]] * 5), "multipliers",
        "expected an array of 0 to 4 entries, got an array of 5")
    doc("multipliers_given_at_degree_0", dict(two, multipliers=[[0, 0, 1]]), "multipliers",
        "expected an array of 0 entries, got an array of 1")
    doc("polynomial_one_coefficient_short", dict(t24, polynomial=t24["polynomial"][:3]), "polynomial",
        "expected an array of 4 entries, got an array of 3")
    doc("polynomial_coefficient_of_201_characters", dict(t24, polynomial=t24["polynomial"][:3] + ["1" * 201]),
        "polynomial[3]", "at most 200 allowed")
    big = 10**197  # 198 digits: "1/" and the denominator are 200 characters; 8 near-coprime ones pass 4,096 bits
    doc("multiplier_denominators_lcm_over_4096_bits", dict(t48, multipliers=[[u, 0, f"1/{big + u}"] for u in range(8)]),
        "limits", "multipliers: the lcm of the denominators exceeds 2^4096")
    # the entries
    d = copy.deepcopy(t24)
    d["multipliers"][1][1] = 1
    doc("multiplier_with_d_1", d, "multipliers[1][1]", "d = 1 is no condition")
    d = copy.deepcopy(t24)
    d["multipliers"][0], d["multipliers"][1] = d["multipliers"][1], d["multipliers"][0]
    doc("multipliers_out_of_order", d, "multipliers[1]", "repeated or out of order")
    d = copy.deepcopy(t24)
    d["multipliers"][1] = d["multipliers"][0]
    doc("multiplier_repeated", d, "multipliers[1]", "repeated or out of order")
    d = copy.deepcopy(t24)
    d["multipliers"][0] = d["multipliers"][0] + [1]
    doc("multiplier_of_four_entries", d, "multipliers[0]", "expected an array of 3 entries, got an array of 4")
    doc("coefficient_not_in_lowest_terms", dict(t24, polynomial=["6/2"] + t24["polynomial"][1:]), "polynomial[0]",
        "not in lowest terms")
    doc("coefficient_with_zero_denominator", dict(t24, polynomial=["1/0"] + t24["polynomial"][1:]), "polynomial[0]",
        "is not a rational")
    doc("coefficient_as_a_decimal_string", dict(t24, polynomial=["3.0"] + t24["polynomial"][1:]), "polynomial[0]",
        "is not a rational")
    doc("coefficient_as_a_boolean", dict(t24, polynomial=[True] + t24["polynomial"][1:]), "polynomial[0]",
        "a boolean")
    doc("claim_as_a_fraction", dict(t24, invariant_rank_at_least="3497/2"), "invariant_rank_at_least",
        "expected a positive integer")
    return bad


def write(out: Path) -> dict:
    """Write the corpus under ``out`` (``valid/``, ``invalid/``, ``malformed/``, ``MANIFEST.json``); return it."""
    docs = _docs()
    return write_corpus(out, valid(docs), invalid(docs), malformed(docs))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    m = write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
    print(f"wrote {sum(len(v) for v in m.values())} files")
