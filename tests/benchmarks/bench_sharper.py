"""Cost of the sharper last steps (issues 15, 27; docs/math.md §5): checker, producers, ``certify bounds``.

    python tests/benchmarks/bench_sharper.py

Times (best of three, seconds) on the machine that runs it:

* the checker's argument step (``certify.check._argument_bound``) on each family's factors —
  arithmetic on the distinct chain factors only, independent of the family's size;
* the producer's choice of parameters (``best_shift``: exact piecewise optimum;
  ``best_square``: float Nelder–Mead, then exact roundings; ``best_null_shift``: the shift's
  candidates under Theorem A; ``best_square_kernel``: 4-parameter Nelder–Mead, then exact
  decimal roundings) and the checker's step on the new kinds (``null-shifted``, ``square-kernel``,
  on the pair classes ``(F, d)``);
* ``certify search``'s score of one code (:func:`certify.search.codes.sharp_bound`: exact
  distances, then every argument's best parameters);
* Theorem 1 of ``certify bounds --m M`` in a fresh process, and the second exact optimization
  over Δ (the shifted value) alone, once the code sizes are known.
"""
from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from certify import check as C  # noqa: E402
from certify.bounds import chains as CH, code_sizes as CS, quantities as QU, trace_frobenius as TF  # noqa: E402
from certify.bounds import values as V  # noqa: E402
from certify.certificates.code_bound import code_bound, make_plan  # noqa: E402
from certify.lemmas import choice as SC  # noqa: E402
from certify.lemmas import sharper as S  # noqa: E402
from codes import load_code  # noqa: E402


def best_of(f, n=3):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    print("family               t  factors  checker step  best_shift  best_square  bounds (TF / shifted / square)")
    for name, plan in (("rank-nine", "paper"), ("rank-nine", "direct"), ("hadamard24", "best"), ("golay24", "best")):
        code = load_code(name)
        b = code_bound(code, make_plan(code, plan))
        fs = b.by_factor
        ts, sh = best_of(lambda: SC.best_shift(b.t, fs))
        tq, sq = best_of(lambda: SC.best_square(b.t, fs))
        best = max((sh, sq), key=lambda a: a.rank_at_least)
        arg = dict({"name": best.name}, **best.params)
        tc, _ = best_of(lambda: [C._argument_bound(b.t, b.classes, arg, code.length) for _ in range(100)])
        print(f"{name + ' ' + plan:<18} {b.t:>5} {len(fs):>8} {tc / 100 * 1e6:>10.0f} µs {ts:>10.4f} {tq:>12.4f}"
              f"   {b.rank_at_least} / {sh.rank_at_least} / {sq.rank_at_least}")
    print()
    print("the null-space step and the kernel: producer time (s), checker step (µs), bounds")
    print("family               t  classes  best_null_shift  best_square_kernel  checker null / kernel   null / kernel")
    for name, plan in (("rank-nine", "paper"), ("rank-nine", "direct"), ("hadamard24", "best"), ("golay24", "best")):
        code = load_code(name)
        b = code_bound(code, make_plan(code, plan))
        fs, cl = b.by_factor, b.classes
        tn, nu = best_of(lambda: SC.best_null_shift(b.t, fs))
        tk, ke = best_of(lambda: SC.best_square_kernel(b.t, cl, code.length))
        an = dict({"name": nu.name}, **nu.params)
        ak = dict({"name": ke.name}, **ke.params)
        tcn, _ = best_of(lambda: [C._argument_bound(b.t, cl, an, code.length) for _ in range(100)])
        tck, _ = best_of(lambda: [C._argument_bound(b.t, cl, ak, code.length) for _ in range(100)])
        print(f"{name + ' ' + plan:<18} {b.t:>5} {len(cl):>8} {tn:>16.4f} {tk:>19.4f} {tcn / 100 * 1e6:>9.0f} / "
              f"{tck / 100 * 1e6:<6.0f}µs   {nu.rank_at_least} / {ke.rank_at_least}")
    from certify.search.codes import factor_table, sharp_bound
    for m, name in ((24, "golay24"), (32, "RM(2,5) weight 16 / 5,000 words")):
        if m == 24:
            words = load_code("golay24").words
        else:
            import json
            words = [int(w[::-1], 2) for w in json.loads((Path(__file__).resolve().parents[2] / "docs" / "results"
                                                          / "m32.cert.json").read_text())["code"]["words"]]
        F = factor_table(m)
        tsb, sb = best_of(lambda: sharp_bound(words, m, F))
        print(f"  search score (sharp_bound) of {name}, m = {m}, t = {len(words):,}: {tsb:.3f} s → r ≥ {sb}")
    print()
    print("certify bounds, Theorem 1 (exact mode): all of theorem1, and the shifted optimization alone (layers warm)")
    for m in (168, 1000, 5000, 20000):
        t_all, sec = best_of(lambda: V.theorem1(m), 1)
        M = QU.even(m)
        layer, chains = CS.layer_sizes(M), CH.chain_table(1)
        t_shift, _ = best_of(lambda: TF.optimize_exact(
            layer, range(2, layer.h + 1), chains.squared, value=V.shifted_tf_bound,
            balance=lambda d: CS.log2_T_float(M, d) - CH.pattern_log2_squared(d, 1) - 2))
        print(f"  m = {m:>6}: exact 2^{sec.values['exact'].log2[0]:.2f}, shifted 2^{sec.values['shifted'].log2[0]:.2f}"
              f"   theorem1 {t_all:7.2f} s, of which the shifted value ≤ {t_shift:6.3f} s")


if __name__ == "__main__":
    main()
