"""Inputs, jumps, chains and witness families built from codes (docs/math.md §1, §3–§9).

Depends on ``codes`` only; ``certify`` builds on it. Modules: ``inputs``, ``chains``,
``family`` (the weight-domination families of A.2 at any exact length),
``unique_minimizer`` (the four typed inputs of A.4), ``multihead`` (the replacement
family of B.1), ``transcript`` (the hard family of C.3).
"""
from .chains import PLANS, ChainPlan, Jump, direct_levels, interpolating_key, pair_chain, paper_levels
from .family import Chain, WitnessFamily, build_family, rank_nine_family
from .inputs import Input, WitnessError, min_ip_target
from .multihead import MultiheadFamily, multihead_family, replacement_inputs
from .transcript import TranscriptFamily, transcript_family
from .unique_minimizer import unique_minimizer_family

__all__ = [
    "PLANS",
    "Chain",
    "ChainPlan",
    "Input",
    "Jump",
    "MultiheadFamily",
    "TranscriptFamily",
    "WitnessError",
    "WitnessFamily",
    "build_family",
    "direct_levels",
    "interpolating_key",
    "min_ip_target",
    "multihead_family",
    "pair_chain",
    "paper_levels",
    "rank_nine_family",
    "replacement_inputs",
    "transcript_family",
    "unique_minimizer_family",
]
