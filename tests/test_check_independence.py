"""The trusted checkers are small, stdlib-only and run on their own (STYLE.md 7; mmverify.py; docs/architecture.md).

Every file ``certify/check*.py`` is a trusted checker and is listed here, with the files it
needs beside it (only ``check.py``, whose strict JSON reader and process guard the others
share), a valid and an invalid input, and a budget of code lines with its reason. Each is
held to the same four properties: it imports only the standard library (and that sibling),
it runs as a script from a folder holding only those files, importing it loads no producer
or numeric library, and it stays under its budget.
"""
import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

from conftest import CORPUS, ROOT

SPLITS = ROOT / "tests" / "splits"


@dataclass(frozen=True)
class Checker:
    budget: int  # code lines (_code_lines): non-blank, non-comment, outside docstrings
    reason: str
    valid: str
    invalid: str
    verified: str  # what a verified run prints on stdout
    needs: tuple[str, ...] = ()


CHECKERS = {
    # The budget for the rank-certificate checker: every certificate kind and the input hardening (memory estimate,
    # limits, safe output) included. Raising it is a decision to be argued in review, not a number to bump. It was
    # raised from 1,000 to 1,050 for issue 20 (the compact queries as one shard function, --max-work and the announced
    # cost), to 1,080 in that second pass (bit-sliced distance classes, lowest bits bounded), to 1,120 for
    # issue 27 (the null-shifted and square-kernel arguments, ≈ 1,110 lines). Issue 43 brought it back to ≈ 1,095 by
    # taking out what is not checking (its 40-line export list written on six lines), not by raising the budget, and
    # gave it script_args, the argument reading the other checkers share.
    "check.py": Checker(1120, "rank certificates v1 and v2 (every argument) and unique-minimizer certificates, with "
                              "the hostile-input hardening and the process guard the other checkers share",
                        str(CORPUS / "valid" / "rank_nine_paper.json"),
                        str(CORPUS / "invalid" / "paper_chains_claim_raised_to_ten.json"), "VERIFIED: r ≥ 9"),
    # Order obstructions and region counting (Lemmas 11.4, 11.5) with field-naming messages (≈ 255 lines, issues 42, 43).
    # Raised from 290 to 310 for the third argument, "disjoint-queries" (§11, the pair queries; ≈ 35 lines: its keys
    # chosen by the argument, its own m limit, the one-pass weight and overlap check naming the query).
    "check_obstruction.py": Checker(310, "r*(m, 3) lower-side certificates: three arguments, every field named in its message",
                                    str(ROOT / "docs" / "results" / "minrank" / "m5.lower.obstruction.json"),
                                    str(ROOT / "tests" / "minrank" / "invalid" / "rank_three_claimed_from_the_m4_pair.json"),
                                    "VERIFIED: r*(5, 3) ≥ 3", needs=("check.py",)),
    # K1(N) of the 1-D problem (docs/math.md §11, Proposition I3): a polynomial evaluated exactly, a Gordan sum per
    # binomial, the invariant rank recomputed, with its own 2 MiB reader and the denominators' lcm bound (≈ 160 lines).
    # Raised from 175 to 320 for the second kind, certify.product-degree/1 (§11, Lemma 11.11 and Proposition 11.12;
    # ≈ 145 lines): a witness evaluated on the whole grid by one transform per part and checked through the levels'
    # least and largest values, the group's orbits of each multiplier's points expanded and summed in integers, a
    # transform to every product of binomials, the limits on the grid and the orbits checked from the counts.
    "check_degree.py": Checker(320, "invariant-degree and product-degree certificates: five named steps, every "
                                    "malformed field named",
                               str(ROOT / "tests" / "degree" / "valid" / "m48_degree_5.json"),
                               str(ROOT / "tests" / "degree" / "invalid" / "claim_raised_by_one.json"),
                               "VERIFIED: K1(24) = 5", needs=("check.py",)),
    # Symmetric kernels (docs/math.md §11, Lemmas 11.2, 11.8; Schrijver's blocks as a tensor product over the parts):
    # six named steps — shape and the work limits, the inverse map, the round trip of every block, f ≥ 0, the row
    # condition on cells, exact ranks — and the producers' public functions (beta, blocks_of_kernel, …) (≈ 360 lines).
    "check_symmetric.py": Checker(380, "symmetric-kernel certificates: six named steps, the β transform part by part, "
                                       "a work estimate from the sizes, every malformed field named",
                                  str(ROOT / "tests" / "symmetric" / "valid" / "m4_s1_s3_three_halves.json"),
                                  str(ROOT / "tests" / "symmetric" / "invalid" / "row_inequality_violated_c_eleven_tenths.json"),
                                  "VERIFIED: r*(4, 3) ≤ 16", needs=("check.py",)),
    # Seven named steps over a file of words, patterns and permutations (≈ 310 lines, issue 43): room for one more.
    # Raised from 340 to 355 for issue 46, the eighth step, strict (≈ 35 lines: the optional "strict" key, the
    # look-up bound refused from the counts, and the search of every training permutation for an all-training origin).
    "check_split.py": Checker(355, "held-out splits: eight steps, the file's shape included, and its script entry",
                              str(SPLITS / "valid" / "small_M4_q2.json"), str(SPLITS / "invalid" / "test_label_flipped.json"),
                              "held out     yes", needs=("check.py",)),
}


def _code_lines(source: str) -> int:
    """Non-blank, non-comment lines outside docstrings: the code a reviewer has to trust."""
    tree = ast.parse(source)
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            docs |= set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i, ln in enumerate(source.splitlines(), 1)
               if ln.strip() and not ln.strip().startswith("#") and i not in docs)


def test_every_check_file_is_a_listed_trusted_checker():
    """A new ``certify/check*.py`` is trusted code: it must join this list (and its budget)."""
    assert sorted(p.name for p in (ROOT / "certify").glob("check*.py")) == sorted(CHECKERS)


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_a_checker_imports_only_the_standard_library_and_its_listed_siblings(name):
    siblings = {n.removesuffix(".py") for n in CHECKERS[name].needs}
    names, relative = set(), set()
    for node in ast.walk(ast.parse((ROOT / "certify" / name).read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            (relative if node.level else names).add(node.module.split(".")[0] if node.module else "")
    assert relative <= siblings, f"{name} imports {relative - siblings} from the package"
    assert names <= set(sys.stdlib_module_names) | {"__future__"} | siblings, names - set(sys.stdlib_module_names)


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_a_checker_runs_as_a_script_from_a_folder_of_only_the_files_it_needs(tmp_path, name):
    c = CHECKERS[name]
    for f in (name, *c.needs):
        shutil.copy(ROOT / "certify" / f, tmp_path / f)
    run = lambda p: subprocess.run([sys.executable, "-I", "-S", str(tmp_path / name), p],  # noqa: E731
                                   capture_output=True, text=True, cwd=tmp_path)
    ok, bad = run(c.valid), run(c.invalid)
    assert ok.returncode == 0 and c.verified in ok.stdout, ok.stdout + ok.stderr
    assert bad.returncode == 1 and "Traceback" not in bad.stdout + bad.stderr, bad.stdout + bad.stderr


def test_the_rank_checker_runs_as_a_lone_file_and_names_the_failing_step(tmp_path):
    """``python certify/check.py FILE``, copied anywhere on its own (README: no install needed)."""
    lone = tmp_path / "check.py"
    shutil.copy(ROOT / "certify" / "check.py", lone)
    proc = subprocess.run([sys.executable, "-I", "-S", str(lone), CHECKERS["check.py"].invalid], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("REJECTED: claim:")


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_importing_a_checker_loads_no_producer_or_numeric_library(name):
    module = "certify." + name.removesuffix(".py")
    code = (f"import sys, {module}; "
            "bad = {'numpy', 'sympy', 'flint', 'networkx', 'codes', 'witnesses', 'click', 'torch'} & set(sys.modules); "
            "print(sorted(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize("name", sorted(CHECKERS))
def test_a_checker_stays_under_its_budget(name):
    c = CHECKERS[name]
    lines = _code_lines((ROOT / "certify" / name).read_text())
    assert lines < c.budget, f"{name}: {lines} code lines, budget {c.budget} ({c.reason})"
