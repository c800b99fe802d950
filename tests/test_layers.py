"""Imports point one way, checked over the real import graph (every module ast-parsed, nothing run).

The product is arranged in layers, top to bottom::

    entry (api, cli, mcp_server, client, integrations, demo)
      -> core (voxmem.core.Voxmem, the one entry object)
      -> pipeline (one turn pipeline)
      -> stages (voice, asr, audio, extractors, memory, retrieval, audit, portability)
      -> stores (one store per node kind, passages)
      -> infrastructure (db, cypher, graph_schema, embeddings, llm, neo4j_local, redis_local)
      -> foundation (config, errors, ids, lazy, stopwords, the package root)

A module may import its own layer or any layer below it, never one above. Within a layer the
packages must not import each other in a circle. The product never imports ``bench`` (the
repository's benchmark package, not installed), and extractors are pure: they never reach Neo4j
(no db, cypher or stores). HTTP and MCP run no Cypher. Every import counts, also ones inside
functions and under ``TYPE_CHECKING``: a lazy import is still a dependency.

A new package must be placed in ``LAYERS`` (the test fails on a package it does not know).
An allowed exception goes in ``EXCEPTIONS`` with its reason.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LAYERS: list[tuple[str, list[str]]] = [
    (
        "entry",
        [
            "voxmem.api",
            "voxmem.cli",
            "voxmem.mcp_server",
            "voxmem.client",
            "voxmem.integrations",
            "voxmem.demo",
        ],
    ),
    ("core", ["voxmem.core"]),
    ("pipeline", ["voxmem.pipeline"]),
    (
        "stages",
        [
            "voxmem.voice",
            "voxmem.asr",
            "voxmem.audio",
            "voxmem.extractors",
            "voxmem.memory",
            "voxmem.retrieval",
            "voxmem.audit",
            "voxmem.portability",
        ],
    ),
    ("stores", ["voxmem.stores", "voxmem.passages"]),
    (
        "infrastructure",
        [
            "voxmem.db",
            "voxmem.cypher",
            "voxmem.graph_schema",
            "voxmem.embeddings",
            "voxmem.llm",
            "voxmem.neo4j_local",
            "voxmem.redis_local",
        ],
    ),
    (
        "foundation",
        ["voxmem", "voxmem.config", "voxmem.errors", "voxmem.ids", "voxmem.lazy", "voxmem.stopwords"],
    ),
]

BENCH = "bench"
# What extractors may not import: they take a window and return candidates (issue 13, step 4).
NOT_FOR_EXTRACTORS = ("voxmem.db", "voxmem.cypher", "voxmem.stores", "voxmem.memory")

# HTTP and MCP translate requests into calls on voxmem.core.Voxmem; Cypher runs in stores.
THIN_ENTRY = ("voxmem.api", "voxmem.mcp_server")
NOT_FOR_THIN_ENTRY = ("voxmem.db", "voxmem.cypher")

# (importing module, imported module) -> why it is allowed. Each entry says why; keep it short.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("voxmem.api.routes.browser", "voxmem.cypher"): "reads .cypher text into the Browser guide; runs none",
    # Left from the move to stores (issue 13 step 2): still calls db.query(query(...)).
    ("voxmem.api.routes.memory", "voxmem.cypher"): "the audit-item list not yet in a store",
}


def _roots() -> dict[str, str]:
    """setup.py's package -> folder mapping, read by the same helper the type check uses."""
    spec = importlib.util.spec_from_file_location("typecheck", REPO / "scripts" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.roots()


def modules() -> dict[str, Path]:
    """Every module of the installed package, by dotted name."""
    found: dict[str, Path] = {}
    for package, folder in _roots().items():
        for path in (REPO / folder).rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The voxmem modules ``name`` imports (absolute and relative, at any depth of the file), and
    ``bench`` when it imports the benchmark package."""
    out: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # "from voxmem.x import y": y may be a module (voxmem.x.y) or a name in voxmem.x
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target == BENCH or target.startswith(BENCH + "."):
                out.add(BENCH)
                continue
            if target != "voxmem" and not target.startswith("voxmem."):
                continue
            while target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != name:
                out.add(target)
    return out


def unit(module: str) -> str:
    """The layer map's entry a module belongs to: the longest listed prefix."""
    best = None
    for _, units in LAYERS:
        for candidate in units:
            if (module == candidate or module.startswith(candidate + ".")) and (
                best is None or len(candidate) > len(best)
            ):
                best = candidate
    assert best is not None
    return best


LAYER_OF = {u: i for i, (_, units) in enumerate(LAYERS) for u in units}
LAYER_NAME = {u: layer for layer, units in LAYERS for u in units}


@functools.cache
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_product_module_has_a_layer() -> None:
    unplaced = sorted(
        m
        for m in graph()
        if m.count(".") >= 1 and not any(m == u or m.startswith(u + ".") for u in LAYER_OF if u != "voxmem")
    )
    assert not unplaced, f"place these modules' packages in LAYERS: {unplaced}"


def test_imports_point_down() -> None:
    upward = []
    for module, targets in graph().items():
        for target in targets:
            if target == BENCH:
                continue  # its own test below
            a, b = unit(module), unit(target)
            if LAYER_OF[b] < LAYER_OF[a] and (module, target) not in EXCEPTIONS:
                upward.append(f"{module} ({LAYER_NAME[a]}) imports {target} ({LAYER_NAME[b]})")
    assert not upward, "imports pointing up the layers:\n" + "\n".join(sorted(upward))


def test_product_never_imports_bench() -> None:
    bad = sorted(
        f"{m} imports {t}"
        for m, targets in graph().items()
        for t in targets
        if t == BENCH and (m, t) not in EXCEPTIONS
    )
    assert not bad, "the product imports the benchmark:\n" + "\n".join(bad)


def test_extractors_are_pure() -> None:
    bad = sorted(
        f"{m} imports {t}"
        for m, targets in graph().items()
        if m.startswith("voxmem.extractors")
        for t in targets
        if any(t == p or t.startswith(p + ".") for p in NOT_FOR_EXTRACTORS) and (m, t) not in EXCEPTIONS
    )
    assert not bad, "extractors reach storage:\n" + "\n".join(bad)


def test_http_and_mcp_run_no_cypher() -> None:
    bad = sorted(
        f"{m} imports {t}"
        for m, targets in graph().items()
        if any(m == p or m.startswith(p + ".") for p in THIN_ENTRY)
        for t in targets
        if any(t == p or t.startswith(p + ".") for p in NOT_FOR_THIN_ENTRY) and (m, t) not in EXCEPTIONS
    )
    assert not bad, "routes/tools that run Cypher themselves (move the query into a store):\n" + "\n".join(
        bad
    )


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative enough for ~20 nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_cycles_between_packages() -> None:
    """Between the layer map's packages, and between the sub-packages inside each of them."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph().items():
        for target in targets:
            if target == BENCH or (module, target) in EXCEPTIONS:
                continue
            a, b = unit(module), unit(target)
            if a != b:
                edges[a].add(b)
    assert not _cycles(edges), f"packages importing each other in a circle: {_cycles(edges)}"


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The graph reader itself: relative and absolute imports, inside functions too."""
    pkg = tmp_path / "server" / "stores"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    source = "import bench.runner\n\n\ndef f():\n    from ..core import Voxmem\n    from . import facts\n"
    (pkg / "messages.py").write_text(source)
    known = {
        "voxmem.stores.messages": pkg / "messages.py",
        "voxmem.core": tmp_path,
        "voxmem.stores.facts": tmp_path,
    }
    found = imports("voxmem.stores.messages", pkg / "messages.py", known)
    assert found == {"voxmem.core", "voxmem.stores.facts", BENCH}
    assert LAYER_OF[unit("voxmem.core")] < LAYER_OF[unit("voxmem.stores.messages")]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
