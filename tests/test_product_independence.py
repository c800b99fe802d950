"""The product does not depend on the benchmark (issue 13, step 5).

The product is server/, extractors/, graph_schema/ and cypher/ (setup.py installs exactly these
as ``voxmem``). It must never import the benchmark package ``bench`` (nor the old
``voxmem.bench``), at any depth of a file: a lazy import is still a dependency. Nor may it need
the benchmark's own libraries (matplotlib for plots, jiwer for word error rates), which are the
optional ``bench`` extra, not core dependencies.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PRODUCT = ("server", "extractors", "graph_schema", "cypher")
BENCH_ONLY_LIBRARIES = ("matplotlib", "jiwer")


def _imported(path: Path) -> set[str]:
    """Every absolute module name a file imports (relative imports stay inside the product)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _product_files() -> list[Path]:
    files = [p for folder in PRODUCT for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts]
    assert len(files) > 50, files  # the scan really sees the product
    return files


def _hits(prefixes: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{path.relative_to(REPO)} imports {name}"
        for path in _product_files()
        for name in _imported(path)
        if any(name == p or name.startswith(p + ".") for p in prefixes)
    )


def test_no_product_module_imports_the_benchmark() -> None:
    bad = _hits(("bench", "voxmem.bench"))
    assert not bad, "the product imports the benchmark:\n" + "\n".join(bad)


def test_no_product_module_needs_a_benchmark_library() -> None:
    bad = _hits(BENCH_ONLY_LIBRARIES)
    assert not bad, "the product imports a benchmark-only library:\n" + "\n".join(bad)


def test_the_scan_catches_a_lazy_benchmark_import(tmp_path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from bench.voices import synthesize\n    import voxmem.bench.runner\n")
    assert {"bench.voices", "voxmem.bench.runner"} <= _imported(sample)


def test_the_installed_package_leaves_the_benchmark_out() -> None:
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    (roots,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["ROOTS"]
    ]
    assert set(roots.values()) == set(PRODUCT), roots  # bench/ is not mapped into voxmem
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(project["dependencies"])
    assert not [lib for lib in BENCH_ONLY_LIBRARIES if lib in core]
    extra = " ".join(project["optional-dependencies"]["bench"])
    assert all(lib in extra for lib in BENCH_ONLY_LIBRARIES)
