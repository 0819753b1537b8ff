"""Inputs, jumps, chains and witness families built from codes (docs/math.md §1, §3–§6).

Depends on ``codes`` only; ``certify`` builds on it.
"""
from .chains import PLANS, ChainPlan, Jump, direct_levels, interpolating_key, pair_chain, paper_levels
from .family import Chain, WitnessFamily, build_family, rank_nine_family
from .inputs import Input, WitnessError, min_ip_target

__all__ = [
    "PLANS",
    "Chain",
    "ChainPlan",
    "Input",
    "Jump",
    "WitnessError",
    "WitnessFamily",
    "build_family",
    "direct_levels",
    "interpolating_key",
    "min_ip_target",
    "pair_chain",
    "paper_levels",
    "rank_nine_family",
]
