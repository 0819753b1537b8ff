"""Searching for codes with stronger certified rank bounds (``certify search``; docs/results.md).

* ``codes`` — seed codes for a token length ``m`` (built-ins, Paley Hadamard,
  shortened Reed–Muller and Golay codes, lexicodes, padded shorter codes) and a local
  search over words that maximizes the trace–Frobenius bound of the best chain plan.
"""

DEFAULT_BUDGET = 20_000
"""Steps (moves tried, restarts, words trimmed from a seed) of ``certify search`` by default."""
