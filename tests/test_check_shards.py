"""The compact checker's bounded plan phase, announced cost, --max-work and --jobs shards (issue 20).

* The per-query counting of the common case (every chain through codeword keys) gives the
  counts of generating every chain into sets, query by query, on random codes and plans.
* ``certify verify --jobs 2`` gives the verdict and stdout of ``check.py`` on the compact
  certificates of the corpus (a sample of them in the suite, ``JOBS_SAMPLE``; every one with
  ``CERTIFY_SUITE_FULL=1``), and shards give the serial outcome on random mutants of them;
  shards' exact partial counts add up to the serial ones.
* A plan of millions of gaps is answered at ``plan`` (μ once per distinct gap).
"""
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify import check as C
from certify import shards as S
from certify.certificates.code_bound import make_plan
from certify.certificates.compact import build_compact_certificate
from codes import BinaryCode

from conftest import CORPUS, ROOT, assert_one_line_error, full_only, run_check_here, run_cli

COMPACT = sorted(p for sub in ("valid", "invalid") for p in (CORPUS / sub).glob("*.json")
                 if json.loads(p.read_text()).get("version") == 2)
CHECK = str(ROOT / "certify" / "check.py")
# --jobs 2 against check.py in the suite: every code size (5, 6, 15, 46 and 2,576 words), each step that the shards'
# counts decide (code, chains, plan, family, claim, arithmetic), each argument kind, and two refusals before any shard
# runs; the other corpus files (more arguments on the same codes) with CERTIFY_SUITE_FULL=1
# (tests/benchmarks/bench_suite_full.py).
JOBS_SAMPLE = {"compact_rank_nine_paper.json", "compact_hadamard24_best.json", "compact_square_golay24.json",
               "compact_unequal_weights.json", "compact_square_kernel_golay24.json", "compact_null_shifted_hadamard24.json",
               "compact_shifted_hadamard24.json", "compact_word_changed.json", "compact_word_inside_another.json",
               "compact_family_count_changed.json", "compact_pair_omitted.json", "compact_claim_raised.json",
               "square_claim_raised.json", "null_shifted_s_changed.json", "square_kernel_y_miscounted.json",
               "compact_broken_hash.json", "compact_gap_one.json"}


def _levels(doc):
    out = {}
    for e in doc["plan"]["entries"]:
        lv = [0]
        for g in e["gaps"]:
            lv.append(lv[-1] + g)
        out[e["distance"]] = tuple(lv)
    return out


@settings(max_examples=40)
@given(st.integers(8, 40), st.integers(3, 14), st.sampled_from(["best", "paper", "direct"]), st.integers(0, 2**32))
def test_per_query_counting_equals_generating_every_chain(m, t, plan, seed):
    import random

    rng = random.Random(seed)
    words = list({rng.getrandbits(m) | 1 << rng.randrange(m) for _ in range(t)})
    if len(words) < 2:
        return
    try:
        code = BinaryCode(m, tuple(words), "random")
        doc = build_compact_certificate(code, make_plan(code, plan))
    except Exception:  # a word inside another, or a distance the plan cannot bridge: not a certificate
        return
    ws = [int(w[::-1], 2) for w in doc["code"]["words"]]
    levels = _levels(doc)
    jumps = inputs = 0
    for lo in range(len(ws)):
        fast = C.compact_shard(ws, m, levels, lo, lo + 1, show=False)
        assert fast == C.compact_shard(ws, m, levels, lo, lo + 1, show=False, general=True)
        jumps, inputs = jumps + fast[1], inputs + fast[2]
    # and both equal the producer's own count of the family (certify.certificates, not the checker)
    assert (jumps, inputs) == (doc["family"]["jumps"], doc["family"]["inputs"])


def test_bit_sliced_distance_classes_equal_the_popcounts_and_interpolated_pairs_are_counted():
    """A code whose queries miss levels (interpolated keys) and hit others: the shard's pair counts are the popcounts'."""
    import random
    from collections import Counter

    rng = random.Random(7)
    m = 40
    words = list({sum(1 << b for b in rng.sample(range(m), 16)) for _ in range(400)})  # 16·|S| ≤ t: the bit-sliced way
    code = BinaryCode(m, tuple(words), "random")
    doc = build_compact_certificate(code, make_plan(code, "paper"))
    ws = [int(w[::-1], 2) for w in doc["code"]["words"]]
    levels = _levels(doc)
    pairs, jumps, inputs = C.compact_shard(ws, m, levels, 0, len(ws), show=False)
    assert (pairs, jumps, inputs) == C.compact_shard(ws, m, levels, 0, len(ws), show=False, general=True)
    full = (1 << m) - 1
    expected = Counter((s & (full ^ u)).bit_count() for s in ws for u in ws if s != u)
    assert {d: c for d, c in pairs.items() if c} == dict(expected)
    assert (jumps, inputs) == (doc["family"]["jumps"], doc["family"]["inputs"])
    firsts = [{(s & (full ^ u)).bit_count() for u in ws if u != s} for s in ws]
    missing = sum(1 for present in firsts for d in present for lv in levels[d][1:-1] if lv not in present)
    assert missing > 0  # some chains need interpolated keys: the per-pair part is exercised


def test_the_jobs_sample_is_in_the_corpus():
    assert JOBS_SAMPLE <= {p.name for p in COMPACT} and len(COMPACT) > len(JOBS_SAMPLE)


@pytest.mark.parametrize("path", [p if p.name in JOBS_SAMPLE else full_only(p, why="more of the same codes")
                                  for p in COMPACT], ids=lambda p: p.name)
def test_jobs_2_gives_the_verdict_and_output_of_jobs_1(path):
    one = run_check_here(str(path))  # check.py's main in this process: the reference; --jobs 2 starts its workers
    two = run_cli("verify", "--jobs", "2", str(path))
    assert (two.returncode, two.stdout) == (one.returncode, one.stdout)
    last = lambda p: [ln for ln in p.stderr.splitlines() if not ln.startswith(("work:", "checking"))]  # noqa: E731
    assert last(two) == last(one)  # the verdict line on stderr too


def _mutants(doc, rng, k):
    """Random one-field changes of a compact certificate, re-hashed so that they reach the checks behind ``integrity``."""
    out = []
    for _ in range(k):
        d = json.loads(json.dumps(doc))
        choice = rng.randrange(4)
        if choice == 0:
            i = rng.randrange(len(d["code"]["words"]))
            w = list(d["code"]["words"][i])
            j = rng.randrange(len(w))
            w[j] = "1" if w[j] == "0" else "0"
            d["code"]["words"][i] = "".join(w)
        elif choice == 1:
            e = rng.choice(d["plan"]["entries"])
            e["pairs"] += rng.choice([-1, 1])
        elif choice == 2:
            d["family"][rng.choice(["jumps", "inputs"])] += rng.choice([-1, 1])
        else:
            d["code"]["words"][rng.randrange(len(d["code"]["words"]))] = d["code"]["words"][0]
        d["sha256"] = C.content_hash(d)
        out.append(d)
    return out


def _outcome(doc, jobs):
    try:
        v = C.check(doc, run_shards=S.local(jobs) if jobs > 1 else None)
        return ("verified", v.proved, v.counts)
    except C.CertificateError as exc:
        return (type(exc).__name__, exc.step, str(exc))


def test_jobs_2_on_mutants_agrees_with_jobs_1():
    import random

    rng = random.Random(20)
    base = json.loads((CORPUS / "valid" / "compact_hadamard24_best.json").read_text())
    for d in _mutants(base, rng, 12):
        assert _outcome(d, 2) == _outcome(d, 1)


def test_shard_counts_add_up_to_the_serial_ones():
    doc = json.loads((CORPUS / "valid" / "compact_hadamard24_best.json").read_text())
    ws = [int(w[::-1], 2) for w in doc["code"]["words"]]
    levels, m = _levels(doc), doc["code"]["length"]
    whole = C.compact_shard(ws, m, levels, 0, len(ws), show=False)
    parts = [("ok", C.compact_shard(ws, m, levels, lo, hi, show=False)) for lo, hi in S.shard_ranges(len(ws), 5)]
    assert S.merge_shards(parts, levels) == whole
    assert whole[1] == doc["family"]["jumps"] and whole[2] == doc["family"]["inputs"]


def test_a_plan_of_a_million_gaps_is_answered_at_plan(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
    from bench_hostile import hostile_plan

    doc = hostile_plan(2048, range(1, 1415), 1, "1/4")  # Σ d ≈ 10⁶ gaps of 1 (μ = 1 at ε = 1/4)
    assert sum(len(e["gaps"]) for e in doc["plan"]["entries"]) > 10**6
    with pytest.raises(C.CertificateRejected) as exc:
        C.check(doc)
    assert exc.value.step == "plan"


def test_max_work_caps_and_names_the_number(tmp_path):
    path = str(CORPUS / "valid" / "compact_hadamard24_best.json")
    proc = subprocess.run([sys.executable, CHECK, "--max-work", "1000", path], capture_output=True, text=True)
    assert_one_line_error(proc, 2)
    assert "at most 1,000 by --max-work" in proc.stderr
    proc = run_cli("verify", "--max-work", "1000", path)
    assert_one_line_error(proc, 2)
    assert run_cli("verify", "--max-work", "100000000", "--jobs", "2", path).returncode == 0


@pytest.mark.parametrize("args", [["--max-work", "-5"], ["--max-work", "1e9"], ["--max-work"], ["--max-work", "0"]])
def test_bad_max_work_exits_2(args):
    proc = subprocess.run([sys.executable, CHECK, *args, str(CORPUS / "valid" / "compact_hadamard24_best.json")],
                          capture_output=True, text=True)
    assert_one_line_error(proc, 2)


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "x"], ["--max-work", "0"]])
def test_bad_jobs_in_verify_exit_2(args):
    assert_one_line_error(run_cli("verify", *args, str(CORPUS / "valid" / "compact_hadamard24_best.json")), 2)


def test_the_cost_is_announced_before_the_work():
    path = str(CORPUS / "valid" / "compact_hadamard24_best.json")
    env = dict(__import__("os").environ, CERTIFY_PROGRESS="1")
    proc = subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True, env=env)
    first = proc.stderr.splitlines()[0]
    assert first.startswith("work: ≈ ") and "word operations" in first and "on one core of the CI machine kind" in first
    env["CERTIFY_PROGRESS"] = "0"
    assert "work:" not in subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True, env=env).stderr


def test_a_killed_worker_is_exit_3_with_one_line_not_a_hang():
    import os
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "certify.cli", "verify", "--jobs", "2",
                             str(CORPUS / "valid" / "compact_square_golay24.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, CERTIFY_PROGRESS="0"))
    kids: list[str] = []
    deadline = time.monotonic() + 60
    while not kids and time.monotonic() < deadline and proc.poll() is None:
        try:
            kids = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        except OSError:
            pytest.skip("no /proc children list on this system")
        time.sleep(0.01)
    assert kids, "the workers never started"
    os.kill(int(kids[0]), signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3 and "a --jobs worker process died" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@settings(max_examples=60)
@given(st.integers(1, 70), st.integers(1, 40), st.integers(0, 2**32))
def test_bit_sliced_and_popcount_distance_classes_agree(m, t, seed):
    """Both ways of ``distance_classes`` give the sizes and first words of the popcounts, in order of first word."""
    import random
    from collections import Counter

    rng = random.Random(seed)
    density = rng.random()
    words = [sum(1 << b for b in range(m) if rng.random() < density) for _ in range(t)]
    comps = [((1 << m) - 1) ^ u for u in words]
    columns = [sum(1 << j for j, z in enumerate(comps) if z >> b & 1) for b in range(m)]
    s = rng.choice(words + [rng.getrandbits(m)])
    row = [(s & z).bit_count() for z in comps]
    first = {}
    for j, d in enumerate(row):
        first.setdefault(d, j)
    expected = (dict(Counter(row)), first)
    for sliced in (True, False):
        sizes, firsts = C.distance_classes(s, comps, columns, (1 << t) - 1, sliced=sliced)
        assert (sizes, firsts) == expected and list(firsts) == list(first)
