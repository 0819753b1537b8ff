"""Constant-weight codes over ``{0,1}^M`` as ``int`` bitmasks (docs/math.md §1, §5–§7).

The bottom layer of the project: ``codes`` ← ``witnesses`` ← ``certify``.
"""
from .binary import BinaryCode
from .constant_weight import CodeError, ConstantWeightCode, colex_words, greedy_code, verify_code
from .golay import golay_code, golay_dodecads
from .hadamard import hadamard_code, paley_hadamard, rank_nine_code
from .library import CodeSpecError, builtin_names, code_name, lexicode, load_code, read_code_file
from .packing import MiddleLayer, gv_count, middle_ball
from .views import CodeViews, distance_counts, distance_row
from .tokens import (
    TokenFormatError,
    complement,
    directed_distance,
    from_bits,
    indicator,
    overlap,
    support,
    to_bits,
    weight,
)

__all__ = [
    "BinaryCode",
    "CodeError",
    "CodeSpecError",
    "builtin_names",
    "code_name",
    "distance_counts",
    "distance_row",
    "golay_code",
    "golay_dodecads",
    "lexicode",
    "load_code",
    "read_code_file",
    "ConstantWeightCode",
    "TokenFormatError",
    "colex_words",
    "complement",
    "directed_distance",
    "from_bits",
    "greedy_code",
    "gv_count",
    "hadamard_code",
    "indicator",
    "MiddleLayer",
    "middle_ball",
    "overlap",
    "paley_hadamard",
    "rank_nine_code",
    "support",
    "to_bits",
    "verify_code",
    "weight",
]
