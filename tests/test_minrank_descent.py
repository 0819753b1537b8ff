"""The descent repair of the invariant-kernel search and starting a search from a certificate.

certify.minrank.descent moves the right factors by the rows' margins as LP value functions, their derivatives
taken from the LPs' duals; a search can start from a certificate (``search(start=…)``, ``certify minrank
--start FILE``). Everything made here goes through ``certify/check_symmetric.py``'s check.
"""
import json

import pytest

from conftest import assert_one_line_error, run_cli_here

from certify.check_symmetric import check, load
from certify.minrank.symmetric import shipped_path


def test_a_rows_margin_moves_with_the_right_factors_as_its_duals_say():
    """The envelope theorem: ∂δ_w/∂V_κ[j, r] = y_j·u_r/2 (docs of certify.minrank.descent), against a central
    difference of the row's LP value, on every entry of the worst row's gradient that is not zero."""
    pytest.importorskip("highspy")
    import numpy as np

    from certify.minrank.invariant import _highs, _State
    from certify.minrank.terwilliger import Algebra

    core, alg = _highs(), Algebra((3, 5), (0, 1))
    state = _State(alg)
    full, _, _ = state.solve(core, 0.1, True)
    for k in alg.kappas:  # every block cut to rank 1: the rows are then below their caps, where δ is smooth
        _, _, vt = np.linalg.svd(full[k])
        state.rank[k], state.right[k] = 1, vt[:1].T.copy()
    worst = min(alg.rows, key=lambda w: state.solve_row(core, w, 0.1, False)[2])
    gradient: dict = {}
    delta = state.solve_row(core, worst, 0.1, False, gradient=gradient)[2]
    assert delta < 0.1
    checked = 0
    for (k, j), g in gradient.items():
        for r, value in enumerate(g):
            if abs(value) < 1e-6:
                continue
            n, eps, sides = alg.position[k][j], 1e-6, []
            for sign in (1, -1):
                state.right[k][n, r] += sign * eps
                sides.append(state.solve_row(core, worst, 0.1, False)[2])
                state.right[k][n, r] -= sign * eps
            assert (sides[0] - sides[1]) / (2 * eps) == pytest.approx(value, rel=1e-3, abs=1e-6)
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("parts", [(9,), (1, 7)])
def test_a_search_from_a_certificate_lowers_its_rank_by_the_descent_and_the_checker_accepts(parts):
    """Stage 2 alone (no squeeze) leaves ranks the squeeze can lower: from its certificate, the squeeze repaired by
    the descent alone gives one of lower rank, whose blocks are at most the start's."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    first = search(parts, squeeze=0)
    lines: list = []
    doc = search(parts, start=first, repair="descent", say=lines.append)
    assert check(doc).rank == doc["rank_at_most"] < check(first).rank
    before = {tuple(b["index"]): b["rank"] for b in first["blocks"]}
    assert all(b["rank"] <= before.get(tuple(b["index"]), 0) for b in doc["blocks"])
    assert lines[0] == f"parts {list(parts)}: started from a certificate of rank {first['rank_at_most']:,}"
    assert any(line.startswith("squeeze, block ") for line in lines)


def test_given_ranks_from_a_certificate_cut_the_blocks_listed_and_keep_the_others():
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    first = search((1, 7), squeeze=0)
    before = {tuple(b["index"]): b["rank"] for b in first["blocks"]}
    cut = max(before, key=lambda k: before[k])
    doc = search((1, 7), start=first, ranks={cut: before[cut] - 1}, repair="descent")
    after = {tuple(b["index"]): b["rank"] for b in doc["blocks"]}
    assert after == {**before, cut: before[cut] - 1}
    assert check(doc).rank == doc["rank_at_most"] < first["rank_at_most"]


def test_the_descent_spends_at_most_its_steps_per_rank_lowered():
    """``descent_steps`` bounds the descent's steps per rank lowered (counted in the stage lines): the cut that the
    default budget repairs in more than 10 steps is not repaired in 10, and none of its stages spends more."""
    pytest.importorskip("highspy")
    import re

    from certify.minrank.invariant import NoSolution, search

    first = search((1, 7), squeeze=0)
    before = {tuple(b["index"]): b["rank"] for b in first["blocks"]}
    cut = max(before, key=lambda k: before[k])

    def spent(lines):
        return [int(n) for line in lines for n in re.findall(r"\((\d+) descent steps in all\)", line)]

    lines: list = []
    doc = search((1, 7), start=first, ranks={cut: before[cut] - 1}, repair="descent", say=lines.append)
    assert check(doc).rank == doc["rank_at_most"] and max(spent(lines)) > 10
    lines = []
    with pytest.raises(NoSolution, match=f"block {re.escape(str(cut))} not lowered"):
        search((1, 7), start=first, ranks={cut: before[cut] - 1}, repair="descent", descent_steps=10,
               say=lines.append)
    assert spent(lines) and max(spent(lines)) <= 10


def test_several_ranks_of_a_block_go_in_one_gradual_cut():
    """``cut_at_once=2``: S_9's block (0,) goes from rank 3 to 1 in one gradual cut (columns 2–3 held together,
    no stage at rank 2), and the checker accepts the result."""
    pytest.importorskip("highspy")
    import re

    from certify.minrank.invariant import search

    first = search((9,), squeeze=0)
    assert {tuple(b["index"]): b["rank"] for b in first["blocks"]}[(0,)] == 3
    lines: list = []
    doc = search((9,), start=first, ranks={(0,): 1}, repair="descent", cut_at_once=2, say=lines.append)
    assert {tuple(b["index"]): b["rank"] for b in doc["blocks"]}[(0,)] == 1
    assert check(doc).rank == doc["rank_at_most"] == first["rank_at_most"] - 2
    stages = [line for line in lines if " held within " in line]
    assert stages and all(line.startswith("block (0,): columns 2–3 held within ") for line in stages)
    assert "block (0,) (×1): rank 1, total 9" in lines and not any("rank 2, total" in line for line in lines)
    steps = [line for line in lines if line.startswith("block (0,), columns 2–3 within ") and ": descent step " in line]
    spent = max(int(re.search(r"\((\d+) descent steps in all\)", line).group(1)) for line in stages)
    assert len(steps) <= spent and (steps or not spent)  # a line per step taken (a step whose LP fails says none)


def test_a_cut_of_several_ranks_that_fails_is_tried_with_half_as_many(monkeypatch):
    """The chunk halves on each failure (4, 2, 1 here) and the search fails only when one rank cannot go; a
    ``lower`` that refuses every cut of more than one rank stands in for the descent."""
    pytest.importorskip("highspy")
    from certify.minrank import descent
    from certify.minrank.invariant import search

    first = search((3, 5), squeeze=0)
    before = {tuple(b["index"]): b["rank"] for b in first["blocks"]}
    assert before[0, 0] == 5
    real, counts = descent.lower, []

    def lower(state, core, kappa, *args, count=1, **kwargs):
        counts.append(count)
        return count == 1 and real(state, core, kappa, *args, count=count, **kwargs)

    monkeypatch.setattr(descent, "lower", lower)
    doc = search((3, 5), start=first, ranks={(0, 0): 3}, repair="descent", cut_at_once=4)
    assert counts == [2, 1, 1]  # 5 → 3 wants 2 at most: refused, then one at a time
    assert {tuple(b["index"]): b["rank"] for b in doc["blocks"]}[0, 0] == 3
    assert check(doc).rank == doc["rank_at_most"] == first["rank_at_most"] - 2
    with pytest.raises(ValueError, match=r"block \(0, 0\) has rank 3: it cannot lose 4 columns"):
        real(_state_at_rank(3), None, (0, 0), 0.1, 0.0, count=4)


def test_a_budget_spent_inside_a_gradual_cut_puts_the_blocks_back_as_they_were_before_it():
    """The LP budget runs out while the descent holds the dropped direction (a bound on the rows' LPs, the factors
    moved, the margins maybe below the floor): ``lower`` re-raises with every bound gone and the blocks as before the
    cut, and the search rounds those; the checker accepts them."""
    pytest.importorskip("highspy")
    import numpy as np

    from certify.minrank.descent import lower
    from certify.minrank.invariant import Budget, BudgetSpent, _highs, _started, search

    first = search((1, 7), squeeze=0)
    before = {tuple(b["index"]): b["rank"] for b in first["blocks"]}
    cut = max(before, key=lambda k: before[k])
    state = _started(first, (1, 7), None, Budget(120), None, repair="descent")
    ranks, right = dict(state.rank), {k: v.copy() for k, v in state.right.items()}
    lines: list = []
    with pytest.raises(BudgetSpent):
        lower(state, _highs(), cut, 0.1, 0.002, say=lines.append)
    assert any(" held within " in line for line in lines)  # it was inside the gradual cut
    assert state.bounds == {} and state.rank == ranks
    assert all(np.array_equal(state.right[k], right[k]) for k in right)
    doc = search((1, 7), start=first, ranks={cut: before[cut] - 1}, repair="descent", budget=Budget(120))
    assert {tuple(b["index"]): b["rank"] for b in doc["blocks"]} == before
    assert check(doc).rank == doc["rank_at_most"] == first["rank_at_most"]


def _state_at_rank(rank):
    from certify.minrank.invariant import _State
    from certify.minrank.terwilliger import Algebra

    state = _State(Algebra((3, 5), (0, 1)))
    state.rank[0, 0] = rank
    return state


def test_the_partition_chooser_repairs_as_it_is_told():
    """``certify.minrank.partitions.best`` hands ``repair``, ``descent_steps`` and ``cut_at_once`` to every search it
    runs."""
    pytest.importorskip("highspy")
    from certify.minrank import partitions
    from certify.minrank.invariant import NoSolution

    seen: list = []

    def search(parts, **options):
        seen.append((options.get("repair"), options.get("descent_steps"), options.get("cut_at_once")))
        raise NoSolution("recorded")

    original, partitions.search = partitions.search, search
    try:
        with pytest.raises(NoSolution, match="no partition gave a certificate"):
            partitions.best(9, repair="descent", descent_steps=7, cut_at_once=3)
    finally:
        partitions.search = original
    assert seen and set(seen) == {("descent", 7, 3)}


def test_a_start_certificate_is_refused_where_it_does_not_fit():
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    doc = load(str(shipped_path(12)))  # S_1 × S_11: blocks (0, 0) and (0, 1) of rank 2
    with pytest.raises(ValueError, match=r"block \(0, 1\) has rank 2 in the start certificate; from it, a rank can "
                                         r"only go down \(not to 3\)"):
        search((1, 11), start=doc, ranks={(0, 1): 3})
    with pytest.raises(ValueError, match=r"has parts \[1, 11\], not \[2, 10\]"):
        search((2, 10), start=doc)
    bad = json.loads(json.dumps(doc))
    bad["rank_at_most"] -= 1
    with pytest.raises(ValueError, match="the start certificate is refused"):
        search((1, 11), start=bad)
    with pytest.raises(ValueError, match="repair 'sideways': one of joint, descent, both"):
        search((1, 11), start=doc, repair="sideways")
    with pytest.raises(ValueError, match="descent_steps 5: a positive number, with repair descent or both"):
        search((1, 11), start=doc, descent_steps=5)
    with pytest.raises(ValueError, match="descent_steps 0: a positive number"):
        search((1, 11), start=doc, repair="descent", descent_steps=0)
    with pytest.raises(ValueError, match="cut_at_once 2: a positive number, with repair descent or both"):
        search((1, 11), start=doc, cut_at_once=2)
    with pytest.raises(ValueError, match="cut_at_once 0: a positive number"):
        search((1, 11), start=doc, repair="descent", cut_at_once=0)


def _start_file(tmp_path, name, change=None):
    doc = load(str(shipped_path(12)))
    if change:
        change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path.name


@pytest.mark.parametrize("args, says", [
    (["--start", "START"], "--start goes with --search-invariant"),
    (["--repair", "descent"], "--repair goes with --search-invariant"),
    (["--search-invariant", "--start", "START", "--parts", "1,11"], "--parts goes without --start"),
    (["--search-invariant", "--start", "START", "--tops", "0,1"], "--tops goes without --start"),
    (["--search-invariant", "--start", "START", "--lp-budget", "9"], "--lp-budget goes with --search-invariant"),
    (["--search-invariant", "--start", "START", "--ranks", "0.1=3"], "block (0, 1) has rank 2 in the start"),
    (["--search-invariant", "--start", "START", "--ranks", "0=1"], "needs one block index per part (2)"),
    (["--search-invariant", "--start", "START", "--repair", "sideways"], "'sideways' is not one of"),
    (["--search-invariant", "--start", "START", "--descent-steps", "5"],
     "--descent-steps goes with --repair descent or --repair both"),
    (["--search-invariant", "--repair", "descent", "--descent-steps", "0"], "0 is not in the range"),
    (["--search-invariant", "--start", "START", "--cut-at-once", "2"],
     "--cut-at-once goes with --repair descent or --repair both"),
    (["--search-invariant", "--repair", "descent", "--cut-at-once", "0"], "0 is not in the range"),
    (["--search-invariant", "--start", "NOT-JSON"], "--start NOT-JSON"),
    (["--search-invariant", "--start", "CLAIMS-LESS"], "--start CLAIMS-LESS"),
    (["--search-invariant", "--start", "no-such-file"], "--start no-such-file"),
])
def test_minrank_refuses_a_start_that_does_not_fit_with_one_line(args, says, tmp_path, monkeypatch):
    """Each a one-line refusal, exit 2, before any search: a start file unreadable, malformed or refused by the
    checker (a certificate claiming one less than its blocks), or options the certificate declares itself."""
    monkeypatch.chdir(tmp_path)
    _start_file(tmp_path, "START")
    (tmp_path / "NOT-JSON").write_text("{not json")
    _start_file(tmp_path, "CLAIMS-LESS", lambda doc: doc.update(rank_at_most=doc["rank_at_most"] - 1))
    proc = run_cli_here("minrank", "--m", "12", *args)
    assert_one_line_error(proc, 2)
    assert says in proc.stderr


def test_minrank_refuses_a_start_certificate_for_another_m_naming_both(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _start_file(tmp_path, "START")
    proc = run_cli_here("minrank", "--m", "13", "--search-invariant", "--start", "START")
    assert_one_line_error(proc, 2)
    assert "the certificate is for m = 12, and --m is 13" in proc.stderr


def test_minrank_search_from_a_certificate_writes_one_the_checker_accepts(tmp_path, monkeypatch):
    """``--start`` alone: the squeeze on the start's blocks (descent, then the joint SLP); the certificate written is
    accepted by the checker, of rank at most the start's, each block at most the start's."""
    pytest.importorskip("highspy")
    monkeypatch.chdir(tmp_path)
    first = run_cli_here("minrank", "--m", "9", "--search-invariant", "--parts", "9", "--out", "a")
    assert first.returncode == 0, first.stderr
    start = json.loads((tmp_path / "a" / "m9.upper.symmetric.json").read_text())
    ranks = {tuple(b["index"]): b["rank"] for b in start["blocks"]}
    proc = run_cli_here("minrank", "--m", "9", "--search-invariant", "--start", "a/m9.upper.symmetric.json",
                        "--repair", "both", "--out", "b")
    assert proc.returncode == 0, proc.stderr
    made = json.loads((tmp_path / "b" / "m9.upper.symmetric.json").read_text())
    assert check(made).rank == made["rank_at_most"] <= start["rank_at_most"] and made["parts"] == [9]
    assert all(b["rank"] <= ranks.get(tuple(b["index"]), 0) for b in made["blocks"])


@pytest.mark.parametrize("repair", ["descent", "both"])
def test_a_whole_search_squeezes_by_the_descent_too_and_the_checker_accepts(repair):
    """Without a start, ``repair=`` changes only how stage 2b repairs: the result is a certificate the checker
    accepts, no worse than stage 2 alone."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    doc = search((1, 7), repair=repair)
    assert check(doc).rank == doc["rank_at_most"] <= search((1, 7), squeeze=0)["rank_at_most"]


def test_a_start_certificate_with_blocks_given_whole_is_read_as_its_factors():
    """The format allows a block as its entries instead of factors (docs/certificate-format.md): the search reads
    its right factor from them, and listing a block the certificate lacks at rank 0 changes nothing."""
    pytest.importorskip("highspy")
    from fractions import Fraction

    from certify.minrank.invariant import search

    doc = load(str(shipped_path(9)))  # S_3 × S_6, blocks (0, 0) of rank 2 and (0, 1) of rank 1
    whole = json.loads(json.dumps(doc))
    for block in whole["blocks"]:
        left = [[Fraction(x) for x in row] for row in block.pop("left")]
        right = [[Fraction(x) for x in row] for row in block.pop("right")]
        block["entries"] = [[str(sum(a * b for a, b in zip(u, v))) for v in right] for u in left]
    assert check(whole).rank == 7
    made = search((3, 6), start=whole, ranks={(1, 0): 0}, repair="descent")
    assert check(made).rank == made["rank_at_most"] == 7
    assert {tuple(b["index"]): b["rank"] for b in made["blocks"]} == {(0, 0): 2, (0, 1): 1}


def test_a_column_the_rows_do_not_need_is_dropped_at_once():
    """Where every row holds without the direction, the gradual cut drops it in one pass of the rows, no stage and
    no step (S_3 × S_5 from stage 2's certificate: block (0, 0)'s fifth direction); the checker accepts the result."""
    pytest.importorskip("highspy")
    from certify.minrank.invariant import search

    first = search((3, 5), squeeze=0)
    assert {tuple(b["index"]): b["rank"] for b in first["blocks"]}[0, 0] == 5
    lines: list = []
    doc = search((3, 5), start=first, ranks={(0, 0): 4}, repair="descent", say=lines.append)
    assert "block (0, 0): column 5 dropped at once: the margins hold (0 descent steps in all)" in lines
    assert not any(" held within " in line or ": descent step " in line for line in lines)
    assert check(doc).rank == doc["rank_at_most"] == first["rank_at_most"] - 1
