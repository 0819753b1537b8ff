"""Regenerate the certificate corpus: ``python tests/certificates/make_corpus.py``.

Three folders, VIPR/VeriPB style:

* ``valid/``     — certificates the checker must verify (exit 0);
* ``invalid/``   — well-formed files whose data do not prove their claim (exit 1),
  each named after the attack it covers;
* ``malformed/`` — unreadable or ill-formed files (exit 2).

``MANIFEST.json`` records, for every file, the expected exit code, the step that
must fail (for invalid/malformed files) and what the attack is. The expectations are
written here by hand, next to each attack; ``tests/test_check_corpus.py`` compares
them with what the checker actually does. Unless an attack is about the hash itself,
the attacked file carries a *recomputed* ``sha256``: the attacker can always do that,
so the mathematics, not the hash, must catch the edit.
"""
from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from certify.certificates.compact import build_compact_certificate  # noqa: E402
from certify.certificates.producer import assemble, build_certificate, dumps, rank_nine_certificate  # noqa: E402
from certify.certificates.rank_bound import make_plan  # noqa: E402
from certify.certificates.unique_minimizer import unique_minimizer_certificate  # noqa: E402
from certify.check import content_hash  # noqa: E402
from certify.lemmas.sharper import Argument  # noqa: E402
from codes import BinaryCode, ConstantWeightCode, hadamard_code, load_code, rank_nine_code  # noqa: E402
from witnesses import Input, build_family  # noqa: E402
from fractions import Fraction  # noqa: E402

sys.set_int_max_str_digits(0)  # the huge-number attacks below are built exactly

MANIFEST: dict[str, dict] = {}


def small_code() -> ConstantWeightCode:
    """Rows 1–3 of the order-12 Paley Hadamard code and the complement of row 1 (m = 12)."""
    h = hadamard_code(12)
    return ConstantWeightCode(
        12, 6, (h.words[0], h.words[1], h.words[2], h.words[11]),
        "rows 1–3 of the normalized Paley Hadamard matrix of order 12 and the complement of row 1",
    )


def small(plan: str = "paper", length: int = 3, error: Fraction = Fraction(1, 2)) -> dict:
    return build_certificate(build_family(small_code(), plan, length), error)


def rehash(cert: dict) -> dict:
    cert["sha256"] = content_hash(cert)
    return cert


def bits(x: int, m: int = 12) -> str:
    return format(x, f"0{m}b")[::-1]


def flip(s: str, k: int) -> str:
    return s[:k] + ("1" if s[k] == "0" else "0") + s[k + 1:]


def emit(folder: str, name: str, content, exit_code: int, step: str | None, attack: str) -> None:
    path = HERE / folder / name
    if isinstance(content, dict):
        path.write_text(dumps(content) + "\n", encoding="utf-8")
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    MANIFEST[f"{folder}/{name}"] = {"exit": exit_code, "step": step, "attack": attack}


def valid() -> None:
    emit("valid", "rank_nine_paper.json", rank_nine_certificate("paper"), 0, None,
         "the rank-nine certificate, paper chains (r ≥ 9)")
    emit("valid", "rank_nine_direct.json", rank_nine_certificate("direct"), 0, None,
         "the rank-nine certificate, direct chains (r ≥ 10)")
    emit("valid", "small_paper.json", small("paper"), 0, None, "4 words of length 12, paper chains")
    emit("valid", "small_direct.json", small("direct"), 0, None, "4 words of length 12, direct chains")
    emit("valid", "small_length_four.json", small("paper", length=4), 0, None,
         "exact length 4: witnesses (x,y,y,y), (x,z,z,z), (x,y,z,z)")
    emit("valid", "small_error_quarter.json", small("paper", error=Fraction(1, 4)), 0, None,
         "error < 1/4: each gap-3 jump is worth μ = 5")
    c = small()
    c["claim"]["rank_at_least"] -= 1
    emit("valid", "weaker_claim.json", rehash(c), 0, None, "claims less than the data prove: still true")
    c = small()
    c["chains"].reverse()
    emit("valid", "chains_reordered.json", rehash(c), 0, None, "chain order carries no meaning")


def invalid() -> None:
    c = rank_nine_certificate("paper")
    c["claim"]["rank_at_least"] = 10
    emit("invalid", "paper_chains_claim_raised_to_ten.json", rehash(c), 1, "claim",
         "the rank-nine paper certificate edited to claim r ≥ 10")

    c = small()
    c["claim"]["rank_at_least"] += 1
    emit("invalid", "claim_raised.json", rehash(c), 1, "claim", "claim one above what the data prove")

    c = small()
    c["claim"]["rank_at_least"] -= 1
    emit("invalid", "broken_hash.json", c, 1, "integrity", "a harmless edit without updating sha256")

    c = small()
    c["family"]["inputs"][5]["tokens"][1] = flip(c["family"]["inputs"][5]["tokens"][1], 0)
    emit("invalid", "flipped_bit_in_input_token.json", rehash(c), 1, "family",
         "one bit of one witness token flipped (target no longer matches)")

    c = small()
    inp = c["family"]["inputs"][5]
    inp["tokens"][2] = flip(inp["tokens"][2], 11)
    toks = [int(s[::-1], 2) for s in inp["tokens"]]
    inp["target"] = min((toks[0] & x).bit_count() for x in toks)
    emit("invalid", "flipped_bit_in_input_token_target_fixed.json", rehash(c), 1, "jumps",
         "one witness token bit flipped and its target recomputed: the witness no longer matches its jump")

    c = small()
    c["code"]["words"][1] = flip(c["code"]["words"][1], 0)
    emit("invalid", "flipped_bit_in_codeword.json", rehash(c), 1, "code", "one codeword bit flipped")

    c = small()
    c["jumps"][3]["z"] = flip(c["jumps"][3]["z"], 0)
    emit("invalid", "flipped_bit_in_jump_key.json", rehash(c), 1, "jumps", "one bit of a jump's worse key flipped")

    c = small()
    wit = c["jumps"][0]["witnesses"]
    wit[0], wit[2] = wit[2], wit[0]
    emit("invalid", "swapped_witnesses.json", rehash(c), 1, "jumps", "witnesses Y and W of a jump swapped")

    c = small()
    j = c["jumps"][0]
    dropped = j["witnesses"][2]
    j["witnesses"][2] = j["witnesses"][0]
    del c["family"]["inputs"][dropped]
    for jp in c["jumps"]:
        jp["witnesses"] = [i - (i > dropped) for i in jp["witnesses"]]
    emit("invalid", "dropped_input_reindexed.json", rehash(c), 1, "jumps",
         "witness W of a jump removed from the family, its reference pointed at Y, indices renumbered")

    c = small()
    victim = c["chains"][2]["jumps"][1]
    del c["jumps"][victim]
    for ch in c["chains"]:
        ch["jumps"] = [i - (i > victim) for i in ch["jumps"] if i != victim]
    emit("invalid", "dropped_jump_reindexed.json", rehash(c), 1, "family",
         "the second jump of a two-jump chain removed and indices renumbered (its witnesses are now orphans)")

    c = small()
    del c["chains"][4]
    emit("invalid", "dropped_chain.json", rehash(c), 1, "chains", "one ordered pair has no chain")

    c = small()
    c["chains"].append(copy.deepcopy(c["chains"][0]))
    emit("invalid", "duplicated_chain.json", rehash(c), 1, "chains", "one ordered pair has two chains")

    c = small()
    c["jumps"][0]["factor"] = "3"
    emit("invalid", "changed_jump_factor.json", rehash(c), 1, "jumps", "a gap-3 jump claims factor 3 instead of 2")

    c = small()
    c["chains"][2]["factor"] = "5"
    emit("invalid", "changed_chain_factor.json", rehash(c), 1, "chains", "a chain claims factor 5, its jumps give 4")

    c = small()
    c["arithmetic"]["sum_inverse_squares"] = "1"
    emit("invalid", "changed_sum.json", rehash(c), 1, "arithmetic", "Σ F⁻² understated")

    c = small()
    c["arithmetic"]["ratio"] = "3"
    emit("invalid", "changed_ratio.json", rehash(c), 1, "arithmetic", "t²/(t + Σ F⁻²) overstated")

    c = small()
    c["arithmetic"]["rank_at_least"] += 1
    emit("invalid", "changed_arithmetic_rank.json", rehash(c), 1, "arithmetic",
         "the integer bound overstated in the arithmetic section")

    c = small()
    c["family"]["inputs"][0]["target"] += 1
    emit("invalid", "wrong_target.json", rehash(c), 1, "family", "one stated target off by one")

    c = small()
    inp = c["family"]["inputs"][2]
    inp["query"] = 1
    toks = [int(s[::-1], 2) for s in inp["tokens"]]
    inp["target"] = min((toks[1] & x).bit_count() for x in toks)
    emit("invalid", "witness_query_moved.json", rehash(c), 1, "jumps",
         "a witness's queried position moved to 1 (target recomputed)")

    c = small()
    two = [ch for ch in c["chains"] if len(ch["jumps"]) == 2][0]
    other = [ch for ch in c["chains"] if ch["pair"][0] == two["pair"][0] and ch is not two][0]
    two["jumps"][1] = other["jumps"][0]
    emit("invalid", "chain_not_connected.json", rehash(c), 1, "chains",
         "a chain's second jump does not start where the first ended")

    c = small()
    a, b = [ch for ch in c["chains"] if ch["pair"][0] == 0][:2]
    a["jumps"], b["jumps"] = b["jumps"], a["jumps"]
    a["factor"], b["factor"] = b["factor"], a["factor"]
    emit("invalid", "chain_wrong_endpoint.json", rehash(c), 1, "chains",
         "two chains from the same codeword swap their jumps: each ends at the other's key")

    c = small()
    c["claim"]["error_below"] = "1"
    emit("invalid", "error_threshold_loosened.json", rehash(c), 1, "jumps",
         "claim about error < 1 with jumps that need error < 1/2 (μ = 1/2 < 1)")

    fam = build_family(small_code(), lambda d: tuple(range(d + 1)), 3, plan_name="gap one")
    c = build_certificate(fam, Fraction(1, 4))
    c["claim"]["error_below"] = "1/2"
    emit("invalid", "gap_one_jumps.json", rehash(c), 1, "jumps",
         "gap-1 jumps (worth μ = 1 at error < 1/4) presented as a certificate for error < 1/2 (μ = 0)")

    c = small()
    c["claim"]["length"] = 4
    emit("invalid", "length_mismatch.json", rehash(c), 1, "family",
         "claim about exact length 4 with length-3 inputs")

    c = small()
    c["code"]["words"] = c["code"]["words"][:1]
    c["chains"] = [dict(c["chains"][0], pair=[0, 0])]
    c["claim"]["rank_at_least"] = 2
    emit("invalid", "single_codeword.json", rehash(c), 1, "code",
         "one codeword: ⌊1/1⌋ + 1 = 2 would be false, the strict bound needs t ≥ 2")

    c = small()
    c["code"]["words"][3] = c["code"]["words"][0]
    emit("invalid", "duplicate_codeword.json", rehash(c), 1, "code", "a codeword listed twice")

    c = small()
    c["code"]["min_directed_distance"] = 4
    emit("invalid", "overstated_min_distance.json", rehash(c), 1, "code", "minimum directed distance overstated")

    c = small()
    c["family"]["inputs"].append(copy.deepcopy(c["family"]["inputs"][0]))
    emit("invalid", "duplicate_input.json", rehash(c), 1, "family", "an input listed twice")

    c = small()
    c["family"]["inputs"].append({"tokens": ["0" * 12, "1" * 12, "1" * 12], "query": 1, "target": 0})
    emit("invalid", "unused_input.json", rehash(c), 1, "family", "an input no jump uses")

    c = small()
    c["jumps"].append(copy.deepcopy(c["jumps"][0]))
    c["jumps"][-1]["witnesses"] = list(reversed(c["jumps"][-1]["witnesses"]))
    emit("invalid", "duplicate_jump.json", rehash(c), 1, "jumps", "a jump listed twice")

    c = small()
    fam = build_family(small_code(), "paper")
    chain = c["chains"][0]
    first = fam.jumps[chain["jumps"][0]]
    shrunk = first.y & ~(1 << (first.y.bit_length() - 1))  # a proper subset of S^c: still overlap 0
    n = len(c["family"]["inputs"])
    for k, toks in enumerate([(first.x, shrunk, shrunk), (first.x, shrunk, first.z)]):
        c["family"]["inputs"].append(Input(toks, 0, 12).to_json())
    c["jumps"].append({
        "x": bits(first.x), "y": bits(shrunk), "z": bits(first.z),
        "overlaps": [0, first.high], "factor": c["jumps"][chain["jumps"][0]]["factor"],
        "witnesses": [n, c["jumps"][chain["jumps"][0]]["witnesses"][1], n + 1],
    })
    chain["jumps"] = [len(c["jumps"]) - 1]
    emit("invalid", "preferred_key_not_complement.json", rehash(c), 1, "chains",
         "a chain starts at a proper subset of x_{S^c} (overlap 0, valid jump) instead of x_{S^c}")


def gap_one_code(m: int) -> ConstantWeightCode:
    """Two complementary words of length ``m``: each chain rises by ``m/2`` in gap-1 jumps."""
    half = (1 << (m // 2)) - 1
    return ConstantWeightCode(m, m // 2, (half, half << (m // 2)), "two complementary halves")


def huge_factor_certificate(m: int, q_digits: int) -> dict:
    """Gap-1 chains at ε = 1/q with a ``q_digits``-digit q: every jump is worth μ = (q − 2)/2.

    The true chain products have about ``m/2 · q_digits`` digits; the stated factors (at
    most 200 characters) cannot equal them, so only the size of the numbers is attacked.
    """
    q = 10 ** (q_digits - 1) + 7
    fam = build_family(gap_one_code(m), lambda d: tuple(range(d + 1)), 3, plan_name="gap one")
    c = build_certificate(fam, Fraction(1, q))
    for ch in c["chains"]:
        ch["factor"] = "2"
    for key in ("sum_inverse_squares", "frobenius_squared_below", "ratio"):
        c["arithmetic"][key] = "1"
    c["arithmetic"]["rank_at_least"] = 2
    c["claim"]["rank_at_least"] = 2
    return rehash(c)


def hostile() -> None:
    """Attacks on the checker's resources and on spellings (issue 7)."""
    emit("invalid", "huge_chain_product_in_message.json", huge_factor_certificate(48, 197), 1, "chains",
         "true chain product of ≈ 4,700 digits: the rejection message must print it by size, not crash")
    emit("malformed", "chain_product_over_limit.json", huge_factor_certificate(120, 197), 2, "limits",
         "chain product beyond 32,768 bits (60 jumps of ≈ 660 bits): refused before the work, exit 2")
    c = small()
    words = [format(x, "064b") for x in range(2**12 - 1, 2**12 - 1 + 3000)]
    c["claim"]["m"] = c["code"]["length"] = 64
    c["code"]["words"] = words
    c["family"]["inputs"] = [{"tokens": [words[0]] * 3, "query": 0, "target": 12}]
    c["jumps"] = [{"x": words[0], "y": words[1], "z": words[2], "overlaps": [0, 1], "factor": "1", "witnesses": [0, 0, 0]}]
    c["chains"] = [{"pair": [0, 1], "jumps": [0], "factor": "1"}]
    emit("invalid", "many_codewords_few_chains.json", rehash(c), 1, "chains",
         "3,000 codewords and one chain: the count t(t−1) is checked before the quadratic distance check")
    base = dumps(small())
    emit("malformed", "negative_zero_integer.json", base.replace('"query": 0', '"query": -0', 1), 2, "format",
         "-0 spelled for 0: a second spelling of the same integer (and of the same sha256)")
    first = small()["code"]["words"][0]
    spelled = "".join("\\u003" + ch for ch in first)
    emit("malformed", "escaped_token.json", base.replace(f'"{first}"', f'"{spelled}"', 1), 2, "format",
         "a token spelled with \\u escapes: same parsed value, different bytes")
    c = small()
    c["producer"]["note"] = "Paley, «Hadamard», Gödel — naïve café"
    emit("valid", "non_ascii_note_escaped.json", json.dumps(rehash(c), ensure_ascii=True) + "\n", 0, None,
         "free text with non-ASCII characters written as \\uXXXX escapes (Python's json.dumps default)")
    emit("valid", "non_ascii_note_literal.json", rehash(c), 0, None, "the same free text written literally (UTF-8)")
    emit("malformed", "escaped_slash_in_rational.json", base.replace('"error_below": "1/2"', '"error_below": "1\\/2"'),
         2, "format", "a rational spelled 1\\/2: a second spelling of 1/2")


def compact_code_small() -> BinaryCode:
    """Five words of length 10, weights 5, 5, 5, 5 and 6: every ordered pair at distance ≥ 2."""
    return BinaryCode(10, (0b0000011111, 0b1111100000, 0b0011100011, 0b1100011100, 0b1100100111),
                      "four 5-sets and one 6-set of [10], pairwise directed distance ≥ 2")


def compact(code=None, plan: str = "best") -> dict:
    code = code if code is not None else load_code("hadamard24")
    return build_compact_certificate(code, make_plan(code, plan))


def compact_files() -> None:
    """Compact (version-2) certificates: the checker generates the family from the code and plan (issue 10)."""
    emit("valid", "compact_hadamard24_best.json", compact(), 0, None,
         "hadamard24 (46 words), best chains, compact: r ≥ 17 from 4,370 generated inputs")
    emit("valid", "compact_rank_nine_paper.json", compact(rank_nine_code(), "paper"), 0, None,
         "the rank-nine code, paper chains, compact: interpolated keys at level 3, r ≥ 9")
    emit("valid", "compact_unequal_weights.json", compact(compact_code_small()), 0, None,
         "words of weights 5 and 6: allowed in the compact form")
    c = compact()
    c["claim"]["rank_at_least"] = 12
    emit("valid", "compact_weaker_claim.json", rehash(c), 0, None, "claims r ≥ 12 where the data prove 17")

    def attack(name: str, step: str, what: str, f, base=None) -> None:
        c = copy.deepcopy(base or compact())
        f(c)
        emit("invalid", name, rehash(c), 1, step, what)

    def flip_first(c: dict, i: int) -> None:
        w = c["code"]["words"][i]
        c["code"]["words"][i] = ("1" if w[0] == "0" else "0") + w[1:]

    attack("compact_word_changed.json", "chains", "one bit of one word flipped: a distance with no plan entry appears",
           lambda c: flip_first(c, 3))
    attack("compact_word_rotated.json", "chains", "one word rotated (same weight): its distances change",
           lambda c: c["code"]["words"].__setitem__(0, c["code"]["words"][0][6:] + c["code"]["words"][0][:6]))
    attack("compact_plan_gaps_changed.json", "chains", "distance 12 bridged by gaps 6+6 (factor 25) but factor 27 stated",
           lambda c: c["plan"]["entries"][1].update(gaps=[6, 6]))
    attack("compact_pair_omitted.json", "plan", "one ordered pair at distance 6 left out of the pair count (and of Σ F⁻²)",
           lambda c: c["plan"]["entries"][0].update(pairs=c["plan"]["entries"][0]["pairs"] - 1))
    attack("compact_distance_without_entry.json", "chains", "the plan entry for distance 12 removed",
           lambda c: c["plan"]["entries"].pop())
    attack("compact_unused_plan_entry.json", "plan", "a plan entry for distance 8, which no pair has",
           lambda c: c["plan"]["entries"].insert(1, {"distance": 8, "gaps": [4, 4], "pairs": 0, "factor": "9"}))
    attack("compact_claim_raised.json", "claim", "claims r ≥ 18 where the data prove 17",
           lambda c: c["claim"].update(rank_at_least=18))
    attack("compact_family_count_changed.json", "family", "one input more than the code and plan generate",
           lambda c: c["family"].update(inputs=c["family"]["inputs"] + 1))
    attack("compact_gap_one.json", "jumps", "distance 6 bridged by gaps 1+5: a gap-1 jump proves nothing at ε = 1/2",
           lambda c: c["plan"]["entries"][0].update(gaps=[1, 5]))
    attack("compact_gaps_short_of_distance.json", "chains", "gaps 5 for distance 6: the chain would stop before x_{U^c}",
           lambda c: c["plan"]["entries"][0].update(gaps=[5], factor="4"))
    attack("compact_duplicate_word.json", "code", "a word listed twice",
           lambda c: c["code"]["words"].__setitem__(5, c["code"]["words"][4]))
    attack("compact_word_inside_another.json", "code", "a word whose set contains another's: directed distance 0",
           lambda c: c["code"]["words"].append("1111110000"), compact(compact_code_small()))
    attack("compact_arithmetic_changed.json", "arithmetic", "the integer bound overstated in the arithmetic",
           lambda c: c["arithmetic"].update(rank_at_least=18))
    c = compact()
    c["claim"]["rank_at_least"] = 16
    emit("invalid", "compact_broken_hash.json", c, 1, "integrity", "a harmless edit without updating sha256")

    def shape(name: str, what: str, f) -> None:
        c = compact()
        f(c)
        emit("malformed", name, rehash(c), 2, "format", what)

    shape("compact_unknown_key_rule.json", "a key rule this version does not define",
          lambda c: c["plan"].update(keys="interpolated"))
    shape("compact_with_listed_jumps.json", "a version-1 key in a compact certificate", lambda c: c.update(jumps=[]))
    shape("compact_entries_out_of_order.json", "plan entries not in increasing distance", lambda c: c["plan"]["entries"].reverse())
    shape("compact_zero_gap.json", "a gap of 0", lambda c: c["plan"]["entries"][0].update(gaps=[0, 6]))
    shape("compact_length_mismatch.json", "code.length differs from claim.m", lambda c: c["code"].update(length=25))


def malformed() -> None:
    base = dumps(small())
    emit("malformed", "not_json.json", "this is not a certificate\n", 2, "format", "plain text")
    emit("malformed", "truncated.json", base[: len(base) // 2], 2, "format", "file cut in half")
    emit("malformed", "empty.json", "", 2, "format", "empty file")
    emit("malformed", "top_level_array.json", "[1, 2, 3]\n", 2, "format", "a JSON array, not an object")
    emit("malformed", "non_utf8.json", b'{"format": "\xff"}\n', 2, "format", "bytes that are not UTF-8")
    emit("malformed", "deeply_nested.json", "[" * 100000 + "]" * 100000, 2, "format", "nesting bomb")
    emit("malformed", "nan_literal.json", base.replace('"version": 1', '"version": NaN'), 2, "format", "NaN")
    emit("malformed", "duplicate_key.json", base.replace('"version": 1', '"version": 1, "version": 1'), 2,
         "format", "a key repeated in one object")

    def edit(name: str, attack: str, f) -> None:
        c = small()
        f(c)
        emit("malformed", name, rehash(c), 2, "format", attack)

    edit("missing_claim.json", "no claim", lambda c: c.pop("claim"))
    c = small()
    del c["sha256"]
    emit("malformed", "missing_sha256.json", c, 2, "format", "no sha256")
    edit("unknown_top_level_key.json", "an extra top-level key", lambda c: c.update(extra=1))
    edit("unknown_claim_key.json", "an extra claim key", lambda c: c["claim"].update(heads=2))
    edit("unknown_input_key.json", "an extra key in an input", lambda c: c["family"]["inputs"][0].update(note="x"))
    edit("wrong_format_name.json", "another format", lambda c: c.update(format="vipr"))
    edit("wrong_version.json", "version 3 (no such version)", lambda c: c.update(version=3))
    edit("version_two_with_a_listed_family.json", "version 2 (compact) with a version-1 body", lambda c: c.update(version=2))
    edit("boolean_version.json", "true is not the integer 1", lambda c: c.update(version=True))
    edit("wrong_model.json", "a claim about another model", lambda c: c["claim"].update(model="softmax"))
    edit("token_wrong_length.json", "a token one bit short",
         lambda c: c["family"]["inputs"][0]["tokens"].__setitem__(1, c["family"]["inputs"][0]["tokens"][1][:-1]))
    edit("token_bad_character.json", "a token with a '2'",
         lambda c: c["code"]["words"].__setitem__(0, "2" + c["code"]["words"][0][1:]))
    edit("token_not_string.json", "a token given as an integer",
         lambda c: c["jumps"][0].update(x=5))
    edit("query_out_of_range.json", "query position 3 in a length-3 input",
         lambda c: c["family"]["inputs"][0].update(query=3))
    edit("negative_query.json", "query position -1", lambda c: c["family"]["inputs"][0].update(query=-1))
    edit("huge_integer.json", "rank_at_least = 10^30", lambda c: c["claim"].update(rank_at_least=10**30))
    edit("float_number.json", "m = 12.0", lambda c: c["claim"].update(m=12.5))
    edit("rational_not_a_number.json", "factor 'two'", lambda c: c["jumps"][0].update(factor="two"))
    edit("rational_not_lowest_terms.json", "factor '4/2'", lambda c: c["jumps"][0].update(factor="4/2"))
    edit("rational_zero_denominator.json", "factor '1/0'", lambda c: c["jumps"][0].update(factor="1/0"))
    edit("rational_as_number.json", "error_below given as a JSON number",
         lambda c: c["claim"].update(error_below=1))
    edit("rational_too_long.json", "a 300-digit rational", lambda c: c["jumps"][0].update(factor="1" * 300))
    edit("null_field.json", "weight null", lambda c: c["code"].update(weight=None))
    edit("dangling_witness_index.json", "a witness index past the end of the family",
         lambda c: c["jumps"][0]["witnesses"].__setitem__(0, len(c["family"]["inputs"])))
    edit("dangling_chain_pair.json", "a chain pair naming codeword 4 of 4",
         lambda c: c["chains"][0]["pair"].__setitem__(1, 4))
    edit("code_length_mismatch.json", "code.length differs from claim.m", lambda c: c["code"].update(length=13))
    edit("length_below_three.json", "claim about length 2", lambda c: c["claim"].update(length=2))
    edit("zero_error.json", "error_below 0", lambda c: c["claim"].update(error_below="0"))
    edit("sha256_not_hex.json", "sha256 of the wrong form", lambda c: None)
    path = HERE / "malformed" / "sha256_not_hex.json"
    doc = json.loads(path.read_text())
    doc["sha256"] = "not-a-hash"
    path.write_text(dumps(doc) + "\n")


# --------------------------------------------------------------------------- unique-minimizer certificates (A.4)


def um() -> dict:
    """The default unique-minimizer certificate: 6 words of length 24 at distance 7, factor 3, r ≥ 4."""
    return unique_minimizer_certificate()


def um_bits(s: str) -> list[int]:
    return [int(t[::-1], 2) for t in s]


def um_retarget(x: dict) -> None:
    toks = um_bits(x["tokens"])
    x["target"] = min((toks[x["query"]] & z).bit_count() for z in toks)


def unique_minimizer() -> None:
    """Files for format certify.unique-minimizer-certificate (names start with um_)."""
    emit("valid", "um_default.json", um(), 0, None,
         "unique minimizer (A.4): 6 words at distance 7, gap-7 jumps of factor 3, r ≥ 4")
    emit("valid", "um_hadamard_20.json", unique_minimizer_certificate("hadamard:20:4"), 0, None,
         "unique minimizer: rows 1–4 of the Paley Hadamard matrix of order 20, gap 5, factor 2, r ≥ 3")
    c = um()
    c["claim"]["rank_at_least"] = 3
    emit("valid", "um_weaker_claim.json", rehash(c), 0, None, "unique minimizer: claims r ≥ 3 where the data prove 4")

    c = um()
    c["claim"]["rank_at_least"] = 5
    emit("invalid", "um_claim_raised.json", rehash(c), 1, "claim", "unique minimizer: claim r ≥ 5, the data prove 4")

    c = um()
    for j in c["jumps"]:
        j["factor"] = "6"  # μ = d − 1, the three-witness factor, is not what four typed inputs prove
    for ch in c["chains"]:
        ch["factor"] = "6"
    t = c["arithmetic"]["t"]
    sigma = Fraction(t * (t - 1), 36)
    ratio = Fraction(t * t) / (t + sigma)
    c["arithmetic"].update(sum_inverse_squares=str(sigma), frobenius_squared_below=str(t + sigma),
                           ratio=str(ratio), rank_at_least=ratio.numerator // ratio.denominator + 1)
    c["claim"]["rank_at_least"] = c["arithmetic"]["rank_at_least"]
    emit("invalid", "um_weight_domination_factor.json", rehash(c), 1, "jumps",
         "unique minimizer: every jump claims μ = d − 1 = 6 (the three-witness factor) instead of (d−1)/2 = 3; "
         "chains, arithmetic and claim made consistent with it")

    c = um()
    x = c["family"]["inputs"][c["jumps"][0]["witnesses"][0]]
    x["tokens"][2] = x["tokens"][1]
    um_retarget(x)
    emit("invalid", "um_repeated_token.json", rehash(c), 1, "family",
         "unique minimizer: a witness with a repeated token (target recomputed): not three distinct tokens")

    c = um()
    j = c["jumps"][0]
    x = c["family"]["inputs"][j["witnesses"][3]]  # M₁ = (q, k₀(z), k₁(y)): overlaps t + d, t + 1
    q, k0z, k1y = um_bits(x["tokens"])
    t = (q & k1y).bit_count() - 1
    target_overlap = t + 1
    word = k0z >> 2
    for k in range(24):  # drop ones of k₀(z) that meet q until it ties with k₁(y)
        if (q & (word << 2)).bit_count() > target_overlap and (word >> k) & 1 and (q >> (k + 2)) & 1:
            word &= ~(1 << k)
    x["tokens"][1] = format(word << 2, "026b")[::-1]
    um_retarget(x)
    emit("invalid", "um_tied_minimizer.json", rehash(c), 1, "family",
         "unique minimizer: a witness edited so that two tokens attain the minimum overlap (distinct tokens, "
         "target recomputed)")

    c = um()
    j = c["jumps"][0]
    x = c["family"]["inputs"][j["witnesses"][2]]  # M₀ = (q, k₀(y), k₁(z)) → (q, k₀(y), k₀(z))
    x["tokens"][2] = "0" + x["tokens"][2][1:]
    um_retarget(x)
    emit("invalid", "um_type_bit_cleared.json", rehash(c), 1, "jumps",
         "unique minimizer: the type bit of k₁(z) cleared in witness M₀ (still distinct, unique minimizer, same "
         "target): the witness no longer matches its jump")

    c = um()
    w = c["jumps"][0]["witnesses"]
    w[2], w[3] = w[3], w[2]
    emit("invalid", "um_witnesses_swapped.json", rehash(c), 1, "jumps", "unique minimizer: witnesses M₀ and M₁ swapped")

    from codes import load_code
    from witnesses import unique_minimizer_family

    fam = unique_minimizer_family(load_code("greedy:8:2:4"), "direct")
    c = assemble(um()["format"], 1, um()["claim"] | {"m": 10}, fam, [Fraction(1)] * len(fam.jumps))
    emit("invalid", "um_gap_two_jumps.json", c, 1, "jumps",
         "unique minimizer: gap-2 jumps (their four inputs exist and have unique minimizers) claimed at factor 1; "
         "(d−1)/2 = 1/2 proves nothing")

    c = um()
    c["chains"][3]["factor"] = "9"
    emit("invalid", "um_chain_factor.json", rehash(c), 1, "chains", "unique minimizer: a one-jump chain claims factor 9")

    c = um()
    c["arithmetic"]["sum_inverse_squares"] = "3"
    emit("invalid", "um_sum_changed.json", rehash(c), 1, "arithmetic", "unique minimizer: Σ F⁻² understated")

    def edit(name: str, attack: str, f) -> None:
        c = um()
        f(c)
        emit("malformed", name, rehash(c), 2, "format", "unique minimizer: " + attack)

    edit("um_three_witnesses.json", "a jump with three witnesses", lambda c: c["jumps"][0]["witnesses"].pop())
    edit("um_error_quarter.json", "claim about error < 1/4 (the weights of K are those of 1/2)",
         lambda c: c["claim"].update(error_below="1/4"))
    edit("um_length_four.json", "claim about exact length 4", lambda c: c["claim"].update(length=4))
    edit("um_code_length_is_m.json", "code.length = claim.m (the type bits forgotten)",
         lambda c: c["code"].update(length=26))
    edit("um_inputs_claim_changed.json", "claim.inputs names another input class",
         lambda c: c["claim"].update(inputs="all-inputs"))
    edit("um_version_two.json", "version 2", lambda c: c.update(version=2))
    c = small()
    c["format"] = um()["format"]
    emit("malformed", "um_rank_certificate_relabelled.json", rehash(c), 2, "format",
         "a rank certificate relabelled as a unique-minimizer certificate (no claim.inputs, three witnesses)")


def sharper(code=None, argument="shifted") -> dict:
    """A compact certificate whose last step is a sharper argument (default: hadamard24, shifted s = 1/10, r ≥ 29).

    The argument is named, not ``"best"``: ``best`` now picks null-shifted or square-kernel
    (:func:`kernel_files`), and the files of this section keep their bytes.
    """
    code = code if code is not None else load_code("hadamard24")
    return build_compact_certificate(code, make_plan(code, "best"), argument=argument)


def sharper_files() -> None:
    """The optional ``argument`` (issue 15; docs/math.md §5): shifted and square trace–Frobenius."""
    emit("valid", "shifted_rank_nine_direct.json", rank_nine_certificate("direct", argument="shifted"), 0, None,
         "rank-nine code, direct chains, shifted s = 1/10: r ≥ 12 from the family that gives 10 by trace–Frobenius")
    emit("valid", "compact_shifted_hadamard24.json", sharper(), 0, None,
         "hadamard24 compact, shifted s = 1/10: r ≥ 29 (trace–Frobenius 17)")
    emit("valid", "compact_square_golay24.json", sharper(load_code("golay24"), "square"), 0, None,
         "golay24 compact, square b = −29/94, g = 1/84: binom(r+2, 2) ≥ 1,286, r ≥ 50 (trace–Frobenius 21)")
    emit("valid", "um_shifted_not_better.json", unique_minimizer_certificate(argument="shifted"), 0, None,
         "unique minimizer, shifted s = 1/6: ratio 5, ⌈5⌉ − 1 = 4, the same as trace–Frobenius (claim 4)")
    emit("valid", "small_paper_shifted.json",
         build_certificate(build_family(small_code(), "paper", 3), argument=Argument("shifted", {"s": Fraction(1, 8)})),
         0, None, "4 words of length 12, paper chains, shifted s = 1/8 (r ≥ 2: weaker than trace–Frobenius's 3, claim 3)")
    emit("valid", "small_paper_square.json",
         build_certificate(build_family(small_code(), "paper", 3),
                           argument=Argument("square", {"b": Fraction(-1, 4), "g": Fraction(1, 128)})),
         0, None, "4 words of length 12, paper chains, square b = −1/4, g = 1/128 (weaker than trace–Frobenius: claim 3)")
    c = small()
    c["argument"] = {"name": "trace-frobenius"}
    emit("valid", "trace_frobenius_named.json", rehash(c), 0, None, "argument named explicitly as the default")
    c = sharper(load_code("hadamard24"), "square")
    c["claim"]["rank_at_least"] = c["arithmetic"]["rank_at_least"]
    emit("valid", "square_weaker_than_trace_frobenius.json", rehash(c), 0, None,
         "a square argument that proves less than trace–Frobenius (9 < 17): the claim 17 stands on trace–Frobenius")

    def attack(name: str, step: str, what: str, f, base=sharper) -> None:
        c = base()
        f(c)
        emit("invalid", name, rehash(c), 1, step, what)

    attack("shifted_claim_raised.json", "claim", "shifted s = 1/10 proves 29; the claim says 30",
           lambda c: c["claim"].update(rank_at_least=30))
    attack("shifted_ceiling_without_minus_one.json", "arithmetic",
           "argument.rank_at_least = ⌈ratio⌉ = 30 (and the claim): forgets that rank(C − sJ) ≤ rank C + 1",
           lambda c: (c["argument"].update(rank_at_least=30), c["claim"].update(rank_at_least=30)))
    attack("shifted_ratio_overstated.json", "arithmetic", "argument.ratio overstated",
           lambda c: c["argument"].update(ratio="31"))
    attack("shifted_frobenius_understated.json", "arithmetic", "argument.frobenius_squared_at_most understated",
           lambda c: c["argument"].update(frobenius_squared_at_most="1"))
    attack("shifted_s_changed.json", "arithmetic", "s changed to 1/9, the stated numbers kept (those of 1/10)",
           lambda c: c["argument"].update(s="1/9"))
    attack("shifted_on_direct_chains_claim_13.json", "claim", "rank-nine direct chains, shifted: 12 proved, 13 claimed",
           lambda c: c["claim"].update(rank_at_least=13), base=lambda: rank_nine_certificate("direct", argument="shifted"))
    attack("square_claim_raised.json", "claim", "golay24 square proves 50; the claim says 51",
           lambda c: c["claim"].update(rank_at_least=51), base=lambda: sharper(load_code("golay24"), "square"))
    def vertex_ignored(c: dict) -> None:
        # b = −1/5, g = 0: on [0, 1/5] the end points give x² + bx = 0, the vertex x = 1/10 gives −1/100.
        b, g, t = Fraction(-1, 5), Fraction(0), c["arithmetic"]["t"]
        frob = t * (1 + b + g) ** 2
        for e in c["plan"]["entries"]:
            x = 1 / Fraction(e["factor"])
            frob += e["pairs"] * max(abs(g), abs(x * x + b * x + g)) ** 2  # the bug: no vertex term
        ratio = t * t * (1 + b + g) ** 2 / frob
        k = -(-ratio.numerator // ratio.denominator)
        r = next(r for r in range(10**4) if (r + 1) * (r + 2) // 2 >= k)
        text = lambda q: str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"  # noqa: E731
        c["argument"] = {"name": "square", "b": "-1/5", "g": "0", "frobenius_squared_at_most": text(frob),
                         "ratio": text(ratio), "rank_at_least": r}
        c["claim"]["rank_at_least"] = max(r, c["arithmetic"]["rank_at_least"])

    attack("square_vertex_ignored.json", "arithmetic",
           "square b = −1/5, g = 0 with ‖M‖_F² from the end points only, ignoring the vertex −b/2 = 1/10 in [0, 1/5]",
           vertex_ignored)
    attack("um_shifted_claim_raised.json", "claim", "unique minimizer, shifted s = 1/6 proves 4; the claim says 5",
           lambda c: c["claim"].update(rank_at_least=5), base=lambda: unique_minimizer_certificate(argument="shifted"))

    def edit(name: str, what: str, f) -> None:
        c = sharper()
        f(c)
        emit("malformed", name, rehash(c), 2, "format", what)

    edit("argument_s_one.json", "s = 1: the diagonal 1 − s of C − sJ vanishes", lambda c: c["argument"].update(s="1"))
    edit("argument_s_above_one.json", "s = 3/2, outside [0, 1)", lambda c: c["argument"].update(s="3/2"))
    edit("argument_s_negative.json", "s = −1/10, outside [0, 1)", lambda c: c["argument"].update(s="-1/10"))
    edit("argument_s_not_lowest_terms.json", "s = \"2/20\": a second spelling of 1/10", lambda c: c["argument"].update(s="2/20"))
    edit("argument_s_as_integer.json", "s as a JSON integer 0, not a rational string", lambda c: c["argument"].update(s=0))
    edit("argument_unknown_name.json", "argument.name 'cubic'", lambda c: c["argument"].update(name="cubic"))
    edit("argument_missing_ratio.json", "shifted without its stated ratio", lambda c: c["argument"].pop("ratio"))
    edit("argument_extra_key.json", "shifted with a square parameter b", lambda c: c["argument"].update(b="0"))
    edit("argument_trace_frobenius_with_s.json", "trace-frobenius with a parameter",
         lambda c: c.update(argument={"name": "trace-frobenius", "s": "1/10"}))
    edit("argument_not_an_object.json", "argument is a string", lambda c: c.update(argument="shifted"))
    edit("argument_without_name.json", "argument without a name", lambda c: c["argument"].pop("name"))
    edit("argument_square_missing_g.json", "square without g",
         lambda c: c.update(argument={"name": "square", "b": "-1/5", "frobenius_squared_at_most": "1", "ratio": "1",
                                      "rank_at_least": 1}))
    edit("argument_square_zero_diagonal.json", "square with 1 + b + g = 0 (b = −1, g = 0): the trace vanishes",
         lambda c: c.update(argument={"name": "square", "b": "-1", "g": "0", "frobenius_squared_at_most": "1",
                                      "ratio": "1", "rank_at_least": 1}))
    edit("argument_rational_too_long.json", "s with 201 characters",
         lambda c: c["argument"].update(s="1/" + "9" * 199))
    text = dumps(sharper()).replace('"s": "1/10"', '"s": 0.1')
    emit("malformed", "argument_s_float.json", text + "\n", 2, "format", "s written as the JSON float 0.1")


# --------------------------------------------------------------------------- null-shifted and square-kernel (Theorem A, Lemma N)


def text(q: Fraction) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def ceil(q: Fraction) -> int:
    return -(-q.numerator // q.denominator)


def least_square_rank(k: int) -> int:
    """The least ``ρ`` with ``binom(ρ+2, 2) ≥ k``."""
    r = 0
    while (r + 1) * (r + 2) // 2 < k:
        r += 1
    return r


def plan_classes(c: dict) -> dict:
    """``{(F, d): pairs}`` of a compact certificate, from its plan entries."""
    return {(Fraction(e["factor"]), e["distance"]): e["pairs"] for e in c["plan"]["entries"]}


def shift_numbers(t: int, classes: dict, s: Fraction) -> tuple[Fraction, Fraction]:
    """``(t(1−s)² + Σ max(s, 1/F − s)², R)`` written out by hand, hypotheses unchecked (attacks)."""
    frob = t * (1 - s) ** 2 + sum(c * max(s, 1 / f - s) ** 2 for (f, _), c in classes.items())
    return frob, t * t * (1 - s) ** 2 / frob


def kernel_numbers(t: int, classes: dict, length: int, b, g, mu, vertex: bool = True, y_of=None):
    """``(frobenius, ratio, rank)`` of square-kernel written out by hand, hypotheses unchecked.

    ``vertex=False`` leaves out the vertex ``−b/2`` and ``y_of`` replaces ``y = length − 4d``:
    the attacks below are these two mistakes, made consistently.
    """
    b, g, mu = Fraction(b), Fraction(g), [Fraction(v) for v in mu]
    y_of = y_of or (lambda d: length - 4 * d)
    m0 = sum(v * length ** j for j, v in enumerate(mu, 1))
    diag = 1 + b + g - m0
    frob = t * diag * diag
    for (f, d), c in classes.items():
        y = y_of(d)
        k = sum(v * y ** j for j, v in enumerate(mu, 1))
        x = 1 / f
        e = max(abs(g - k), abs(x * x + b * x + g - k))
        if vertex and 0 <= -b / 2 <= x:
            e = max(e, abs(g - b * b / 4 - k))
        frob += c * e * e
    ratio = t * t * diag * diag / frob
    return frob, ratio, least_square_rank(ceil(ratio))


def put_argument(c: dict, argument: dict, claim: int | None = None) -> dict:
    """Set ``argument`` and the claim (default: the larger of trace–Frobenius and the argument), rehash."""
    c["argument"] = argument
    c["claim"]["rank_at_least"] = claim if claim is not None else max(c["arithmetic"]["rank_at_least"],
                                                                       argument["rank_at_least"])
    return rehash(c)


def kernel_argument(name: str, params: dict, frob, ratio, rank: int) -> dict:
    return {"name": name, **params, "frobenius_squared_at_most": text(frob), "ratio": text(ratio), "rank_at_least": rank}


def null_shift(s) -> Argument:
    return Argument("null-shifted", {"s": Fraction(s)})


def kernel(b, g, mu) -> Argument:
    return Argument("square-kernel", {"b": Fraction(b), "g": Fraction(g), "mu": tuple(Fraction(v) for v in mu)})


GOLAY_KERNEL = kernel("-259/1000", "21/2500", ["191/250000", "49/500000"])  # golay24: ratio ≈ 1436.80 > 1431, r ≥ 53
H24_INTEGER_RATIO = kernel("-19/50", "4/25", ["1/800"])  # hadamard24: ratio exactly 15 = binom(6, 2)
H24_EMPTY_MU = kernel("-5/16", "1/64", [])  # hadamard24: square-kernel with no kernel, ratio exactly 45 = binom(10, 2)
H24_KERNEL = kernel("-1/5", "1/200", ["1/1000", "1/100000"])


def h24(argument=None) -> dict:
    """The hadamard24 compact certificate (2 KB; classes (5, 6) × 2024 and (27, 12) × 46; y = 0 and −24)."""
    return sharper(load_code("hadamard24"), argument)


def r9(argument=None) -> dict:
    """The rank-nine compact certificate, paper chains (1 KB; one class, (4, 6) × 210; y = 0)."""
    code = rank_nine_code()
    return build_compact_certificate(code, make_plan(code, "paper"), argument=argument)


def kernel_files() -> None:
    """The null-space step (docs/math.md §5): ``null-shifted`` (Theorem A) and ``square-kernel`` (Lemma N)."""
    emit("valid", "null_shifted_rank_nine_direct.json", rank_nine_certificate("direct", argument=null_shift("1/10")), 0,
         None, "rank-nine code, direct chains (listed), null-shifted s = 1/10: R = 243/19, ⌊R⌋ + 1 = 13 (shifted: 12)")
    emit("valid", "compact_null_shifted_rank_nine_paper.json", r9(null_shift("1/8")), 0, None,
         "rank-nine code, paper chains, compact, null-shifted s = 1/8: R = 35/3, r ≥ 12 (trace–Frobenius 9)")
    emit("valid", "compact_null_shifted_s_zero.json", r9(null_shift(0)), 0, None,
         "rank-nine paper chains, null-shifted s = 0: R = 8 exactly, ⌊R⌋ + 1 = 9 (rank C > R is strict)")
    emit("valid", "compact_null_shifted_hadamard24.json", h24(null_shift("1/10")), 0, None,
         "hadamard24 compact, null-shifted s = 1/10: R = 207/7, r ≥ 30 (shifted 29, trace–Frobenius 17)")
    emit("valid", "compact_square_kernel_golay24.json", sharper(load_code("golay24"), GOLAY_KERNEL), 0, None,
         "golay24 compact, square-kernel b = −259/1000, g = 21/2500, μ = [191/250000, 49/500000] over the classes "
         "y = 8, 0, −8, −24: ratio ≈ 1436.80 > binom(54, 2) = 1431, r ≥ 53 (square 50)")
    emit("valid", "compact_square_kernel_empty_mu.json", h24(H24_EMPTY_MU), 0, None,
         "hadamard24, square-kernel with μ = [] (the square argument): ratio exactly 45 = binom(10, 2), r ≥ 8; claim 17 "
         "stands on trace–Frobenius")
    emit("valid", "compact_square_kernel_integer_ratio.json", h24(H24_INTEGER_RATIO), 0, None,
         "hadamard24, square-kernel b = −19/50, g = 4/25, μ = [1/800]: ratio exactly 15 = binom(6, 2), so r ≥ 4 "
         "(binom(ρ+2, 2) ≥ ⌈ratio⌉ is not strict); claim 17 on trace–Frobenius")
    eight = kernel("-1/5", "1/200", [Fraction(1, 1000 * 24 ** j) for j in range(1, 9)])
    emit("valid", "compact_square_kernel_eight_terms.json", h24(eight), 0, None,
         "hadamard24, square-kernel with the most terms, μ_j = 1/(1000·24^j), j = 1…8 (m₀ = 1/125, K = 0 at y = 0 "
         "and y = −24)")
    emit("valid", "um_null_shifted.json", unique_minimizer_certificate(argument=null_shift("1/6")), 0, None,
         "unique minimizer, null-shifted s = 1/6: R = 5, min(t, ⌊R⌋ + 1) = 6 = t (trace–Frobenius and shifted: 4)")
    emit("valid", "um_square_kernel.json",
         unique_minimizer_certificate(argument=kernel("-3/10", "1/100", ["1/10000", "1/1000000"])), 0, None,
         "unique minimizer, square-kernel on the 24-bit words (y = 24 − 4d, the type bits are not in Y): r ≥ 2, "
         "weaker than trace–Frobenius's 4 (claim 4)")
    emit("valid", "small_paper_null_shifted.json",
         build_certificate(build_family(small_code(), "paper", 3), argument=null_shift("1/8")), 0, None,
         "4 words of length 12, paper chains, null-shifted s = 1/8 (mutation and fuzz base)")
    emit("valid", "small_paper_square_kernel.json",
         build_certificate(build_family(small_code(), "paper", 3), argument=kernel("-1/4", "1/128", ["1/1000", "1/50000"])),
         0, None, "4 words of length 12 (y = 0 and −12), paper chains, square-kernel μ = [1/1000, 1/50000] "
         "(mutation and fuzz base; claim 3 on trace–Frobenius)")

    def attack(name: str, step: str, what: str, f, base) -> None:
        c = base()
        f(c)
        emit("invalid", name, rehash(c), 1, step, what)

    # null-shifted (Theorem A)
    attack("null_shifted_claim_raised.json", "claim", "hadamard24 null-shifted s = 1/10 proves 30; the claim says 31",
           lambda c: c["claim"].update(rank_at_least=31), lambda: h24(null_shift("1/10")))
    attack("null_shifted_on_direct_chains_claim_14.json", "claim", "rank-nine direct chains (listed), null-shifted: 13 "
           "proved, 14 claimed", lambda c: c["claim"].update(rank_at_least=14),
           lambda: rank_nine_certificate("direct", argument=null_shift("1/10")))
    attack("null_shifted_ceiling_on_integer_ratio.json", "arithmetic",
           "rank-nine paper, null-shifted s = 0: R = 8 exactly and argument.rank_at_least = ⌈R⌉ = 8 instead of "
           "⌊R⌋ + 1 = 9", lambda c: c["argument"].update(rank_at_least=8), lambda: r9(null_shift(0)))

    def negative_s(c: dict) -> None:
        t, cl, s = c["arithmetic"]["t"], plan_classes(c), Fraction(-1, 10)
        frob, ratio = shift_numbers(t, cl, s)
        put_argument(c, kernel_argument("null-shifted", {"s": "-1/10"}, frob, ratio, min(t, ratio.numerator // ratio.denominator + 1)))

    attack("null_shifted_negative_s.json", "arithmetic",
           "null-shifted s = −1/10, numbers recomputed consistently: sJ with s < 0 is not positive semidefinite, a "
           "negative multiple of J passed off as a kernel (Theorem A needs s⟨J, Π⟩ ≥ 0)", negative_s, h24)

    def s_one(c: dict) -> None:
        t, cl = c["arithmetic"]["t"], plan_classes(c)
        frob, ratio = shift_numbers(t, cl, Fraction(1))
        put_argument(c, kernel_argument("null-shifted", {"s": "1"}, frob, ratio, 1))

    attack("null_shifted_s_one.json", "arithmetic",
           "null-shifted s = 1 (no diagonal left; R = 0, r ≥ min(t, 1) = 1), numbers consistent: s ≥ 1 is refused at "
           "arithmetic for this argument, not at format as for shifted", s_one, h24)
    attack("null_shifted_s_changed.json", "arithmetic", "null-shifted s changed to 1/9, the stated numbers kept (those of 1/10)",
           lambda c: c["argument"].update(s="1/9"), lambda: h24(null_shift("1/10")))
    attack("null_shifted_renamed_shifted.json", "arithmetic",
           "a null-shifted argument renamed shifted, rank 30 kept: shifted proves ⌈R⌉ − 1 = 29",
           lambda c: c["argument"].update(name="shifted"), lambda: h24(null_shift("1/10")))
    attack("shifted_renamed_null_shifted.json", "arithmetic",
           "a shifted argument renamed null-shifted, its rank 29 kept: the stated rank must be the rule's, ⌊R⌋ + 1 = 30",
           lambda c: c["argument"].update(name="null-shifted"), lambda: h24("shifted"))
    attack("um_null_shifted_claim_raised.json", "claim", "unique minimizer, null-shifted s = 1/6 proves 6 = t; the claim says 7",
           lambda c: c["claim"].update(rank_at_least=7), lambda: unique_minimizer_certificate(argument=null_shift("1/6")))

    # square-kernel (Lemma N)
    attack("square_kernel_claim_raised.json", "claim", "golay24 square-kernel proves 53; the claim says 54",
           lambda c: c["claim"].update(rank_at_least=54), lambda: sharper(load_code("golay24"), GOLAY_KERNEL))
    attack("square_kernel_floor_plus_one_on_integer_ratio.json", "arithmetic",
           "hadamard24 square-kernel with ratio exactly 15 = binom(6, 2): argument.rank_at_least 5 from ⌊ratio⌋ + 1 = 16 "
           "instead of ⌈ratio⌉ = 15 (r ≥ 4)", lambda c: c["argument"].update(rank_at_least=5), lambda: h24(H24_INTEGER_RATIO))

    def consistent(b, g, mu, **how):
        """A square-kernel argument whose stated numbers are ``kernel_numbers(..., **how)`` (one mistake, made consistently)."""
        def f(c: dict) -> None:
            t, cl, length = c["arithmetic"]["t"], plan_classes(c), c["code"]["length"]
            frob, ratio, rank = kernel_numbers(t, cl, length, b, g, mu, **how)
            put_argument(c, kernel_argument("square-kernel", {"b": b, "g": g, "mu": list(mu)}, frob, ratio, rank))
        return f

    attack("square_kernel_negative_mu.json", "arithmetic",
           "square-kernel μ = [−1/1000, 1/100000], numbers consistent: μ_1 < 0, Σ μ_j Y^{∘j} need not be positive "
           "semidefinite", consistent("-1/5", "1/200", ["-1/1000", "1/100000"]), h24)
    attack("square_kernel_diagonal_not_above_kernel.json", "arithmetic",
           "square-kernel b = −1/4, g = 0, μ = [1/24]: m₀ = 1 ≥ 1 + b + g = 3/4 (numbers consistent, the diagonal "
           "1 + b + g − m₀ = −1/4 squared)", consistent("-1/4", "0", ["1/24"]), h24)
    attack("square_kernel_diagonal_equals_kernel.json", "arithmetic",
           "square-kernel b = −1/4, g = 0, μ = [1/32]: m₀ = 3/4 = 1 + b + g, the trace vanishes (numbers consistent)",
           consistent("-1/4", "0", ["1/32"]), h24)
    attack("square_kernel_vertex_ignored.json", "arithmetic",
           "square-kernel b = −1/5, g = 0, μ = [1/1000000]: ‖M‖_F² from the end points only, ignoring the vertex "
           "−b/2 = 1/10 in [0, 1/5] (where |x² + bx + g − K_0| = 1/100)",
           consistent("-1/5", "0", ["1/1000000"], vertex=False), h24)
    attack("square_kernel_y_miscounted.json", "arithmetic",
           "square-kernel with the Gram entry of a pair taken as y = m − 2d instead of m − 4d (every class), numbers "
           "consistent with that mistake", consistent("-1/5", "1/200", ["1/1000", "1/100000"], y_of=lambda d: 24 - 2 * d), h24)
    attack("square_kernel_one_class_y_wrong.json", "arithmetic",
           "square-kernel with the class d = 12 given y = +24 instead of −24 (odd μ_1 term flips sign), numbers "
           "consistent with that mistake",
           consistent("-1/5", "1/200", ["1/1000", "1/100000"], y_of=lambda d: 24 if d == 12 else 24 - 4 * d), h24)
    attack("square_kernel_mu_reordered.json", "arithmetic", "μ_1 and μ_2 swapped, the stated numbers kept",
           lambda c: c["argument"]["mu"].reverse(), lambda: h24(H24_KERNEL))
    attack("square_kernel_mu_term_dropped.json", "arithmetic", "μ_2 dropped, the stated numbers kept",
           lambda c: c["argument"]["mu"].pop(), lambda: h24(H24_KERNEL))
    attack("square_kernel_mixed_weights.json", "arithmetic",
           "square-kernel on a compact certificate whose code has weights 5 and 6, numbers computed as if y = m − 4d: "
           "the Gram entry is not a function of the directed distance there",
           consistent("-1/4", "1/100", ["1/1000"]), lambda: compact(compact_code_small()))

    def edit(name: str, what: str, f, base=lambda: h24(H24_KERNEL)) -> None:
        c = base()
        f(c)
        emit("malformed", name, rehash(c), 2, "format", what)

    ns = lambda: h24(null_shift("1/10"))  # noqa: E731
    edit("null_shifted_missing_s.json", "null-shifted without s", lambda c: c["argument"].pop("s"), ns)
    edit("null_shifted_with_mu.json", "null-shifted with a square-kernel key mu", lambda c: c["argument"].update(mu=[]), ns)
    edit("null_shifted_with_b.json", "null-shifted with a square key b", lambda c: c["argument"].update(b="0"), ns)
    edit("null_shifted_s_not_lowest_terms.json", "s = \"2/20\": a second spelling of 1/10",
         lambda c: c["argument"].update(s="2/20"), ns)
    edit("null_shifted_missing_rank.json", "null-shifted without its stated rank_at_least",
         lambda c: c["argument"].pop("rank_at_least"), ns)
    edit("square_kernel_missing_mu.json", "square-kernel without mu", lambda c: c["argument"].pop("mu"))
    edit("square_kernel_missing_g.json", "square-kernel without g", lambda c: c["argument"].pop("g"))
    edit("square_kernel_with_s.json", "square-kernel with a shift s", lambda c: c["argument"].update(s="1/10"))
    edit("square_with_mu.json", "square (not square-kernel) with a mu key",
         lambda c: c["argument"].update(name="square"))
    edit("square_kernel_mu_not_a_list.json", "mu a single rational string, not a list",
         lambda c: c["argument"].update(mu="1/1000"))
    edit("square_kernel_mu_object.json", "mu an object {\"1\": …}", lambda c: c["argument"].update(mu={"1": "1/1000"}))
    edit("square_kernel_mu_nine_terms.json", "mu with 9 entries (at most 8: Σ_{j ≤ 8} μ_j Y^{∘j})",
         lambda c: c["argument"].update(mu=["1/1000000"] * 9))
    edit("square_kernel_mu_not_lowest_terms.json", "a μ_j spelled \"2/2000\": a second spelling of 1/1000",
         lambda c: c["argument"]["mu"].__setitem__(0, "2/2000"))
    edit("square_kernel_mu_integer.json", "a μ_j as the JSON integer 0", lambda c: c["argument"]["mu"].__setitem__(0, 0))
    edit("square_kernel_mu_null.json", "a μ_j null", lambda c: c["argument"]["mu"].__setitem__(1, None))
    edit("square_kernel_mu_nested.json", "a μ_j given as a list", lambda c: c["argument"]["mu"].__setitem__(0, ["1/1000"]))
    edit("square_kernel_mu_too_long.json", "a μ_j of 201 characters",
         lambda c: c["argument"]["mu"].__setitem__(0, "1/" + "9" * 199))
    edit("square_kernel_mu_zero_denominator.json", "a μ_j \"1/0\"", lambda c: c["argument"]["mu"].__setitem__(0, "1/0"))
    edit("square_kernel_mu_trailing_zero.json", "mu ending in \"0\": a second spelling of the same kernel",
         lambda c: c["argument"]["mu"].append("0"))
    text_ = dumps(h24(H24_KERNEL)).replace('"1/1000"', "0.001", 1)
    emit("malformed", "square_kernel_mu_float.json", text_ + "\n", 2, "format", "a μ_j written as the JSON float 0.001")


def main() -> None:
    for folder in ("valid", "invalid", "malformed"):
        d = HERE / folder
        d.mkdir(exist_ok=True)
        for f in d.iterdir():
            f.unlink()
    valid()
    invalid()
    malformed()
    hostile()
    compact_files()
    unique_minimizer()
    sharper_files()
    kernel_files()
    (HERE / "MANIFEST.json").write_text(json.dumps(MANIFEST, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {len(MANIFEST)} files under {os.path.relpath(HERE)}")


if __name__ == "__main__":
    main()
