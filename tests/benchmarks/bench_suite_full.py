"""Benchmark: the full sweeps that the default test suite samples (issue 42: the suite's CPU time).

``python tests/benchmarks/bench_suite_full.py [PYTEST ARGS…]``. To keep ``pytest -n auto``
within its CPU budget on the 2-core CI machine, some checks run in the suite on a
representative part of their cases and in full here:

* cases marked with ``conftest.full_only`` (skipped in the suite, naming this script) run
  with ``CERTIFY_SUITE_FULL=1``: ``tests/test_search.py``'s same-seed reproducibility at
  ``m = 20`` (the suite keeps ``m = 14``), and ``tests/test_check_shards.py``'s
  ``verify --jobs 2`` against ``check.py`` on every compact certificate of the corpus (the
  suite keeps 17 of the 53: ``JOBS_SAMPLE``);
* the two fuzzers, ``tests/test_fuzz_checker.py`` and ``tests/test_fuzz_check_kernel.py``,
  at ``CERTIFY_FUZZ_N`` inputs each (default here 10,000; the suite's default is
  ``tests/fuzzing.py``'s ``COUNT``), from the same seed, so the suite's inputs are the first
  of these.

It runs ``pytest -p no:randomly -q`` on those tests with both variables set (extra
arguments go to pytest, e.g. ``-n 2``) and prints the CPU seconds it took; exit code:
pytest's. Run it before a release, or after changing the search, the checker or
check-kernel's parsers.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = [
    "tests/test_search.py::test_the_same_seed_and_budget_give_the_same_code_and_certificate",
    "tests/test_check_shards.py::test_jobs_2_gives_the_verdict_and_output_of_jobs_1",
    "tests/test_fuzz_checker.py",
    "tests/test_fuzz_check_kernel.py",
]


def main(argv: list[str]) -> int:
    env = dict(os.environ, CERTIFY_SUITE_FULL="1", CERTIFY_PROGRESS="0")
    env.setdefault("CERTIFY_FUZZ_N", "10000")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-q", "-rs", *TESTS, *argv],
                          cwd=ROOT, env=env)
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"bench_suite_full: CERTIFY_FUZZ_N={env['CERTIFY_FUZZ_N']}, {r.ru_utime + r.ru_stime:.1f} s of CPU, "
          f"exit {proc.returncode}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
