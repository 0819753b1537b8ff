"""``certify check-kernel``: a kernel table checked exactly against a witness family, one module per stage.

The data flow one way (docs/architecture.md):

* ``families`` — the family: listed, or a compact certificate's, streamed query by query;
* ``table`` — the table (:class:`~certify.kernels.table.KernelTable`), its limits, and
  ``load_table``, which hands a file to ``npz`` (archives, every header before any data) or
  ``json_table`` (JSON, parsed exactly); ``numbers`` and ``fields`` check its numbers and
  fields; ``blocks`` forms its blocks on the family, validated;
* ``predict`` — exact predictions and errors, one head or several;
* ``jumps`` (weight domination), ``ranks`` (exact ranks against the bound), ``readout``
  (whether any readout exists: the exact LP of :mod:`certify.linalg`);
* ``report`` — the one report type, as text and JSON.

``audit`` composes the stages for a listed family and ``streamed`` for a streamed one.
"""
