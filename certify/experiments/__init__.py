"""The paper's §6.2 and §6.3 experiments (``certify experiment``), scored exactly.

``tasks`` builds the held-out matching task and its splits (plain Python), ``models`` trains
the models (PyTorch, the optional ``train`` extra, imported only when training), ``protocol``
runs the protocols and scores every exported table exactly, ``report`` writes text, JSON and
plots. A split file is proved held out by the trusted checker ``certify/check_split.py``
(standard library only). docs/experiments.md documents the protocol; docs/math.md §10 the task.
"""
