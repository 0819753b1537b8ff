"""Kernel tables of trained or constructed heads, checked exactly against a family.

* ``table`` — reads ``.npz``/``.json`` kernel tables (docs/kernel-table-format.md);
* ``audit`` — predictions, errors, jump inequalities and ranks of a table on a family;
* ``lp`` — the exact readout LP, with certificates verified by substitution.
"""
