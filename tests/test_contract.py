"""The estimator contract (svmlab/contract.py): what a declaration may say, how it is read,
and what planning refuses."""

import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import SVC

from svmlab.contract import DEFAULT, Contract, RowValue, contract_of
from svmlab.errors import ConfigError
from svmlab.runner.plan import _check_row_values
from svmlab.solvers import SolverSpec


class _Declared(ClassifierMixin, BaseEstimator):
    svmlab_contract = Contract(input="bags", row_values={"score_a": RowValue("a", "min")})


class _Inherits(_Declared):
    pass


class _Wrong(BaseEstimator):
    svmlab_contract = {"input": "bags"}


def test_the_contract_is_read_from_the_class_and_inherited():
    assert contract_of(_Declared) is _Declared.svmlab_contract
    assert contract_of(_Declared()) is _Declared.svmlab_contract  # an instance's class
    assert contract_of(_Inherits).input == "bags"
    assert contract_of(SVC) is DEFAULT and DEFAULT.input == "vector"
    assert not DEFAULT.transductive and DEFAULT.row_values == {}
    assert tuple(DEFAULT.tuning_ignores({"C": 1})) == ()


def test_a_declaration_that_is_not_a_contract_is_named():
    with pytest.raises(TypeError, match="_Wrong.svmlab_contract must be a svmlab.contract"):
        contract_of(_Wrong)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"input": "matrix"}, "Contract.input must be one of"),
        ({"tuning_ignores": ("C",)}, "tuning_ignores must be a function"),
        ({"row_values": {"x": "objective"}}, "row_values\\['x'\\] must be a RowValue"),
        ({"path_parameter": "m", "path_simpler": "low"}, "path_simpler must be 'min', 'max'"),
        ({"path_simpler": "min"}, "path_simpler needs a path_parameter"),
        ({"path_parameter": ()}, "a name or a tuple of distinct names"),
        ({"path_parameter": ["k", "C"]}, "a name or a tuple of distinct names"),
        ({"path_parameter": ("k", "k")}, "a name or a tuple of distinct names"),
        ({"path_simpler": ("min", "max")}, "path_simpler needs a path_parameter"),
        ({"path_parameter": ("k", "C"), "path_simpler": "min"}, "tuple as long as"),
        ({"path_parameter": ("k", "C"), "path_simpler": ("min", "low")}, "'min', 'max' or None"),
    ],
)
def test_a_malformed_contract_is_refused_where_it_is_declared(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Contract(**kwargs)


def test_a_row_value_direction_is_max_or_min():
    with pytest.raises(ValueError, match="'max' or 'min'"):
        RowValue("objective", "up")


def test_the_methods_a_contract_promises_must_exist():
    promise = Contract(path_parameter="C", test_diagnostics=True)
    assert promise.missing_methods(SVC) == ["fit_path", "test_diagnostics"]
    assert Contract(input="stream").missing_methods(SVC) == ["partial_fit"]
    assert DEFAULT.missing_methods(SVC) == []


def _spec_with(contract: Contract) -> SolverSpec:
    spec = SolverSpec.from_config({"name": "x", "_target_": "sklearn.svm.SVC"})
    spec.__dict__["contract"] = contract  # as if sklearn's SVC declared it
    return spec


@pytest.mark.parametrize("column", ["accuracy", "model_size", "fit_time", "status", "fit_info"])
def test_a_row_value_may_not_take_a_column_the_runner_writes(column):
    spec = _spec_with(Contract(row_values={column: RowValue("objective")}))
    with pytest.raises(ConfigError, match=f"row value\\(s\\) \\['{column}'\\]"):
        _check_row_values(spec)
    _check_row_values(_spec_with(Contract(row_values={"my_objective": RowValue("objective")})))


def test_a_solver_whose_class_breaks_its_promise_is_refused_at_validation():
    spec = _spec_with(Contract(path_parameter="C"))
    with pytest.raises(ConfigError, match="SVC declares a contract that needs fit_path"):
        spec.validate()


def test_a_joint_path_names_its_parameters_and_their_simpler_ends():
    joint = Contract(path_parameter=("k", "C"), path_simpler=("min", None))
    assert joint.path_names == ("k", "C")
    assert joint.simpler_end("k") == "min" and joint.simpler_end("C") is None
    single = Contract(path_parameter="margin", path_simpler="min")
    assert single.path_names == ("margin",) and single.simpler_end("margin") == "min"
    assert Contract().path_names == () and Contract().simpler_end("C") is None
