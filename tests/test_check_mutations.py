"""Property tests: point edits of a valid certificate never verify unless the claim is still proved.

Each edit is followed by recomputing ``sha256`` (an attacker can always do that), so the
mathematics has to catch it. The only edits allowed to verify are those that leave the
proof untouched: the producer's free-text fields, a weaker claim, or a reordering of
chains.
"""
import copy
import json
import random

from hypothesis import event, given, settings
from hypothesis import strategies as st

from certify.check import CertificateError, check, content_hash

from conftest import CORPUS
from fuzzing import mutate_argument, rederive_argument_bound

BASES = {name: json.loads((CORPUS / "valid" / name).read_text())
         for name in ("small_paper.json", "small_paper_shifted.json", "small_paper_square.json",
                      "small_paper_null_shifted.json", "small_paper_square_kernel.json")}
# Certificates of every kind whose last step is an argument: their argument and claim get edited.
ARGUMENT_BASES = {name: json.loads((CORPUS / "valid" / name).read_text())
                  for name in ("small_paper_shifted.json", "small_paper_square.json", "small_paper_null_shifted.json",
                               "small_paper_square_kernel.json", "compact_null_shifted_hadamard24.json",
                               "compact_null_shifted_s_zero.json", "compact_square_kernel_integer_ratio.json",
                               "compact_square_kernel_empty_mu.json", "compact_square_kernel_eight_terms.json",
                               "compact_shifted_hadamard24.json", "um_null_shifted.json", "um_shifted_not_better.json",
                               "um_square_kernel.json")}


def leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, path + (i,))
    else:
        yield path, node


def containers(node, path=()):
    if isinstance(node, list) and node:
        yield path, node
    if isinstance(node, (dict, list)):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            yield from containers(v, path + (k,))


def get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def mutate(doc, rng):
    """Apply one random point edit; return a description (path, kind)."""
    kind = rng.choice(["leaf", "leaf", "leaf", "drop", "duplicate", "swap"])
    if kind == "leaf":
        path, value = rng.choice([lv for lv in leaves(doc) if lv[0] != ("sha256",)])
        parent = get(doc, path[:-1])
        if isinstance(value, bool) or value is None:
            new = 1
        elif isinstance(value, int):
            new = value + rng.choice([-2, -1, 1, 2, 7])
        elif set(value) <= set("01") and value:
            k = rng.randrange(len(value))
            new = value[:k] + ("1" if value[k] == "0" else "0") + value[k + 1:]
        elif value.lstrip("-").replace("/", "").isdigit():
            num, _, den = value.partition("/")
            new = f"{int(num) + rng.choice([-1, 1])}" + (f"/{den}" if den else "")
        else:
            new = value + "x"
        parent[path[-1]] = new
        return path, kind
    path, lst = rng.choice(list(containers(doc)))
    if kind == "drop":
        del lst[rng.randrange(len(lst))]
    elif kind == "duplicate":
        lst.append(copy.deepcopy(rng.choice(lst)))
    else:
        i, j = rng.randrange(len(lst)), rng.randrange(len(lst))
        lst[i], lst[j] = lst[j], lst[i]
    return path, kind


def proof_part(doc):
    body = {k: v for k, v in doc.items() if k not in ("sha256", "producer", "claim")}
    body = copy.deepcopy(body)
    body["chains"] = sorted(body.get("chains", []), key=lambda c: json.dumps(c, sort_keys=True))
    claim = {k: v for k, v in doc.get("claim", {}).items() if k != "rank_at_least"}
    return body, claim


@settings(max_examples=400)
@given(st.integers(0, 2**32), st.integers(1, 3), st.sampled_from(sorted(BASES)))
def test_point_edits_never_verify_a_claim_the_data_do_not_prove(seed, edits, name):
    """Also on bases with an ``argument`` of each kind (its parameters, ``mu`` and stated numbers get edited too)."""
    BASE = BASES[name]
    PROVED = check(BASE).proved
    rng = random.Random(seed)
    doc = copy.deepcopy(BASE)
    for _ in range(edits):
        mutate(doc, rng)
    doc["sha256"] = content_hash(doc)
    try:
        verified = check(doc)
    except CertificateError as exc:
        event(f"exit {exc.exit_code} at {exc.step}")
        assert exc.exit_code in (1, 2)
        return
    event("verified")
    # It verified: then the proof must be the original one and the claim no stronger.
    assert proof_part(doc) == proof_part(BASE)
    assert verified.rank_at_least <= PROVED == verified.proved


@settings(max_examples=200)
@given(st.integers(0, 2**32), st.sampled_from(sorted(BASES)))
def test_any_edit_without_rehash_is_caught(seed, name):
    BASE = BASES[name]
    rng = random.Random(seed)
    doc = copy.deepcopy(BASE)
    mutate(doc, rng)
    if content_hash(doc) == BASE["sha256"]:
        return  # the edit was a no-op (e.g. swapping an item with itself)
    try:
        check(doc)
    except CertificateError as exc:
        assert exc.exit_code in (1, 2)
    else:
        raise AssertionError("an edited certificate verified under its old hash")


@settings(max_examples=400)
@given(st.integers(0, 2**32), st.integers(1, 3), st.sampled_from(sorted(ARGUMENT_BASES)))
def test_argument_edits_are_refused_or_proved_by_the_lemmas(seed, edits, name):
    """Edits of the ``argument`` alone — ``s``, ``b``, ``g``, each ``μ_j`` nudged (also below 0 or to
    ``s ≥ 1``), ``μ`` terms added or dropped, the kind renamed (shifted ↔ null-shifted, square ↔
    square-kernel), the stated numbers or rank or the claim moved — most often with the stated numbers
    recomputed to match (no hypothesis checked) and the claim raised to them. Whatever verifies must be
    re-derived by ``certify.lemmas.sharper`` with every hypothesis of Theorem A / Lemma N, and prove its claim.
    """
    BASE = ARGUMENT_BASES[name]
    base = check(BASE)
    rng = random.Random(seed)
    doc = copy.deepcopy(BASE)
    kinds = [mutate_argument(doc, rng) for _ in range(edits)]
    doc["sha256"] = content_hash(doc)
    try:
        verified = check(doc)
    except CertificateError as exc:
        event(f"exit {exc.exit_code} at {exc.step}")
        assert exc.exit_code in (1, 2), (kinds, str(exc))
        assert exc.exit_code == 1 or "argument" in str(exc), (kinds, str(exc))
        return
    event("verified" + (" (argument changed)" if doc["argument"] != BASE["argument"] else ""))
    proved = rederive_argument_bound(doc, base.trace_frobenius)
    assert verified.rank_at_least <= proved == verified.proved, (kinds, doc["argument"])
