"""Imports run one way: a layer imports only itself and the layers below it, with no cycle.

The graph is read from the source (every ``import`` and ``from ... import``, also those
inside functions, so a function-level import cannot hide an upward edge or a cycle).
"""

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "svmlab"

#: Layers from the bottom up: the top-level units of svmlab (``svmlab.<unit>``) in each.
LAYERS = [
    {"svmlab", "errors", "paths", "seeding"},
    {"stats", "kernels", "qp", "nsga2", "data", "bags", "selection", "construction"},
    {"estimators", "solvers"},
    {"evaluation", "testing"},
    {"runner", "sweep_status"},
    {"results"},
    {"reproduce"},
    {"reporting"},
    {"report_builder"},
    {"app"},
    {"cli", "__main__"},
]
#: Units that must stay pure libraries: what they may import besides themselves.
PURE = {"stats": {"svmlab", "errors"}}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """``{module: svmlab modules it imports}`` for every module under ``root``."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph = defaultdict(set)
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names
                ]
            else:
                continue
            graph[name].update(t for t in targets if t.split(".")[0] == "svmlab" and t != name)
        graph.setdefault(name, set())
    return dict(graph)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "svmlab"


def _layer(module: str) -> int:
    unit = _unit(module)
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    raise AssertionError(f"svmlab.{unit} is in no layer of tests/test_architecture.py: add it")


def upward_imports(graph) -> list[str]:
    bad = []
    for module, targets in graph.items():
        for t in targets:
            if _layer(t) > _layer(module):
                bad.append(f"{module} -> {t}")
            allowed = PURE.get(_unit(module))
            if allowed is not None and _unit(t) not in allowed | {_unit(module)}:
                bad.append(f"{module} -> {t} (svmlab.{_unit(module)} is a pure library)")
    return sorted(bad)


def cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_imports_run_one_way():
    assert upward_imports(import_graph()) == []


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def unit_graph(graph) -> dict[str, set[str]]:
    """The same imports between top-level units (``svmlab.<unit>``)."""
    units = defaultdict(set)
    for module, targets in graph.items():
        units[_unit(module)].update(_unit(t) for t in targets if _unit(t) != _unit(module))
    return {u: set(t) for u, t in units.items()}


def test_no_cycle_between_units():
    """Units of one layer may import each other, but never in a circle."""
    assert cycles(unit_graph(import_graph())) == []


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path):
    """The two checks fail on a planted upward import and a planted cycle."""
    pkg = tmp_path / "svmlab"
    (pkg / "stats").mkdir(parents=True)
    (pkg / "runner").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "stats" / "__init__.py").write_text("")
    (pkg / "runner" / "__init__.py").write_text("")
    (pkg / "stats" / "a.py").write_text("def f():\n    from svmlab.runner import b\n")
    (pkg / "runner" / "b.py").write_text("from svmlab.runner import c\n")
    (pkg / "runner" / "c.py").write_text("from . import b\n")
    graph = import_graph(pkg)
    assert upward_imports(graph) == [
        "svmlab.stats.a -> svmlab.runner.b",
        "svmlab.stats.a -> svmlab.runner.b (svmlab.stats is a pure library)",
    ]
    assert cycles(graph) == [["svmlab.runner.b", "svmlab.runner.c"]]
    (pkg / "data").mkdir()
    (pkg / "data" / "__init__.py").write_text("from svmlab import kernels\n")
    (pkg / "kernels.py").write_text("from svmlab import data\n")
    assert cycles(unit_graph(import_graph(pkg))) == [["data", "kernels"]]


@pytest.mark.parametrize("module", ["svmlab.stats", "svmlab.stats.analysis"])
def test_stats_loads_no_runner_reporting_or_data(module):
    code = (
        f"import sys, {module}\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('svmlab.runner', 'svmlab.report',"
        " 'svmlab.reproduce', 'svmlab.results', 'svmlab.data')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
