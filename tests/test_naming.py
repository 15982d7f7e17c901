"""Names that explain themselves: config files named as their ``name:``, one meaning of
"solver", no estimator with both ``C`` and ``c``, MIL helpers only from the helper module."""

import ast
import importlib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
GROUPS = ("dataset", "solver", "protocol", "runner", "experiment")


def _configs(group):
    return sorted((CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("group", GROUPS)
def test_config_file_name_is_its_name(group):
    wrong = {}
    for path in _configs(group):
        name = (yaml.safe_load(path.read_text()) or {}).get("name")
        if name != path.stem:
            wrong[path.name] = name
    assert not wrong, f"conf/{group}: file names differ from their name: {wrong}"


def _solver_classes():
    seen = {}
    for path in _configs("solver"):
        target = yaml.safe_load(path.read_text())["_target_"]
        if target.startswith("svmlab."):
            module, _, cls = target.rpartition(".")
            seen[target] = getattr(importlib.import_module(module), cls)
    return seen


def test_estimator_parameters_say_what_they_are():
    for target, cls in _solver_classes().items():
        params = set(cls().get_params(deep=False))
        assert not {"C", "c"} <= params, f"{target} has both C and c"
        # "solver" is the config group; an estimator's inner QP solver is qp_solver
        assert "solver" not in params, f"{target}: call its QP-solver option qp_solver"


def test_mil_estimators_import_shared_code_from_the_helper_module_only():
    mil = ROOT / "svmlab" / "estimators" / "mil"
    for path in sorted(mil.glob("*.py")):
        if path.name in ("__init__.py", "_bags.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "svmlab.estimators.mil."
            ):
                if node.module == "svmlab.estimators.mil._bags":
                    continue
                # an estimator may build on another estimator class, never on its helpers
                for alias in node.names:
                    assert alias.name[0].isupper() and not alias.name.startswith("_"), (
                        f"{path.name} imports {alias.name} from {node.module}; shared helpers "
                        "belong in svmlab/estimators/mil/_bags.py"
                    )
