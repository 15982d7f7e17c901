"""Imports run one way: a layer imports only itself and the layers below it, with no cycle.

The graph is read from the source (every ``import`` and ``from ... import``, also those
inside functions, so a function-level import cannot hide an upward edge or a cycle).
"""

import ast
import importlib
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "svmlab"

#: Layers from the bottom up: the top-level units of svmlab (``svmlab.<unit>``) in each.
LAYERS = [
    {"svmlab", "errors", "paths", "seeding", "contract", "_sklearn_compat"},
    {"stats", "kernels", "qp", "nsga2", "data", "bags", "selection", "construction"},
    {"estimators", "solvers"},
    {"evaluation", "testing"},
    {"runner", "sweep_status"},
    {"results"},
    {"reproduce"},
    {"report"},
    {"config", "run_checks", "app"},
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


# The README is the front door: its layout names every package, its links resolve.

README = PACKAGE.parent / "README.md"
DOCS = PACKAGE.parent / "docs"
#: A Markdown link or image: ``[label](target)`` / ``![alt](target)``.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def readme_layout(text: str) -> str:
    """The ``svmlab/`` part of the code block under the README's "Layout" heading."""
    block = text.split("\n## Layout\n", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("svmlab/"))
    part = []
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        part.append(line)
    return "\n".join(part)


def missing_from_layout(layout: str, root: Path = PACKAGE) -> list[str]:
    """Sub-packages (``name/``, at any depth) and top-level modules (``name.py``) of ``root``
    that the layout does not name."""
    packages = sorted(p.parent for p in root.rglob("__init__.py") if p.parent != root)
    modules = sorted(p for p in root.glob("*.py") if p.stem not in {"__init__", "__main__"})
    missing = [
        f"{p.relative_to(root.parent).as_posix()}/"
        for p in packages
        if not re.search(rf"(?<![\w.]){re.escape(p.name)}/", layout)
    ]
    missing += [
        m.relative_to(root.parent).as_posix()
        for m in modules
        if not re.search(rf"(?<![\w.]){re.escape(m.name)}\b", layout)
    ]
    return missing


def test_readme_layout_lists_every_package():
    """Every sub-package of svmlab/ and every top-level module is in the README's layout."""
    assert missing_from_layout(readme_layout(README.read_text())) == []


def test_the_layout_check_names_a_missing_package(tmp_path):
    pkg = tmp_path / "svmlab"
    (pkg / "estimators" / "weka").mkdir(parents=True)
    for init in ["", "estimators", "estimators/weka"]:
        (pkg / init / "__init__.py").write_text("")
    (pkg / "report.py").write_text("")
    (pkg / "__main__.py").write_text("")
    text = "# x\n\n## Layout\n\n```\nconf/  weka/\nsvmlab/\n  estimators/  one per family\n```\n"
    layout = readme_layout(text)
    assert "conf/" not in layout
    assert missing_from_layout(layout, pkg) == ["svmlab/estimators/weka/", "svmlab/report.py"]


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    headings = re.findall(r"^#{1,6} +(.+?) *$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def local_links(page: Path) -> list[tuple[str, Path]]:
    """``(target, file)`` of every link of ``page`` to a file of the checkout (code blocks
    and web addresses left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    links = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z+.-]*:", target):
            continue
        path = target.partition("#")[0]
        links.append((target, (page.parent / path).resolve() if path else page))
    return links


def broken_links(page: Path, root: Path = PACKAGE.parent) -> list[str]:
    """``page: target`` of every local link of ``page`` to a missing file or heading."""
    bad = []
    for target, file in local_links(page):
        anchor = target.partition("#")[2]
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            bad.append(f"{page.relative_to(root).as_posix()}: {target}")
    return bad


def test_readme_links_every_family_page_and_every_link_resolves():
    linked = {file for _, file in local_links(README)}
    families = sorted((DOCS / "families").glob("*.md"))
    assert families, "docs/families/ has no page"
    assert [p.name for p in families if p.resolve() not in linked] == []
    pages = [README, *sorted(DOCS.glob("*.md")), *families]
    assert [bad for page in pages for bad in broken_links(page)] == []
    assert len(README.read_text().splitlines()) < 300, "the README is a front door: < 300 lines"


def test_the_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Top part\n\n[b](b.md) [top](#top-part) [web](https://x.org)\n"
    )
    (tmp_path / "b.md").write_text("[gone](c.md) [a](a.md#nowhere) [a](a.md#top-part)\n")
    assert [t for t, _ in local_links(tmp_path / "a.md")] == ["b.md", "#top-part"]
    assert broken_links(tmp_path / "b.md", tmp_path) == ["b.md: c.md", "b.md: a.md#nowhere"]


def test_the_decisions_index_links_every_decision_file():
    index = DOCS / "decisions" / "README.md"
    linked = {file for _, file in local_links(index)}
    files = sorted(p for p in (DOCS / "decisions").glob("*.md") if p.name != "README.md")
    assert [p.name for p in files if p.resolve() not in linked] == []
    assert broken_links(index) == []


# ----------------------------------------------------------------------------------------
# The core knows estimators only through the contract (svmlab/contract.py)

#: Modules that run every family: they may learn about an estimator only from its contract.
CORE = [PACKAGE / "solvers.py", *sorted((PACKAGE / "runner").rglob("*.py"))]
CORE += sorted((PACKAGE / "evaluation").rglob("*.py"))
#: What the contract declares: read only as attributes of a Contract (``solver.contract.X``).
CAPABILITIES = {
    "input",
    "transductive",
    "path_parameter",
    "path_simpler",
    "path_names",
    "simpler_end",
    "joint_path",
    "tuning_ignores",
    "row_values",
    "tune_seconds",
    "test_diagnostics",
}
#: Columns a paper derives from rows, or values of one family: never named by the core.
PAPER_COLUMNS = {"sv_percent", "sparsity", "dual_objective", "b_norm", "norm_ratio", "objective"}
#: What the core may ask any estimator without a contract: scikit-learn's own API.
SKLEARN_API = {
    "decision_function",
    "predict_proba",
    "partial_fit",
    "fit_info_",
    "n_support_",
    "model_size_",
    "coef_",
    "regressor_",
    "estimator_",
    "__sklearn_tags__",
    "_validate_params",
    "_parameter_constraints",
    "get_params",
    # scipy.sparse matrices, not estimators
    "tocsr",
    "data",
}


def _is_contract(node) -> bool:
    """``contract`` or ``<anything>.contract``."""
    return (isinstance(node, ast.Name) and node.id == "contract") or (
        isinstance(node, ast.Attribute) and node.attr == "contract"
    )


def capability_probes(path: Path) -> list[str]:
    """Where ``path`` learns about estimators outside the contract: a capability read from
    anything but a contract, ``getattr``/``hasattr`` of a name outside scikit-learn's API,
    a paper's column named."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr in CAPABILITIES:
            method_call = node.attr == "test_diagnostics"  # the declared method, when declared
            if not _is_contract(node.value) and not method_call:
                found.append(f"{where} reads .{node.attr} outside the contract")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr"):
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and name.value not in SKLEARN_API:
                found.append(f"{where} probes {name.value!r} with {node.func.id}")
        elif isinstance(node, ast.Constant) and node.value in PAPER_COLUMNS:
            found.append(f"{where} names the column {node.value!r}")
    return found


def test_the_core_names_no_estimator_capability_outside_the_contract():
    found = [probe for path in CORE for probe in capability_probes(path)]
    assert not found, "\n".join(found)


def test_the_capability_check_finds_a_probe(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(est, row, solver):\n"
        "    ok = solver.contract.transductive\n"
        "    a = getattr(type(est), 'transductive', False)\n"
        "    b = est.path_parameter()\n"
        "    row['sv_percent'] = 1.0\n"
    )
    assert [p.split(" ", 1)[1] for p in capability_probes(bad)] == [
        "probes 'transductive' with getattr",
        "reads .path_parameter outside the contract",
        "names the column 'sv_percent'",
    ]


def test_no_module_uses_hydras_private_api():
    users = [
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*.py")
        if re.search(r"\bhydra\._internal\b", p.read_text())
    ]
    assert not users, f"hydra._internal is Hydra's private API: {users}"


def _imports_private_sklearn(node) -> bool:
    """An import of a private scikit-learn module (``sklearn.utils._param_validation``) or
    name (``from sklearn.base import _fit_context``); an alias (``as _x``) does not count."""
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sklearn":
        return any(p.startswith("_") for p in node.module.split(".")) or any(
            a.name.startswith("_") for a in node.names
        )
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "sklearn" and "._" in a.name for a in node.names)
    return False


def private_sklearn_users(root: Path = PACKAGE) -> list[str]:
    """Modules under ``root`` other than ``_sklearn_compat.py`` that import a private
    scikit-learn module or name (function-level imports included)."""
    return [
        str(path.relative_to(root.parent))
        for path in sorted(root.rglob("*.py"))
        if path.name != "_sklearn_compat.py"
        and any(_imports_private_sklearn(n) for n in ast.walk(ast.parse(path.read_text())))
    ]


def test_private_scikit_learn_names_come_from_the_compat_module_only():
    users = private_sklearn_users()
    assert not users, (
        "import private scikit-learn names through svmlab/_sklearn_compat.py (it names the "
        f"tested scikit-learn range): {users}"
    )


def test_the_private_scikit_learn_check_finds_each_form(tmp_path):
    pkg = tmp_path / "svmlab"
    pkg.mkdir()
    forms = {
        "a.py": "from sklearn.utils._param_validation import Interval\n",
        "b.py": "from sklearn.base import BaseEstimator, _fit_context\n",
        "c.py": "def f():\n    from sklearn.utils.validation import (\n"
        "        _check_sample_weight,\n    )\n",
        "d.py": "import sklearn.utils._testing\n",
        "ok.py": "from sklearn.utils.validation import validate_data as _validate_data\n",
        "_sklearn_compat.py": "from sklearn.base import _fit_context\n",
    }
    for name, text in forms.items():
        (pkg / name).write_text(text)
    assert private_sklearn_users(pkg) == [f"svmlab/{n}" for n in ("a.py", "b.py", "c.py", "d.py")]


_ABSENT = object()


def documented_names(page: Path) -> list[str]:
    """The ``svmlab.<...>`` dotted names a page writes as code (between backticks)."""
    return sorted(set(re.findall(r"`(svmlab(?:\.\w+)+)", page.read_text())))


def missing_names(names) -> list[str]:
    """The dotted names that are neither a module of svmlab nor an attribute of one."""
    missing = []
    for name in names:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ModuleNotFoundError:
                continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, _ABSENT)
        if obj is _ABSENT:
            missing.append(name)
    return missing


def test_the_docs_name_only_objects_that_exist():
    """A class or module the README or a page under docs/ names by its dotted path exists
    there (modules move; the front door must not point at their old place)."""
    pages = [README, *sorted(DOCS.glob("*.md")), *sorted((DOCS / "families").glob("*.md"))]
    found = {f"{p.name}: {n}" for p in pages for n in missing_names(documented_names(p))}
    assert sorted(found) == []
    assert missing_names(["svmlab.kernels.kernel_matrix", "svmlab.estimators.zero_r"]) == [
        "svmlab.estimators.zero_r"
    ]


# ----------------------------------------------------------------------------------------
# Small rooms: no module over 600 lines, no function over 80 unless its docstring says why

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
#: What the docstring of a longer function says first: why it is one piece (a numerical loop
#: that mirrors a paper's or a peer's pseudo-code step by step).
KEPT_WHOLE = "Kept whole:"


def long_modules(root: Path = PACKAGE, limit: int = MAX_MODULE_LINES) -> list[str]:
    """``path: n lines`` of every module under ``root`` longer than ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        n = len(path.read_text().splitlines())
        if n > limit:
            found.append(f"{path.relative_to(root.parent).as_posix()}: {n} lines")
    return found


def long_functions(root: Path = PACKAGE, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path::name: n lines`` of every function or method under ``root`` longer than
    ``limit`` lines (from ``def`` to its last line, docstring included) whose docstring does
    not say why it is kept whole."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            n = node.end_lineno - node.lineno + 1
            if n > limit and KEPT_WHOLE not in (ast.get_docstring(node) or ""):
                found.append(f"{path.relative_to(root.parent).as_posix()}::{node.name}: {n} lines")
    return sorted(found)


def test_no_module_over_600_lines():
    assert long_modules() == [], "split the module along a seam (a package keeps its imports)"


def test_no_function_over_80_lines_unless_it_says_why():
    assert long_functions() == [], (
        f"split the function into named helpers, or, for a numerical loop that mirrors a "
        f"paper's pseudo-code, say why in its docstring ({KEPT_WHOLE!r} ...)"
    )


def test_the_module_size_check_finds_a_long_module(tmp_path):
    pkg = tmp_path / "svmlab"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "short.py").write_text("x = 1\n" * 600)
    (pkg / "sub" / "long.py").write_text("x = 1\n" * 601)
    assert long_modules(pkg) == ["svmlab/sub/long.py: 601 lines"]


def test_the_function_size_check_finds_a_long_function_unless_it_says_why(tmp_path):
    def function(name: str, n_lines: int, doc: str, indent: str = "") -> str:
        body = "".join(f"{indent}    x = {i}\n" for i in range(n_lines - 2))
        return f'{indent}def {name}():\n{indent}    """{doc}"""\n{body}'

    pkg = tmp_path / "svmlab"
    pkg.mkdir()
    (pkg / "f.py").write_text(
        function("fits", 80, "Eighty lines.")
        + function("long", 81, "One line too many.")
        + "class A:\n"
        + function("method", 90, "A long method.", indent="    ")
        + function("loop", 120, "Alg. 1. Kept whole: it mirrors the pseudo-code step by step.")
    )
    assert long_functions(pkg) == ["svmlab/f.py::long: 81 lines", "svmlab/f.py::method: 90 lines"]
