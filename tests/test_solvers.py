import pytest

from svmlab.errors import ConfigError
from svmlab.solvers import SolverSpec

SVC = {
    "name": "svc",
    "_target_": "sklearn.svm.SVC",
    "tasks": ["binary"],
    "C": 1.0,
    "grid": {"C": [1, 10], "gamma": [0.1]},
}


def test_params_grid_and_build():
    spec = SolverSpec.from_config(SVC)
    assert spec.params == {"C": 1.0} and spec.tasks == ("binary",)
    assert len(spec.grid_points()) == 2
    est = spec.build({"C": 10}, random_state=3)
    assert est.C == 10 and est.random_state == 3
    spec.validate()


def test_nested_target_and_grid():
    cfg = {
        "name": "m",
        "_target_": "sklearn.multioutput.MultiOutputRegressor",
        "estimator": {"_target_": "sklearn.svm.SVR", "C": 2.0},
        "grid": {"estimator__C": [1.0, 3.0]},
    }
    spec = SolverSpec.from_config(cfg)
    spec.validate()
    assert spec.build().estimator.C == 2.0


@pytest.mark.parametrize(
    "change, message",
    [
        ({"_target_": "sklearn.svm.SVCC"}, "cannot import _target_"),
        ({"foo": 1}, "has no parameter 'foo'; valid parameters: .*C"),
        ({"grid": {"Cee": [1]}}, "grid names 'Cee'"),
        ({"C": "abc"}, "'C' parameter"),
        ({"grid": {"C": [1, -5]}}, "grid point"),
        ({"grid": {"C": 3}}, "non-empty list"),
        ({"tasks": ["classification"]}, "unknown task"),
    ],
)
def test_invalid_configs_fail_before_fitting(change, message):
    with pytest.raises(ConfigError, match=message):
        SolverSpec.from_config({**SVC, **change}).validate()


def test_nested_estimator_types_are_checked():
    cfg = {
        "name": "m",
        "_target_": "sklearn.multioutput.MultiOutputRegressor",
        "estimator": {"_target_": "sklearn.svm.SVR", "C": "big"},
    }
    with pytest.raises(ConfigError, match="'C' parameter of SVR"):
        SolverSpec.from_config(cfg).validate()


def test_a_null_grid_entry_removes_the_parameter_from_the_grid():
    """Experiments merge into the solver file's grid; `grid: {margin: null}` drops an entry."""
    spec = SolverSpec.from_config(
        {
            "name": "o",
            "_target_": "svmlab.estimators.ollawv.OLLAWVClassifier",
            "grid": {"margin": None, "C": [1.0, 4.0], "gamma": [0.5]},
        }
    )
    assert spec.grid == {"C": [1.0, 4.0], "gamma": [0.5]}
    assert spec.grid_points() == [{"C": 1.0, "gamma": 0.5}, {"C": 4.0, "gamma": 0.5}]


def test_a_retargeted_nested_estimator_keeps_only_what_replaced_it():
    """The replacing layers' keys stay whatever their values (a restated value of the old
    estimator included); what only the file gave is dropped."""
    from svmlab.solvers import replace_retargeted

    file = {
        "n_estimators": 10,
        "estimator": {"_target_": "a.Stump", "criterion": "entropy", "max_depth": 1},
    }
    composed = {
        "n_estimators": 10,
        "estimator": {"_target_": "a.Tree", "criterion": "entropy", "max_depth": 3},
    }
    given = {"estimator": {"_target_": "a.Tree", "max_depth": 3}}
    out = replace_retargeted(composed, file, given)
    assert out == {"n_estimators": 10, "estimator": {"_target_": "a.Tree", "max_depth": 3}}
    assert composed["estimator"]["criterion"] == "entropy"  # the argument is left unchanged
    restated = {"estimator": {"_target_": "a.Tree", "criterion": "entropy"}}
    assert replace_retargeted(composed, file, restated)["estimator"] == {
        "_target_": "a.Tree",
        "criterion": "entropy",
    }


def test_a_nested_estimator_of_the_same_class_is_merged_and_its_children_follow_the_rule():
    from svmlab.solvers import replace_retargeted

    file = {"estimator": {"_target_": "a.Chain", "base": {"_target_": "a.SVR", "C": 1.0}}}
    composed = {"estimator": {"_target_": "a.Chain", "base": {"_target_": "a.Ridge", "C": 1.0}}}
    given = {"estimator": {"base": {"_target_": "a.Ridge"}}}
    assert replace_retargeted(composed, file, given) == {
        "estimator": {"_target_": "a.Chain", "base": {"_target_": "a.Ridge"}}
    }
    same = {"estimator": {"_target_": "a.Chain", "base": {"_target_": "a.SVR", "C": 5.0}}}
    assert replace_retargeted(same, file, {"estimator": {"base": {"C": 5.0}}}) == same


def test_lists_are_left_as_composed():
    """Hydra replaces a list whole, so nothing in a list is inherited from the file."""
    from svmlab.solvers import replace_retargeted

    file = {"estimators": [{"_target_": "a.A", "C": 1, "k": 2}]}
    composed = {"estimators": [{"_target_": "a.B", "C": 1}]}
    assert replace_retargeted(composed, file, {}) == composed


@pytest.mark.parametrize(
    "target, tasks, takes",
    [
        ("svmlab.testing.MeanBagClassifier", ["binary"], "takes bags"),
        ("sklearn.svm.SVC", ["multi_instance"], "takes vectors"),
        ("svmlab.estimators.mtr.SVRCC", ["regression"], "takes multitarget input"),
    ],
)
def test_tasks_that_do_not_suit_the_declared_input_are_refused(target, tasks, takes):
    spec = SolverSpec.from_config({"name": "x", "_target_": target, "tasks": tasks})
    with pytest.raises(ConfigError, match=f"{takes}.*its svmlab_contract.*tasks"):
        spec.validate()


def test_a_nested_estimator_written_whole_or_by_no_layer_is_left_as_composed():
    """An interpolation (`estimator: ${hydrmi_roster.citation_knn}`) replaces the file's
    mapping whole in Hydra, so nothing was inherited; a place no layer wrote is not touched."""
    from svmlab.solvers import replace_retargeted

    file = {"estimator": {"_target_": "a.Stump", "criterion": "entropy"}}
    roster = {"estimator": {"_target_": "a.KNN", "n_citers": 1, "scaling": "weka"}}
    whole = {"estimator": "${hydrmi_roster.citation_knn}"}
    assert replace_retargeted(roster, file, whole) == roster
    assert replace_retargeted(roster, file, None) == roster
    assert replace_retargeted(roster, file, {"name": "x"}) == roster
