"""Write the split-checker corpus: valid, invalid (exit 1, named after the attack) and malformed (exit 2) files.

Run from the repository root: ``python tests/splits/make_splits.py``. Every invalid file is a
valid split with one change, made here so that the change is exactly the attack its name
says; tests/test_experiments.py checks each verdict and the step it names (MANIFEST.json),
and that :func:`write` makes the committed files again, byte for byte.
"""
import copy
import json
import random
from pathlib import Path

from certify.experiments.tasks import Setting, SplitConfig, _sequence, build_split, permute_word, split_to_json

HERE = Path(__file__).resolve().parent


def base():
    split = build_split(Setting(4, 2, 2), SplitConfig(train=24, val=6, test=6), draw=0)
    return split, split_to_json(split)


def base_m2():
    """The same draw in the paper's layout (m = M + 2: the padding of S is (1, 0, x_(S ∪ {j})))."""
    split = build_split(Setting(4, 2, 2, layout="M+2"), SplitConfig(train=24, val=6, test=6), draw=0)
    return split, split_to_json(split)


def base_strict():
    """A strict split (--split strict, docs/math.md §10): every test sequence of the listed split of this draw has an
    all-training origin, so the strict test set is made of other sequences."""
    split = build_split(Setting(6, 2, 3), SplitConfig(train=30, val=6, test=6, strict=True), draw=0)
    return split, split_to_json(split)


def invalid_strict(split):
    """The attack on strictness: a test sequence with a second origin made of training words, a training pattern (the
    held-out one's bits reordered with the words) and a training permutation — the listed split's first such test
    sequence in place of parts.test[1]; everything else (held-out axes, disjointness, coverage, labels) holds."""
    listed = split.listed
    i = next(i for i, o in enumerate(listed.test_origin) if listed.training_origin(o) is not None)
    attacked = copy.copy(split)
    attacked.test, attacked.test_origin = list(split.test), list(split.test_origin)
    attacked.test[1], attacked.test_origin[1] = listed.test[i], listed.test_origin[i]
    return {"test_sequence_with_a_second_all_training_origin": (split_to_json(attacked), "strict")}


def malformed_strict(doc):
    out = {}
    d = copy.deepcopy(doc)  # a number where true or false is asked (True == 1 in Python)
    d["strict"] = 1
    out["strict_given_as_a_number"] = d
    # the strict step's look-ups (test sequences × training permutations × q) past MAX_ORIGIN_SEARCH, refused from the
    # counts before any: 12 words of 8 bits, 2,000 permutations, q = 12, just enough test records, ≈ 100 KB
    from certify.check_split import MAX_ORIGIN_SEARCH

    d = copy.deepcopy(doc)
    q, P = 12, 2000
    d["setting"].update(M=8, q=q, n=2 * q, h=4, m=11)
    d["words"] = [format(w, "08b")[::-1] for w in range(1 << 8) if w.bit_count() == 4][:q]
    rng, actions = random.Random(0), {}
    while len(actions) < P:  # permutations that act differently on the words (two alike are refused first)
        p = rng.sample(range(8), 8)
        actions.setdefault(tuple(permute_word(int(w[::-1], 2), p) for w in d["words"]), p)
    d["permutations"] = list(actions.values())
    d["held_out"] = {"words": [0], "patterns": ["0" * q], "permutations": [0]}
    d["tokens"] = ["0" * 11]
    rec = {"tokens": [0] * (2 * q), "words": list(range(q)), "pattern": "0" * q, "permutation": 0}
    d["parts"] = {"train": [dict(rec, permutation=1)], "val": [dict(rec, permutation=1)],
                  "test": [rec] * (MAX_ORIGIN_SEARCH // ((P - 1) * q) + 1)}
    d["family"] = {"inputs": []}
    out["strict_search_over_the_limit"] = d
    return out


def invalid_m2(split, doc):
    """Attacks on the M + 2 layout: its padding is where it differs from ours."""
    out = {}
    d = copy.deepcopy(doc)  # a padding (weight h + 1) swapped for a weight-h token at overlap one: another word's match
    M, h = split.setting.M, split.setting.h
    for rec in d["parts"]["train"]:
        if "1" in rec["pattern"]:
            break
    tokens = [int(t[::-1], 2) for t in d["tokens"]]
    pad = next(i for i in rec["tokens"] if tokens[i] & 3 == 1 and (tokens[i] >> 2).bit_count() == h + 1)
    word = tokens[pad] >> 2
    # drop one coordinate of S ∪ {j} so that what is left is not S (whose padding S ∪ {j} is): a weight-h word
    # S' ≠ S at overlap one with q_S — the match of another word
    other = next(word & ~(1 << i) for i in range(M) if word >> i & 1
                 and (word & ~(1 << i)) | (~(word & ~(1 << i)) & ((word & ~(1 << i)) + 1)) != word)
    swapped = 0b01 | (other << 2)
    bits = format(swapped, f"0{split.setting.m}b")[::-1]
    if bits not in d["tokens"]:
        d["tokens"].append(bits)
    rec["tokens"][rec["tokens"].index(pad)] = d["tokens"].index(bits)
    out["m_plus_2_padding_swapped_for_another_words_match"] = (d, "origin")
    d = copy.deepcopy(doc)
    d["family"]["inputs"][0]["target"] = 1 - d["family"]["inputs"][0]["target"]
    out["m_plus_2_test_label_flipped"] = (d, "labels")
    d = copy.deepcopy(doc)  # review: a weight-(h + 1) database token without coordinate 0 is no word's padding
    T = next(t for t in range(1 << M) if t.bit_count() == h + 1 and not t & 1)
    d["tokens"].append(format(0b01 | (T << 2), f"0{split.setting.m}b")[::-1])
    out["m_plus_2_token_that_is_no_words_padding"] = (d, "tokens")
    return out


def _inverse(p):
    inv = [0] * len(p)
    for i, j in enumerate(p):
        inv[j] = i
    return inv


def disguised(doc, split, part: str):
    """A test record whose origin uses held-out things but whose tokens are a ``part`` sequence (via permutations)."""
    words = list(split.words)
    held_w = set(doc["held_out"]["words"])
    held_p = set(doc["held_out"]["patterns"])
    for rec in doc["parts"][part]:
        src = split.perms[rec["permutation"]]
        for k in doc["held_out"]["permutations"]:
            inv = _inverse(split.perms[k])
            image = [permute_word(permute_word(words[w], src), inv) for w in rec["words"]]
            order = sorted(range(len(image)), key=lambda i: image[i])
            ws = [words.index(image[i]) for i in order]
            pat = "".join(rec["pattern"][i] for i in order)
            if pat in held_p and held_w & set(ws):
                return {"tokens": list(reversed(rec["tokens"])), "words": ws, "pattern": pat, "permutation": k}
    raise SystemExit(f"no disguised {part} sequence in this split: change the base split")


def invalid(split, doc):
    out = {}

    d = copy.deepcopy(doc)
    d["parts"]["test"][0] = disguised(d, split, "train")
    out["test_sequence_in_training_via_a_permutation"] = (d, "disjoint")

    d = copy.deepcopy(doc)
    d["parts"]["test"][1] = disguised(d, split, "val")
    out["test_sequence_in_validation_via_a_permutation"] = (d, "disjoint")

    d = copy.deepcopy(doc)
    d["parts"]["test"][2] = copy.deepcopy(d["parts"]["test"][0])
    d["parts"]["test"][2]["tokens"] = list(reversed(d["parts"]["test"][2]["tokens"]))
    out["test_sequence_repeated_in_another_order"] = (d, "disjoint")

    d = copy.deepcopy(doc)
    t0 = d["parts"]["test"][0]["tokens"][0]
    d["parts"]["train"] = [r for r in d["parts"]["train"] if t0 not in r["tokens"]]
    out["test_token_never_seen_in_training"] = (d, "coverage")

    d = copy.deepcopy(doc)  # a training sequence made, tokens and all, with a held-out permutation
    rec, k = d["parts"]["train"][0], d["held_out"]["permutations"][0]
    seq = _sequence(split.setting, tuple(split.words[w] for w in rec["words"]), tuple(int(c) for c in rec["pattern"]),
                    split.perms[k], random.Random(0))
    bits = [format(z, f"0{split.setting.m}b")[::-1] for z in seq]
    d["tokens"] += [b for b in dict.fromkeys(bits) if b not in d["tokens"]]
    rec["tokens"], rec["permutation"] = [d["tokens"].index(b) for b in bits], k
    out["training_uses_a_held_out_permutation"] = (d, "held-out")

    d = copy.deepcopy(doc)
    d["held_out"]["patterns"].append(d["parts"]["train"][3]["pattern"])
    out["training_uses_a_held_out_pattern"] = (d, "held-out")

    d = copy.deepcopy(doc)
    d["held_out"]["words"] = [w for w in range(len(d["words"])) if w not in d["parts"]["test"][0]["words"]][:1]
    out["test_without_a_held_out_word"] = (d, "held-out")

    d = copy.deepcopy(doc)
    r = d["parts"]["train"][5]
    r["pattern"] = "".join("1" if c == "0" else "0" for c in r["pattern"])
    out["origin_pattern_does_not_make_the_tokens"] = (d, "origin")

    d = copy.deepcopy(doc)
    d["family"]["inputs"][0]["target"] = 1 - d["family"]["inputs"][0]["target"]
    out["test_label_flipped"] = (d, "labels")

    d = copy.deepcopy(doc)
    d["family"]["inputs"].pop()
    out["test_input_missing_from_the_family"] = (d, "labels")

    d = copy.deepcopy(doc)
    d["tokens"].append("1" * len(d["tokens"][0]))
    out["token_that_is_not_of_the_task"] = (d, "tokens")

    d = copy.deepcopy(doc)  # review: True == 1 in Python; a bool is not a position
    k = next(i for i, x in enumerate(d["family"]["inputs"]) if x["query"] in (0, 1))
    d["family"]["inputs"][k]["query"] = bool(d["family"]["inputs"][k]["query"])
    out["family_query_given_as_a_bool"] = (d, "labels")
    return out


def malformed(doc):
    out = {}
    out["not_json"] = "this is not JSON\n"
    d = copy.deepcopy(doc)
    d["format"] = "certify-split/0"
    out["wrong_format"] = d
    d = copy.deepcopy(doc)
    d["setting"]["M"] = 4.0
    out["float_in_setting"] = d
    d = copy.deepcopy(doc)
    d["parts"]["train"][0]["tokens"].pop()
    out["sequence_too_short"] = d
    d = copy.deepcopy(doc)
    d["parts"]["test"][0]["tokens"][0] = len(d["tokens"])
    out["token_index_out_of_range"] = d
    d = copy.deepcopy(doc)
    d["permutations"][0][0] = d["permutations"][0][1]
    out["permutation_with_a_repeat"] = d
    d = copy.deepcopy(doc)
    d["extra"] = 1
    out["unknown_key"] = d
    text = json.dumps(doc).replace('"draw": 0', '"draw": 1e999999999', 1)
    out["expanding_number"] = text
    d = copy.deepcopy(doc)  # review: a copy of a held-out permutation under another index, used by training
    d["permutations"].append(list(d["permutations"][d["held_out"]["permutations"][0]]))
    out["held_out_permutation_listed_twice"] = d
    d = copy.deepcopy(doc)  # review: the pattern follows the listed word order; reversed, a held-out one hides
    r = d["parts"]["train"][0]
    r["words"], r["pattern"] = r["words"][::-1], r["pattern"][::-1]
    out["origin_words_out_of_order"] = d
    d = copy.deepcopy(doc)
    d["parts"]["test"] = []
    d["family"]["inputs"] = []
    out["empty_test_set"] = d
    # issue 29: 12,870 words × 10,000 permutations took 5 GB and 235 s before exit 2; the product is refused from
    # the counts (1,700 weight-8 words of 16 bits × 600 permutations = 1,020,000 > 1,000,000), in a 60 KB file
    d = copy.deepcopy(doc)
    d["setting"].update(M=16, h=8, m=19)
    d["words"] = [format(w, "016b")[::-1] for w in range(1 << 16) if w.bit_count() == 8][:1700]
    rng = random.Random(0)
    d["permutations"] = [rng.sample(range(16), 16) for _ in range(600)]
    out["word_actions_over_the_limit"] = d
    return out


def write(out: Path) -> dict:
    """Write the corpus and its MANIFEST.json into ``out`` (its three folders emptied first); return the manifest."""
    split, doc = base()
    manifest = {"valid": [], "invalid": {}, "malformed": []}
    for sub in ("valid", "invalid", "malformed"):
        (out / sub).mkdir(parents=True, exist_ok=True)
        for f in (out / sub).glob("*.json"):
            f.unlink()
    (out / "valid" / "small_M4_q2.json").write_text(json.dumps(doc) + "\n")
    manifest["valid"].append("small_M4_q2.json")
    for name, (d, step) in invalid(split, doc).items():
        (out / "invalid" / f"{name}.json").write_text(json.dumps(d) + "\n")
        manifest["invalid"][f"{name}.json"] = step
    split2, doc2 = base_m2()
    (out / "valid" / "small_M4_q2_layout_m_plus_2.json").write_text(json.dumps(doc2) + "\n")
    manifest["valid"].append("small_M4_q2_layout_m_plus_2.json")
    for name, (d, step) in invalid_m2(split2, doc2).items():
        (out / "invalid" / f"{name}.json").write_text(json.dumps(d) + "\n")
        manifest["invalid"][f"{name}.json"] = step
    split3, doc3 = base_strict()
    (out / "valid" / "strict_M6_q2.json").write_text(json.dumps(doc3) + "\n")
    manifest["valid"].append("strict_M6_q2.json")
    for name, (d, step) in invalid_strict(split3).items():
        (out / "invalid" / f"{name}.json").write_text(json.dumps(d) + "\n")
        manifest["invalid"][f"{name}.json"] = step
    d = copy.deepcopy(doc)  # an M + 3 file that says m = M + 2: its tokens are one bit too long
    d["setting"]["m"] -= 1
    (out / "malformed" / "m_plus_2_setting_with_m_plus_3_tokens.json").write_text(json.dumps(d) + "\n")
    manifest["malformed"].append("m_plus_2_setting_with_m_plus_3_tokens.json")
    for name, d in {**malformed(doc), **malformed_strict(doc3)}.items():
        (out / "malformed" / f"{name}.json").write_text(d if isinstance(d, str) else json.dumps(d) + "\n")
        manifest["malformed"].append(f"{name}.json")
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


if __name__ == "__main__":
    write(HERE)
