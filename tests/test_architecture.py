"""The layout's rules, checked on the source (docs/architecture.md; issue 43).

* dependencies point one way: ``codes`` ← ``witnesses`` ← ``certify``;
* no private name (``_x``) is imported from another package, and none into a package's
  public face (``certify/torch/__init__.py``);
* ``certify/kernels/`` holds the ``check-kernel`` pipeline only: no PyTorch glue, training or
  LP module, no module over 450 lines and no function over 80.
"""
import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGES = ("certify", "codes", "witnesses")


def _modules():
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            yield path


def _imports(path: Path):
    """``(line, source module, imported names)`` of every import in ``path``, relative ones resolved."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield node.lineno, source, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, []


def _package_of(module: str) -> str:
    """The package a module belongs to (itself for a package, its parent for a module file)."""
    path = ROOT / module.replace(".", "/")
    return module if path.is_dir() else module.rpartition(".")[0]


def test_dependencies_point_one_way():
    """``codes`` imports neither ``witnesses`` nor ``certify``; ``witnesses`` does not import ``certify``."""
    below = {"codes": ("witnesses", "certify"), "witnesses": ("certify",)}
    wrong = [(str(p.relative_to(ROOT)), line, source) for p in _modules() for top, banned in below.items()
             if p.relative_to(ROOT).parts[0] == top
             for line, source, _ in _imports(p) if source.split(".")[0] in banned]
    assert wrong == []


def test_no_private_name_crosses_a_package():
    crossing = []
    for path in _modules():
        rel = path.relative_to(ROOT).with_suffix("")
        here = ".".join(rel.parts[:-1])
        for line, source, names in _imports(path):
            if source.split(".")[0] not in PACKAGES:
                continue  # a third-party module's internals are that library's business (docs/architecture.md)
            for name in names:
                if name.startswith("_") and not name.startswith("__") and _package_of(source) != here:
                    crossing.append(f"{rel}.py:{line}: {name} from {source}")
    assert crossing == []


def test_the_torch_face_imports_no_private_name():
    face = ROOT / "certify" / "torch" / "__init__.py"
    private = [(line, n) for line, _, names in _imports(face) for n in names if n.startswith("_") and n != "__future__"]
    assert private == []


def test_kernels_holds_the_check_pipeline_only():
    names = sorted(p.stem for p in (ROOT / "certify" / "kernels").glob("*.py"))
    assert not [n for n in names if n.startswith("torch") or n in ("training", "training_report", "diverged", "lp", "simplex")]
    assert names == sorted(["__init__", "audit", "blocks", "families", "fields", "json_table", "jumps", "npz", "numbers",
                            "predict", "ranks", "readout", "report", "streamed", "table"])


@pytest.mark.parametrize("path", sorted((ROOT / "certify" / "kernels").glob("*.py")), ids=lambda p: p.name)
def test_a_kernels_module_is_short_and_so_are_its_functions(path):
    source = path.read_text()
    assert len(source.splitlines()) <= 450, f"{path.name}: {len(source.splitlines())} lines"
    long = [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(source))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > 80]
    assert long == []
