"""Write the obstruction-checker corpus: valid, invalid (exit 1) and malformed (exit 2) files, named after the attack.

Run from the repository root: ``python tests/minrank/make_obstruction_corpus.py``. Every file is
a ``certify.minrank-lower/1`` certificate (``certify.minrank.lower``, or the committed
docs/results/minrank/m8.lower.regions.json) with one change, made here so that the change is
exactly the attack its name says. MANIFEST.json gives, for each file, the exit code of
``python certify/check_obstruction.py FILE`` and the field or step its one line names
(``field``: what follows the path in ``MALFORMED: FILE: field: …`` / ``REJECTED: FILE: field: …``)
and a phrase it contains (``says``); tests/test_obstruction_checker.py checks both.
The output is deterministic: running this twice writes the same bytes.
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
from corpus_files import Refusals, document_text, replace_once, write_corpus  # noqa: E402


def _docs():
    from certify.minrank.lower import obstruction_certificate

    four, five, six = (obstruction_certificate(m) for m in (4, 5, 6))
    regions = json.loads((ROOT / "docs" / "results" / "minrank" / "m8.lower.regions.json").read_text())
    return four, five, six, regions


def valid(four, five, six, regions):
    """name → (file text, the verdict line)."""
    out = {
        "m4_orders_rank2": (document_text(four), "VERIFIED: r*(4, 3) ≥ 2"),
        "m5_orders_rank3": (document_text(five), "VERIFIED: r*(5, 3) ≥ 3"),
        "m6_orders_rank3": (document_text(six), "VERIFIED: r*(6, 3) ≥ 3"),
        "m8_regions_rank2": (document_text(regions), "VERIFIED: r*(8, 3) ≥ 2"),
        # the orientation of a listed pair does not matter: every orientation is tried
        "m5_orders_rank3_every_pair_written_z_y": (document_text(dict(five, pairs=[[z, y] for y, z in five["pairs"]])),
                                                    "VERIFIED: r*(5, 3) ≥ 3"),
        "m5_orders_rank3_argument_written_out": (document_text(dict(five, argument="orders")), "VERIFIED: r*(5, 3) ≥ 3"),
        "m5_orders_rank3_pretty_printed_keys_reordered": (
            json.dumps({k: five[k] for k in ("pairs", "rank_at_least", "m", "schema")}, indent=2) + "\n",
            "VERIFIED: r*(5, 3) ≥ 3"),
    }
    # "disjoint-queries" (docs/math.md §11, the pair queries); its files start with "queries_" in every folder
    eight, forty_eight = _queries(8), _queries(48)
    out["queries_m8_rank4"] = (document_text(eight), "VERIFIED: r*(8, 3) ≥ 4")
    out["queries_m48_rank24"] = (document_text(forty_eight), "VERIFIED: r*(48, 3) ≥ 24")
    weight_three = ["111000000", "000111000", "000000111"]  # any weight ≥ 2 and any disjoint supports will do
    out["queries_m9_weight_three_rank3"] = (document_text(dict(eight, m=9, rank_at_least=3, queries=weight_three)),
                                            "VERIFIED: r*(9, 3) ≥ 3")
    out["queries_m8_rank3_claimed_below_the_four_queries"] = (document_text(dict(eight, rank_at_least=3)),
                                                               "VERIFIED: r*(8, 3) ≥ 3")
    return out


def _queries(m: int) -> dict:
    from certify.minrank.lower import pairs_certificate

    return pairs_certificate(m)


def invalid(four, five, six, regions):
    """name → (document, the field the rejection names, a phrase of it): well formed, the claim does not follow."""
    eight = _queries(8)
    q8 = eight["queries"]
    return {
        "rank_three_claimed_from_the_m4_pair": (dict(four, rank_at_least=3), "rank_at_least", "3 does not follow"),
        "rank_three_claimed_with_the_last_pair_dropped": (dict(five, pairs=five["pairs"][:-1]), "rank_at_least",
                                                          "without a cycle"),
        "rank_three_claimed_from_the_first_pair_listed_five_times": (dict(five, pairs=[five["pairs"][0]] * 5),
                                                                     "rank_at_least", "without a cycle"),
        "rank_three_claimed_at_m4_from_the_m5_pairs_truncated": (
            dict(five, m=4, pairs=[[y[:4], z[:4]] for y, z in five["pairs"]]), "pairs[0]", "P is empty"),
        "rank_three_claimed_with_a_pair_that_orders_nothing": (dict(five, pairs=five["pairs"] + [["00000", "11111"]]),
                                                               "pairs[5]", "Q is empty"),
        "rank_two_claimed_from_a_pair_with_one_side_empty": (dict(four, pairs=[["0000", "1111"]]), "pairs",
                                                              "no listed pair has queries on both sides"),
        "regions_rank_three_claimed_from_the_m8_patterns": (dict(regions, rank_at_least=3), "rank_at_least",
                                                            "cells(2, 2) = 4"),
        "regions_rank_two_claimed_from_the_first_pair_alone": (dict(regions, pairs=regions["pairs"][:1]),
                                                               "rank_at_least", "cells(1, 1) = 2"),
        "regions_rank_two_claimed_from_the_m5_order_pairs": (dict(five, argument="regions", rank_at_least=2),
                                                             "rank_at_least", "0 distinct full sign patterns"),
        **{f"queries_{name}": (dict(eight, **change), field, says) for name, change, field, says in (
            ("the_last_overlapping_the_second", {"queries": q8[:3] + ["00110000"]}, "queries[3]",
             "shares coordinate 2 with queries[1]"),
            ("the_first_listed_twice", {"queries": q8[:1] + q8[:1] + q8[2:]}, "queries[1]",
             "shares coordinate 0 with queries[0]"),
            ("one_of_weight_one", {"queries": ["10000000"] + q8[1:]}, "queries[0]", "weight 1; "),
            ("rank5_claimed_from_four", {"rank_at_least": 5}, "rank_at_least", "5 does not follow: 4 disjoint"),
        )},
    }


def malformed(four, five, six, regions):
    """name → (file bytes, the field or step the message names, a phrase of it)."""
    t5 = json.dumps(five)
    bad = Refusals()
    doc, raw = bad.doc, bad.raw

    # one spelling per document: no other key, no key twice
    doc("unknown_key_extra", dict(five, extra=1), "document", "unknown key 'extra'")
    doc("unknown_key_producer", dict(five, producer={"tool": "certify"}), "document", "unknown key 'producer'")
    d = {("Rank_at_least" if k == "rank_at_least" else k): v for k, v in five.items()}
    doc("unknown_key_rank_at_least_with_a_capital", d, "document", "unknown key 'Rank_at_least'")
    raw("duplicate_key_m", replace_once(t5, '"m": 5,', '"m": 12, "m": 5,'), "format", "key 'm' appears twice")
    raw("duplicate_key_rank_at_least", replace_once(json.dumps(four), '"rank_at_least": 2,',
                                                '"rank_at_least": 2, "rank_at_least": 3,'),
        "format", "key 'rank_at_least' appears twice")
    raw("duplicate_key_pairs", replace_once(t5, '"pairs":', '"pairs": [], "pairs":'), "format", "key 'pairs' appears twice")
    raw("duplicate_key_schema", replace_once(t5, '"m": 5,', '"schema": "x", "m": 5,'), "format",
        "key 'schema' appears twice")
    # numbers: integers only, one spelling, in range
    raw("m_with_5001_digits", replace_once(t5, '"m": 5,', '"m": ' + "1" * 5001 + ","), "m", "exceeds 2^53")
    raw("float_m", replace_once(t5, '"m": 5,', '"m": 5.0,'), "m", "is not an integer")
    raw("exponent_m", replace_once(t5, '"m": 5,', '"m": 5e0,'), "m", "is not an integer")
    raw("negative_m", replace_once(t5, '"m": 5,', '"m": -5,'), "m", "is negative")
    raw("rank_at_least_minus_zero", replace_once(t5, '"rank_at_least": 3,', '"rank_at_least": -0,'), "rank_at_least",
        "is negative")
    raw("nan_rank_at_least", replace_once(t5, '"rank_at_least": 3,', '"rank_at_least": NaN,'), "rank_at_least",
        "not a JSON number")
    raw("infinity_m", replace_once(t5, '"m": 5,', '"m": Infinity,'), "m", "not a JSON number")
    raw("float_inside_a_pair", replace_once(t5, '["01100", "10001"]', '["01100", 1.5]'), "pairs[0][1]",
        "is not an integer")
    doc("m_as_a_string", dict(five, m="5"), "m", "got str '5'")
    doc("rank_at_least_as_a_boolean", dict(five, rank_at_least=True), "rank_at_least", "a boolean")
    doc("m_13_over_the_limit", dict(five, m=13), "m", "from 2 to 12")
    doc("m_one", dict(five, m=1), "m", "from 2 to 12")
    doc("rank_four_claimed_by_orders", dict(five, rank_at_least=4), "rank_at_least", "2 or 3")
    doc("regions_rank_18_claimed", dict(regions, rank_at_least=18), "rank_at_least", "from 2 to 17")
    # the fields
    doc("schema_of_another_version", dict(five, schema="certify.minrank-lower/2"), "schema", "expected")
    doc("schema_missing", {k: v for k, v in five.items() if k != "schema"}, "schema", "missing")
    doc("rank_at_least_missing", {k: v for k, v in five.items() if k != "rank_at_least"}, "rank_at_least", "missing")
    doc("argument_votes", dict(five, argument="votes"), "argument", "'orders' or 'regions'")
    doc("pairs_missing", {k: v for k, v in five.items() if k != "pairs"}, "pairs", "missing")
    doc("pairs_empty", dict(five, pairs=[]), "pairs", "an array of 0")
    doc("pairs_null", dict(five, pairs=None), "pairs", "got null")
    doc("seventeen_pairs", dict(five, pairs=[five["pairs"][0]] * 17), "pairs", "an array of 17")
    doc("pair_with_three_tokens", dict(five, pairs=[five["pairs"][0] + ["00011"]] + five["pairs"][1:]), "pairs[0]",
        "an array of 3")
    doc("pair_as_an_object", dict(five, pairs=[{"y": "01100", "z": "10001"}]), "pairs[0]", "an object")
    doc("token_of_length_4_at_m5", dict(five, pairs=[["0110", "10001"]] + five["pairs"][1:]), "pairs[0][0]",
        "length 4")
    d = copy.deepcopy(five)
    d["pairs"][2][1] = "010a1"
    doc("token_with_a_letter", d, "pairs[2][1]", "character 3 is 'a'; tokens are 0/1 strings")
    d = copy.deepcopy(five)
    d["pairs"][0][0] = 1100
    doc("token_as_an_integer", d, "pairs[0][0]", "got int 1100")
    raw("token_spelled_with_a_unicode_escape", replace_once(t5, '"01100", "10001"', '"\\u00301100", "10001"'), "format",
        "escape sequence \\u0030")
    raw("schema_with_an_escaped_slash", replace_once(t5, "lower/1", "lower\\/1"), "format", "escape sequence \\/")
    # the text itself
    raw("utf16_bom", t5.encode("utf-16"), "format", "not UTF-8")
    raw("utf8_bom", b"\xef\xbb\xbf" + t5.encode(), "format", "BOM")
    raw("latin1_byte_in_a_token", replace_once(t5, '"10001"]]', '"1000\xe9"]]').encode("latin-1"), "format", "not UTF-8")
    raw("nested_100000_deep", replace_once(t5, '"m": 5,', '"m": ' + "[" * 100_000 + "]" * 100_000 + ","), "format",
        "nested too deeply")
    raw("not_json", "this is not JSON\n", "format", "invalid or truncated JSON")
    raw("truncated", t5[:len(t5) // 2], "format", "truncated JSON")
    raw("second_document_after_the_first", t5 + t5 + "\n", "format", "Extra data")
    raw("top_level_array", "[" + t5 + "]\n", "format", "expected a JSON object")
    raw("empty_file", "", "file", "empty")
    raw("only_whitespace", " \n\t\n", "file", "empty")
    # the work: a true but costly certificate (16 large pairs at m = 12: hours of orientations) is refused from counts
    from certify.minrank.lower import obstruction_certificate

    core = obstruction_certificate(12)["pairs"]
    extra = [["1" * k + "0" * (12 - k), "0" * (12 - k) + "1" * k] for k in range(2, 13)]
    doc("orientation_work_over_the_limit", dict(five, m=12, pairs=core + extra), "pairs", "edge steps")
    # "disjoint-queries": its own keys (queries, not pairs; the argument named), tokens and limits
    eight = _queries(8)
    q8 = eight["queries"]
    doc("queries_token_of_length_7_at_m8", dict(eight, queries=[q8[0], q8[1][:7]] + q8[2:]), "queries[1]",
        "token has length 7")
    doc("queries_token_with_a_2", dict(eight, queries=q8[:2] + ["00001200", q8[3]]), "queries[2]",
        "character 5 is '2'")
    doc("queries_with_pairs_also_given", dict(eight, pairs=five["pairs"]), "document",
        "key 'pairs' does not go with the argument 'disjoint-queries'")
    doc("queries_missing", {k: v for k, v in eight.items() if k != "queries"}, "queries", "missing required key")
    doc("queries_without_the_argument", {k: v for k, v in eight.items() if k != "argument"}, "document",
        "key 'queries' does not go with the argument 'orders' (the default)")
    doc("queries_empty", dict(eight, queries=[]), "queries", "got an empty array")
    doc("queries_m_1025_over_the_limit", dict(eight, m=1025), "m", "from 2 to 1024")
    doc("queries_rank_at_least_zero", dict(eight, rank_at_least=0), "rank_at_least", "from 1 to 2^53 - 1")
    return bad


def write(out: Path) -> dict:
    """Write the corpus under ``out`` (``valid/``, ``invalid/``, ``malformed/``, ``MANIFEST.json``); return it."""
    docs = _docs()
    return write_corpus(out, valid(*docs), invalid(*docs), malformed(*docs))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    m = write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
    print(f"wrote {sum(len(v) for v in m.values())} files")
