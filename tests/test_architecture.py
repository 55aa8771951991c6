"""The package's shape, checked from its source: no import circles, imports point down the layers, and
private records are read only behind the seam.

The checks walk every module of ``src/dprelease`` with :mod:`ast` (standard library only), so they see
function-level imports too. docs/architecture.md draws the same layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "src" / "dprelease"

#: The data path's layers, lowest first. A module may import modules of its own layer or below, never above.
#: Prefixes are module names without the leading ``dprelease.``; the longest matching prefix wins.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "validation", "domain", "files", "progress", "spent"), # 0 foundation
    ("queries",),                                                     # 1 what is asked
    ("schema",),                                                      # 2 the public schema: raw values <-> codes
    ("engines", "data", "datasets"),                                  # 3 where the private table lives (the seam)
    ("privacy",),                                                     # 4 the kernel: the only reader of counts
    ("representations", "updates"),                                   # 5 models (public, post-processing)
    ("bounds", "planner", "distinguishers"),                          # 6 the theorems' numbers
    ("mechanisms", "boosting", "schema.draft"),                       # 7 mechanisms and their registry
    ("rows", "row_fitting"),                                          # 8 synthetic rows from a model
    ("release",),                                                     # 9 what is published
    ("api", "synthesizer"),                                           # 10 orchestration
    ("evaluate", "report"),                                           # 11 reading releases (and real data)
    ("service",),                                                     # 12 the HTTP service
    ("cli", "__main__"),                                              # 13 the command line (and python -m dprelease)
)

#: Attribute reads that touch private records. Outside the seam (engines/, data.py, privacy/) only the
#: modules listed here may use them, each for a stated reason that keeps the release private.
PRIVATE_READS = ("records", "to_records", "marginal_counts", "fingerprint", "histogram")
SEAM = ("dprelease.engines", "dprelease.data", "dprelease.privacy", "dprelease.datasets")
DECLARED_READERS = {
    "dprelease.row_fitting": "counts the synthetic rows' own marginals (public output, not the private table)",
    "dprelease.rows": "counts the synthetic rows' own marginals (public output, not the private table)",
    "dprelease.evaluate": "the curator's error measurement against the real table; never part of a release",
    "dprelease.report": "the curator-only section of a report, when the real table is passed; labelled not private",
    "dprelease.cli.evaluate": "the curator's error measurement against the real table; never part of a release",
    "dprelease.cli.demo": "the demo scores its release against the bundled public Adult table",
    "dprelease.schema.draft": "its .histogram is the kernel's PrivateColumnReader (noisy, paid first), or the open "
                              "reader of --non-private, whose draft is marked not public",
}


def module_name(path: Path, root: Path = PACKAGE_ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def collect(root: Path = PACKAGE_ROOT) -> dict[str, ast.Module]:
    return {module_name(p, root): ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in root.rglob("*.py")}


def runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs (anywhere, functions included), skipping ``if TYPE_CHECKING:`` blocks."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(modules: dict[str, ast.Module], top: str = "dprelease") -> dict[str, set[str]]:
    """module -> the project modules it imports (anywhere in its body), resolving ``from pkg import sub``.

    Importing ``top.pkg.sub`` from outside ``top.pkg`` also runs ``top.pkg``'s ``__init__``, so that is an
    edge too (the root package, a facade of re-exports, is left out: every import runs it). Imports under
    ``if TYPE_CHECKING:`` never run and are left out.
    """
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, tree in modules.items():
        is_package = (PACKAGE_ROOT / Path(*name.split(".")[1:]) / "__init__.py").exists() if name != top else True
        for node in runtime_imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: resolve against this module's package
                    package = name.split(".") if is_package else name.split(".")[:-1]
                    package = package[: len(package) - (node.level - 1)]
                    base = ".".join(package + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                if not target.startswith(top + ".") and target != top:
                    continue
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                parts = target.split(".")
                for depth in range(2, len(parts)):  # parent packages' __init__, for an importer outside them
                    parent = ".".join(parts[:depth])
                    if parent in modules and not name.startswith(parent + ".") and name != parent:
                        graph[name].add(parent)
                if target != name and target != top:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str) -> int | None:
    name = module.removeprefix("dprelease.")
    best, rank = -1, None
    for position, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), position
    return rank


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in sorted(graph.items()):
        source = layer_of(module)
        for target in sorted(targets):
            destination = layer_of(target)
            if source is not None and destination is not None and destination > source:
                wrong.append(f"{module} (layer {source}) imports {target} (layer {destination})")
    return wrong


# ------------------------------------------------------------------------------------------ the tests
def test_no_import_cycles():
    found = cycles(import_graph(collect()))
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_every_module_has_a_layer():
    unplaced = [m for m in collect() if m != "dprelease" and layer_of(m) is None]
    assert not unplaced, f"modules with no layer in LAYERS (add them, and to docs/architecture.md): {unplaced}"


def test_imports_point_down_the_layers():
    wrong = upward_imports(import_graph(collect()))
    assert not wrong, "imports that point up the layers:\n" + "\n".join(wrong)


def test_private_records_are_read_only_behind_the_seam():
    offenders = []
    for module, tree in collect().items():
        if module.startswith(SEAM) or any(module == m or module.startswith(m + ".") for m in DECLARED_READERS):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_READS:
                offenders.append(f"{module}:{node.lineno} reads .{node.attr}")
    assert not offenders, "reads of private records outside the seam:\n" + "\n".join(offenders)


# ------------------------------------------------------------- the checks themselves catch what they should
def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "dprelease"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_planted_cycle_is_found(tmp_path):
    """Two modules importing each other, one of them inside a function: the checker names both."""
    package = write_package(tmp_path, {
        "__init__.py": "",
        "a.py": "from dprelease.b import g\n",
        "b.py": "def g():\n    from dprelease import a\n",
        "c.py": "import dprelease.a\n",
    })
    graph = import_graph(collect(package), top="dprelease")
    assert cycles(graph) == [["dprelease.a", "dprelease.b"]]


def test_type_checking_imports_are_not_edges(tmp_path):
    package = write_package(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dprelease.b import g\n",
        "b.py": "from dprelease.a import f\n",
    })
    assert cycles(import_graph(collect(package), top="dprelease")) == []


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    """Importing pkg.sub runs pkg/__init__, which imports back: the circle bounds <-> boosting.theory had."""
    package = write_package(tmp_path, {
        "__init__.py": "",
        "bounds.py": "from dprelease.boosting.theory import t\n",
        "boosting/__init__.py": "from dprelease.boosting.mechanism import M\n",
        "boosting/theory.py": "t = 1\n",
        "boosting/mechanism.py": "from dprelease.bounds import x\n",
    })
    found = cycles(import_graph(collect(package), top="dprelease"))
    assert found and "dprelease.bounds" in found[0] and "dprelease.boosting" in found[0]


@pytest.mark.parametrize("source,target,upward", [("privacy.measurer", "mechanisms.mwem", True),
                                                  ("mechanisms.mwem", "privacy.measurer", False),
                                                  ("schema.draft", "privacy.noise", False),
                                                  ("schema.spec", "privacy.noise", True),
                                                  ("engines.duckdb", "mechanisms.registry", True)])
def test_an_upward_import_is_found(source, target, upward):
    graph = {f"dprelease.{source}": {f"dprelease.{target}"}}
    assert bool(upward_imports(graph)) is upward
