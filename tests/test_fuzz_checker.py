"""Fuzzing the certificate checker in-process: every input gets a verdict, quickly, and no false one (issue 7).

``COUNT`` (default 3,000; ``CERTIFY_FUZZ_N``; 10,000 in tests/benchmarks/bench_suite_full.py) inputs per run,
fixed by ``CERTIFY_FUZZ_SEED``:
byte-level edits of valid certificates — with no argument and with each kind of ``argument``
(shifted, square, null-shifted, square-kernel) — (flips, truncations, insertions of nasty fragments,
numbers respelled huge or non-canonically, deep nesting, needless escapes) and structural
edits of their parsed form (values, types, keys, items; the argument's parameters, ``μ`` terms and
kind, with its numbers often recomputed to match) *re-hashed*, so that only the
mathematics can catch them. Asserted for every input: no exception escapes the checker,
the verdict is 0, 1 or 2 (3 would be a checker bug), no input takes over a second, and
every accepted input's claim is re-derived as true by the producer-side lemmas
(``fuzzing.rederive_certificate_bound``), which share no code with ``certify/check.py``.
"""
import copy
import json
import time
from collections import Counter

from certify.check import CertificateError, check, content_hash, loads

from conftest import CORPUS, cpu_unit
from fuzzing import (COUNT, SEED, SLOW_UNITS, mutate_argument, mutate_bytes, mutate_structure, rederive_certificate_bound,
                     rng_for)

BASES = [(CORPUS / "valid" / name).read_bytes() for name in
         ("small_paper.json", "small_direct.json", "small_length_four.json", "small_error_quarter.json", "weaker_claim.json",
          "small_paper_shifted.json", "small_paper_square.json", "small_paper_null_shifted.json",
          "small_paper_square_kernel.json")]


def verdict(data: bytes):
    try:
        return 0, check(loads(data))
    except CertificateError as exc:
        return exc.exit_code, exc


def test_checker_fuzz(tmp_path):
    rng = rng_for("checker")
    docs = [json.loads(b) for b in BASES]
    outcomes: Counter = Counter()
    slowest = (0.0, None)
    for k in range(COUNT):
        b = rng.randrange(len(BASES))
        if rng.random() < 0.45:
            data, kind = BASES[b], []
            for _ in range(rng.choice([1, 1, 2, 3])):
                data, what = mutate_bytes(data, rng)
                kind.append(what)
        else:
            doc = copy.deepcopy(docs[b])
            semantic = rng.random() < 0.6
            # the argument's parameters, μ terms, kind, stated numbers, often restated consistently (fuzzing.py)
            kind = [mutate_argument(doc, rng)] if "argument" in doc and rng.random() < 0.3 else []
            kind += [mutate_structure(doc, rng, semantic) for _ in range(rng.choice([0, 1, 1, 2, 3] if kind else [1, 1, 2, 3]))]
            if rng.random() < 0.9:  # an attacker recomputes the hash: only the mathematics may catch the edit
                doc["sha256"] = content_hash(doc)
            data = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])).encode()
        start = time.process_time()  # CPU seconds: a loaded machine does not make an input slow
        try:
            code, result = verdict(data)
        except Exception as exc:  # an escaped exception: keep the input for the corpus
            (tmp_path / f"escaped_{k}.json").write_bytes(data)
            raise AssertionError(f"input {k} (seed {SEED}, {kind}) raised {type(exc).__name__}: {exc}") from exc
        elapsed = time.process_time() - start
        slowest = max(slowest, (elapsed, k))
        assert code in (0, 1, 2), f"input {k} (seed {SEED}, {kind}): exit {code}: {result}"
        if code:
            assert "\n" not in str(result) and len(str(result)) < 600, f"input {k}: message too long"
        else:
            proved = rederive_certificate_bound(json.loads(data))
            assert result.rank_at_least <= proved == result.proved, f"input {k} (seed {SEED}, {kind})"
        outcomes[code] += 1
    print("outcomes", dict(outcomes), "slowest", slowest)
    assert slowest[0] < SLOW_UNITS * cpu_unit(), f"input {slowest[1]} took {slowest[0]:.2f} s (seed {SEED})"
    # The fuzzer reaches every verdict, or it tests less than it claims.
    assert outcomes[0] and outcomes[1] and outcomes[2], outcomes
    assert sum(outcomes.values()) == COUNT  # every input got its verdict (3,000 here; 10,000 in the full sweep)


def test_the_oracle_rederives_each_argument_kind_and_its_hypotheses():
    """``rederive_certificate_bound`` (the fuzzer's oracle) recomputes null-shifted and square-kernel too, with
    the Gram entries counted from the words, and refuses a consistent file that breaks a hypothesis."""
    import pytest

    from fuzzing import restate_argument, stated_pairs

    def load(name):
        return json.loads((CORPUS / "valid" / name).read_text())

    for name, proved in (("small_paper_null_shifted.json", 3), ("small_paper_square_kernel.json", 3),
                         ("null_shifted_rank_nine_direct.json", 13), ("shifted_rank_nine_direct.json", 12),
                         ("small_paper_square.json", 3)):
        assert rederive_certificate_bound(load(name)) == proved == check(load(name)).proved, name
    for name, edit in (("small_paper_null_shifted.json", {"s": "-1/10"}), ("small_paper_null_shifted.json", {"s": "1"}),
                       ("small_paper_square_kernel.json", {"mu": ["-1/1000", "1/50000"]}),
                       ("small_paper_square_kernel.json", {"mu": ["1/12"]})):  # m₀ = 1 ≥ 1 + b + g
        doc = load(name)
        t, _, classes, length = stated_pairs(doc)
        doc["argument"] = restate_argument(dict(doc["argument"], **edit), t, classes, length)
        with pytest.raises(AssertionError):
            rederive_certificate_bound(doc)
        doc["sha256"] = content_hash(doc)
        code, result = verdict(json.dumps(doc).encode())
        assert code == 1 and result.step == "arithmetic", (edit, result)
