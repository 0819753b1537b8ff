"""The checker is small, stdlib-only and runs on its own (STYLE.md 7; mmverify.py)."""
import ast
import shutil
import subprocess
import sys

from conftest import CORPUS, ROOT

CHECKER = ROOT / "certify" / "check.py"


def test_checker_imports_only_the_standard_library():
    tree = ast.parse(CHECKER.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the checker"
            names.add(node.module.split(".")[0])
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names


def test_checker_runs_as_a_lone_file_without_the_project(tmp_path):
    lone = tmp_path / "check.py"
    shutil.copy(CHECKER, lone)
    good = CORPUS / "valid" / "rank_nine_paper.json"
    bad = CORPUS / "invalid" / "paper_chains_claim_raised_to_ten.json"
    run = lambda p: subprocess.run([sys.executable, "-I", "-S", str(lone), str(p)],  # noqa: E731
                                   capture_output=True, text=True, cwd=tmp_path)
    ok, rejected = run(good), run(bad)
    assert ok.returncode == 0 and "VERIFIED: r ≥ 9" in ok.stdout
    assert rejected.returncode == 1 and rejected.stderr.startswith("REJECTED: claim:")


def test_importing_the_checker_loads_no_producer_or_numeric_library():
    code = (
        "import sys, certify.check as c; "
        "bad = {'numpy', 'sympy', 'flint', 'networkx', 'codes', 'witnesses', 'click'} & set(sys.modules); "
        "print(sorted(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


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


def test_checker_stays_small():
    # The budget for the one trusted file: every certificate kind and the input
    # hardening (memory estimate, limits, safe output) included. Raising it is a decision
    # to be argued in review, not a number to bump. Raised from 1,000 to 1,050 for issue 20
    # (2026-12-01): the plan phase bounded (μ once per gap value), the compact queries as one
    # shard function with the per-query counting of the common case, the run_shards hook,
    # --max-work and the announced cost took 985 → ≈ 1,030 lines; the shard runner itself
    # (multiprocessing, merging) lives in certify/shards.py, outside the trusted file.
    # Raised to 1,080 in the same issue's second pass (≈ 1,071 lines): the distance classes
    # by a bit-sliced counter with its popcount fallback, codeword keys and jumps counted
    # for every query (only interpolated pairs generated), and lowest bits taken one at a
    # time or by binary search, whichever is bounded (an adversarial review's case).
    # Raised to 1,120 for issue 27 (2026-12-02, ≈ 1,110 lines): two argument kinds, null-shifted
    # (Theorem A) and square-kernel (Lemma N), with their hypotheses checked by name, the kernel
    # list parsed, and the pairs classed by (factor, directed distance) in both certificate forms
    # (docs/math.md §5, "The null-space step"); the producers' parameter search stays outside.
    assert _code_lines(CHECKER.read_text()) < 1120
