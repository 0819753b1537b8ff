"""Searching for codes with stronger certified rank bounds (``certify search``; docs/results.md).

* ``codes`` — seed codes for a token length ``m`` (built-ins, Paley Hadamard,
  shortened Reed–Muller and Golay codes, lexicodes, padded shorter codes) and a local
  search over words that maximizes the trace–Frobenius bound of the best chain plan.
"""
