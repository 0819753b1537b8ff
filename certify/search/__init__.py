"""Searching for codes with stronger certified rank bounds (``certify search``; docs/results.md).

* ``codes`` — :func:`~certify.search.codes.search`: the seeds scored, the local searches
  run within a budget of steps, the result made a certificate (and trimmed to a time limit);
* ``scores`` — the exact score of a code under the best chains (``R`` and the sharpest bound);
* ``seeds`` — the codes a search starts from (built-ins, Paley Hadamard, shortened
  Reed–Muller and Golay codes, lexicodes, maximum cliques, padded shorter codes);
* ``local`` — the local search over words that maximizes ``R``.
"""

DEFAULT_BUDGET = 20_000
"""Steps (moves tried, restarts, words trimmed from a seed) of ``certify search`` by default."""

RANDOM_SEED_WORDS = 5_000
"""Words of each random seed of ``certify search`` by default (``--random-words``; :func:`certify.search.seeds.add_random_seeds`)."""
